// The state every part of the NIC reads: the current configuration, the QP table, the NIC-wide counters,
// the frame builder and the drop accounting. One object per NIC, handed to each part at construction.

import type { DeviceEnv, Nanoseconds } from "../device/contract.js";
import { CounterKind, CounterSet, Label } from "../device/counters.js";
import { DropCounter } from "../device/drops.js";
import { EventLimiter } from "../device/event-limiter.js";
import { TIMER_STRIDE, type TimerKind, TimerRegistry } from "../device/timers.js";
import { PRIORITIES } from "../wire/pfc.js";
import type { NicConfig } from "./config.js";
import { declareNicCounters, NicCounters } from "./counters.js";
import { FrameBuilder } from "./frames.js";
import { Histogram } from "./histogram.js";
import { DROP_REASONS, DropReason, EVENT_INTERVAL_NS, HOST_PORT, PORT } from "./nic-ids.js";
import type { QueuePair } from "./qp.js";
import { QpSet } from "./qp-set.js";
import type { CompletionRecord } from "./stats-types.js";
import type { TransportSettings } from "./transport.js";

/** Starts the port's transmitter if it is idle. */
export type Kick = (now: Nanoseconds) => void;

/** The NIC's timer kinds (registered by the shell, nic.ts, in this order). */
export interface NicTimers {
  readonly tx: TimerKind;
  readonly wake: TimerKind;
  readonly pauseExpiry: TimerKind;
  readonly rto: TimerKind;
  readonly rpIncrease: TimerKind;
  readonly rpCut: TimerKind;
  readonly cnp: TimerKind;
  readonly post: TimerKind;
  readonly rxDrain: TimerKind;
  readonly xoffRefresh: TimerKind;
  readonly pfcStorm: TimerKind;
}

export class NicShared {
  cfg: NicConfig;
  readonly settings: TransportSettings;
  readonly counters = new NicCounters();
  readonly builder: FrameBuilder;
  readonly limiter = new EventLimiter(EVENT_INTERVAL_NS);
  /** The counters declared on the registry (per port and priority: PFC; per reason: drops). */
  readonly counterSet = new CounterSet({
    [Label.Port]: HOST_PORT + 1,
    [Label.Priority]: PRIORITIES,
    [Label.Reason]: DROP_REASONS.length,
  });
  readonly drops: DropCounter<DropReason>;
  /** Event-limiter keys per QP slot: CNPs sent, rate cuts, payload mismatches. */
  readonly keyCnp: number;
  readonly keyCut: number;
  readonly keyMismatch: number;
  readonly timers = new TimerRegistry();
  /** Set by the shell before any part arms a timer. */
  t!: NicTimers;
  readonly qps: QueuePair[] = [];
  readonly qpByNum = new Map<number, QueuePair>();
  /**
   * QPs that may have data to send: a superset of those whose `hasData()` is true. Whatever can give a QP
   * work (a post, a packet for it, its retransmission timer, a new configuration) adds it with `mayHaveData`;
   * the transmit arbiter drops it again when it finds it has none.
   */
  readonly txCandidates = new QpSet();
  readonly flows: CompletionRecord[] = [];
  /** One-way delay of every received data packet. */
  readonly latency = new Histogram();
  readonly dataPrio: number;
  ackPrio: number;
  readonly cnpPrio: number;

  constructor(
    config: NicConfig,
    readonly env: DeviceEnv,
  ) {
    this.cfg = config;
    this.settings = {
      mtu: config.mtu,
      ackReqEvery: config.ackReqEvery,
      maxInflightPackets: config.maxInflightPackets,
      nakRetryGuard: config.nakRetryGuard,
      reorderWindow: config.reorderWindow,
    };
    this.builder = new FrameBuilder(config);
    this.dataPrio = config.dscpToPriority[config.dataDscp]!;
    this.ackPrio = config.dscpToPriority[config.ackDscp]!;
    this.cnpPrio = config.dscpToPriority[config.cnpDscp]!;
    declareNicCounters(this.counters, this.counterSet);
    this.drops = new DropCounter(DROP_REASONS, this.counterSet, this.limiter, env, HOST_PORT + 1);
    // The names users of earlier releases grep for: the same drops, counted once.
    for (const [name, reason] of [
      ["rx_icrc_errors", DropReason.Icrc],
      ["rx_malformed", DropReason.Malformed],
      ["rx_unknown_qp", DropReason.UnknownQp],
    ] as const) {
      this.counterSet.computed(
        {
          name,
          kind: CounterKind.Counter,
          unit: "packets",
          help: `drop_${reason}, under its older name`,
          labels: [],
        },
        () => this.drops.get(reason),
      );
    }
    this.keyCnp = this.limiter.keys(TIMER_STRIDE);
    this.keyCut = this.limiter.keys(TIMER_STRIDE);
    this.keyMismatch = this.limiter.keys(TIMER_STRIDE);
  }

  get lineRate(): number {
    return this.cfg.port.rateBps;
  }

  /** `qp` may have work to send now (see `txCandidates`). */
  mayHaveData(qp: QueuePair): void {
    this.txCandidates.add(qp.slot);
  }

  drop(reason: DropReason, now: Nanoseconds): void {
    this.drops.count(reason, PORT, -1, now);
  }
}
