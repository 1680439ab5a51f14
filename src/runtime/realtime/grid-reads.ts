// A live device's time series on the simulator's grid: the simulator samples every device at the scenario's
// sample times (run/sim-run-setup.ts), a live run used to sample whenever the supervisor asked. Here the
// device reads what the series need at each grid time itself (DeviceHost.readAt: after everything before
// that time, before anything at it) and keeps the reads until the run collects them, so both runtimes'
// series can be compared point for point.

import type { DeviceStats, QueueStats } from "../../device/contract.js";
import { tableKey } from "../../device/counters.js";
import type { NicStats } from "../../nic/stats-types.js";
import { SwitchCounter } from "../../switch/counter-defs.js";
import type { DeviceHost } from "./device-host.js";

/** One read: the device's stats at grid time `t`, cut to what report/series-recorder.ts reads. */
export interface GridRead {
  readonly t: number;
  readonly stats: DeviceStats;
}

const SERIES_COUNTERS = [SwitchCounter.bufferSharedUsed, SwitchCounter.bufferHeadroomUsed].map(tableKey);

/** What the time series take of a device's stats: queue depths and pauses, buffer use, QPs. */
export function seriesView(s: DeviceStats): DeviceStats {
  if (s.kind === "nic") {
    const d = (s as NicStats).detail;
    return { kind: s.kind, name: s.name, now: s.now, counters: {}, ports: [], detail: { qps: d.qps } };
  }
  const counters: Record<string, number> = {};
  for (const k of SERIES_COUNTERS) if (k in s.counters) counters[k] = s.counters[k]!;
  return {
    kind: s.kind,
    name: s.name,
    now: s.now,
    counters,
    ports: s.ports.map((p) => ({
      port: p.port,
      name: p.name,
      up: p.up,
      counters: {},
      queues: (p.queues ?? []).map(
        (q): QueueStats => ({ queue: q.queue, depthBytes: q.depthBytes, paused: q.paused, counters: {} }),
      ),
    })),
  };
}

/** Reads at `first`, `first + every`, … (`count` times); a time the device had already passed is skipped. */
export class GridReads {
  private reads: GridRead[] = [];
  private next = 0;
  skipped = 0;

  constructor(
    private readonly host: DeviceHost,
    private readonly read: (t: number) => DeviceStats,
    private readonly first: number,
    private readonly every: number,
    private readonly count: number,
  ) {
    this.arm();
  }

  private arm(): void {
    while (this.next < this.count) {
      const at = this.first + this.next * this.every;
      this.next++;
      if (this.host.readAt(at, (t) => this.take(t))) return;
      this.skipped++;
    }
  }

  private take(t: number): void {
    this.reads.push({ t, stats: seriesView(this.read(t)) });
    this.arm();
  }

  /** The reads since the last call. */
  drain(): GridRead[] {
    const out = this.reads;
    this.reads = [];
    return out;
  }
}
