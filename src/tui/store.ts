// The dashboard's model, outside React: fed by a Lab (snapshots and events), it keeps the
// derived state — port and link metrics from counter deltas, per-QP goodput, bounded histories for the
// sparklines, a bounded event log, the outcome of the last action — and hands out immutable states to
// subscribers. Notifications are coalesced so a burst of event batches costs one redraw.

import { readCounter } from "../device/counters.js";
import type { Lab, LabEvent, LabSnapshot, TopologyView } from "../lab/lab.js";
import type { ThresholdPreset } from "../scenario/action.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import {
  appendBounded,
  type FabricTotals,
  fabricPortMetrics,
  fabricTotals,
  type LinkRow,
  linkRows,
  type NodeState,
  type PortMetrics,
  type QpRow,
  qpRows,
} from "./derive.js";
import { nodeStates } from "./derive-topology.js";
import { type QpFlow, qpFlows } from "./flow-paths.js";
import { type PeerNamer, peerNamerOf } from "./peer-names.js";
import { type Stalls, trackStalls } from "./watchdog-eta.js";

/** The outcome of the last thing the user asked the lab to do. */
export interface ActionOutcome {
  readonly text: string;
  readonly state: "pending" | "ok" | "error";
}

/** An event with its place in the stream (stable while the log scrolls). */
export interface LoggedEvent {
  readonly seq: number;
  readonly event: LabEvent;
}

export interface Histories {
  /** Per port ("node:ethN"): wire utilisation 0..1. */
  readonly util: ReadonlyMap<string, readonly number[]>;
  /** Per QP ("host/qpn"): goodput, bits/s. */
  readonly goodput: ReadonlyMap<string, readonly number[]>;
  /** Per QP: DCQCN current rate, bits/s. */
  readonly rate: ReadonlyMap<string, readonly number[]>;
  /** Per switch: buffer in use, bytes. */
  readonly buffer: ReadonlyMap<string, readonly number[]>;
}

export interface DashboardState {
  readonly lab: string;
  readonly runtime: "sim" | "live";
  readonly topology: TopologyView;
  /** The latest snapshot (null until the first arrives). */
  readonly snapshot: LabSnapshot | null;
  readonly ports: ReadonlyMap<string, PortMetrics>;
  readonly links: readonly LinkRow[];
  readonly nodes: readonly NodeState[];
  readonly qps: readonly QpRow[];
  /** Per QP ("host/qpn"): the routes its packets took and its class (flow-paths.ts). */
  readonly flows: ReadonlyMap<string, QpFlow>;
  readonly totals: FabricTotals | null;
  readonly history: Histories;
  /** The newest events, oldest first (bounded). */
  readonly events: readonly LoggedEvent[];
  /** Events seen since the dashboard started (the log keeps only the newest). */
  readonly eventsTotal: number;
  readonly lastAction: ActionOutcome | null;
  /** The threshold preset last applied from the dashboard. */
  readonly preset: ThresholdPreset;
  /** A simulated run the user paused. */
  readonly paused: boolean;
  /** Queues stalled under PFC now, since when (watchdog-eta.ts). */
  readonly stalls: Stalls;
}

export interface StoreOptions {
  /** Names a QP's remote address (default: the topology's host names, else dotted quad). */
  readonly peerName?: PeerNamer;
  /** Samples kept per sparkline (default 60). */
  readonly historyLength?: number;
  /** Events kept in the log (default 2000). */
  readonly eventLimit?: number;
  /** Coalesce notifications over this many real ms (default 150; 0 notifies at once, for tests). */
  readonly notifyMs?: number;
}

function pushHistory(
  map: ReadonlyMap<string, readonly number[]>,
  samples: Iterable<[string, number]>,
  max: number,
): Map<string, readonly number[]> {
  const out = new Map(map);
  for (const [key, v] of samples) out.set(key, appendBounded(out.get(key) ?? [], [v], max));
  return out;
}

/**
 * The log with `items` merged in emulated-time order, keeping the newest `max`. Devices report in batches
 * of their own, so events of different devices arrive out of order; the log reads in the order they
 * happened (ties keep their arrival order).
 */
export function mergeByTime(
  log: readonly LoggedEvent[],
  items: readonly LoggedEvent[],
  max: number,
): LoggedEvent[] {
  const merged = [...log, ...items].sort((a, b) => a.event.t - b.event.t || a.seq - b.seq);
  return appendBounded([], merged, max);
}

export class DashboardStore {
  private state: DashboardState;
  private readonly listeners = new Set<(s: DashboardState) => void>();
  private readonly historyLength: number;
  private readonly eventLimit: number;
  private readonly notifyMs: number;
  private readonly peerName: PeerNamer;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    info: { lab: string; runtime: "sim" | "live"; topology: TopologyView },
    opts: StoreOptions = {},
  ) {
    this.historyLength = opts.historyLength ?? 60;
    this.eventLimit = opts.eventLimit ?? 2000;
    this.notifyMs = opts.notifyMs ?? 150;
    this.peerName = opts.peerName ?? peerNamerOf(info.topology);
    this.state = {
      lab: info.lab,
      runtime: info.runtime,
      topology: info.topology,
      snapshot: null,
      ports: new Map(),
      links: [],
      nodes: [],
      qps: [],
      flows: new Map(),
      totals: null,
      history: { util: new Map(), goodput: new Map(), rate: new Map(), buffer: new Map() },
      events: [],
      eventsTotal: 0,
      lastAction: null,
      preset: "default",
      paused: false,
      stalls: new Map(),
    };
  }

  /** Feeds the store from a lab; returns the function that stops it. */
  connect(lab: Lab): () => void {
    const offSnapshot = lab.onSnapshot((s) => this.ingestSnapshot(s));
    const offEvents = lab.onEvents((e) => this.ingestEvents(e));
    return () => {
      offSnapshot();
      offEvents();
    };
  }

  getState(): DashboardState {
    return this.state;
  }

  /** Calls `listener` with every new state; returns the unsubscribe function. */
  subscribe(listener: (s: DashboardState) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  ingestSnapshot(s: LabSnapshot): void {
    const prev = this.state.snapshot;
    // A repeated or older snapshot (a poll racing a push) adds nothing.
    if (prev && s.now <= prev.now) return;
    const ports = fabricPortMetrics(s, prev);
    const qps = qpRows(s, prev, this.peerName);
    const h = this.state.history;
    const n = this.historyLength;
    const history: Histories = {
      util: prev
        ? pushHistory(
            h.util,
            [...ports].map(([k, m]) => [k, m.util ?? 0]),
            n,
          )
        : h.util,
      goodput: prev
        ? pushHistory(
            h.goodput,
            qps.map((q) => [q.key, q.goodputBps ?? 0]),
            n,
          )
        : h.goodput,
      rate: pushHistory(
        h.rate,
        qps.map((q) => [q.key, q.rateBps]),
        n,
      ),
      buffer: pushHistory(
        h.buffer,
        Object.values(s.stats)
          .filter((d) => d.kind === "switch")
          .map((d) => [d.name, readCounter(d.counters, SwitchCounter.bufferUsed)]),
        n,
      ),
    };
    this.update({
      snapshot: s,
      ports,
      links: linkRows(s.links, ports),
      nodes: nodeStates(this.state.topology, s.devices, ports),
      qps,
      flows: qpFlows(s, prev, this.state.topology),
      totals: fabricTotals(s),
      history,
      stalls: trackStalls(this.state.stalls, s, prev),
    });
  }

  ingestEvents(events: readonly LabEvent[]): void {
    if (events.length === 0) return;
    const first = this.state.eventsTotal;
    const logged = events.map((event, i) => ({ seq: first + i + 1, event }));
    this.update({
      events: mergeByTime(this.state.events, logged, this.eventLimit),
      eventsTotal: first + events.length,
    });
  }

  setAction(outcome: ActionOutcome): void {
    this.update({ lastAction: outcome });
  }

  setPreset(preset: ThresholdPreset): void {
    this.update({ preset });
  }

  setPaused(paused: boolean): void {
    this.update({ paused });
  }

  /** Stops pending notifications (the dashboard is closing). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  private update(patch: Partial<DashboardState>): void {
    this.state = { ...this.state, ...patch };
    if (this.notifyMs <= 0) {
      this.notify();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.notify();
    }, this.notifyMs);
  }

  private notify(): void {
    for (const l of this.listeners) l(this.state);
  }
}
