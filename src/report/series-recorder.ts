import type { Nanoseconds } from "../device/contract.js";
import { readCounter } from "../device/counters.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { NicStats } from "../nic/stats-types.js";
import type { OutputDir } from "../runtime/realtime/safe-files.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import type { SwitchStats } from "../switch/stats-types.js";
import { QP_CC_SERIES } from "./qp-cc-series.js";

export const SERIES_FILES = {
  queueDepth: "queue-depth.csv",
  pauseState: "pause-state.csv",
  buffer: "buffer.csv",
  qpRate: "qp-rate.csv",
  flowRate: "flow-rate.csv",
} as const;

/**
 * Long-format CSV time series that only records a key when its value changed. A key (the leading columns)
 * gets a slot the first time it is seen; a sample of an unchanged value is one comparison, and only a
 * change builds a row.
 */
export class Series {
  private readonly rows: string[] = [];
  private readonly slots = new Map<string, number>();
  private readonly keys: string[] = [];
  /** Last value per slot; a new slot has none (NaN equals nothing, so its first value is recorded). */
  private last = new Float64Array(64);

  constructor(
    readonly file: string,
    private readonly header: readonly string[],
  ) {}

  /** The slot of `key` (the leading columns), made on first use. */
  slot(key: readonly (string | number)[]): number {
    const k = key.join(",");
    let slot = this.slots.get(k);
    if (slot === undefined) {
      slot = this.keys.length;
      this.slots.set(k, slot);
      this.keys.push(k);
      if (slot >= this.last.length) {
        const grown = new Float64Array(this.last.length * 2);
        grown.set(this.last);
        this.last = grown;
      }
      this.last[slot] = Number.NaN;
    }
    return slot;
  }

  /** Records `value` for `key` (the leading columns) at time `t` if it changed since the last sample. */
  record(t: Nanoseconds, key: readonly (string | number)[], value: number): void {
    this.recordSlot(t, this.slot(key), value);
  }

  /** Whether `key` has a slot (has been recorded or given one). */
  has(key: readonly (string | number)[]): boolean {
    return this.slots.has(key.join(","));
  }

  /** `record` for a key already given a slot. */
  recordSlot(t: Nanoseconds, slot: number, value: number): void {
    if (this.last[slot] === value) return;
    this.last[slot] = value;
    this.rows.push(`${t},${this.keys[slot]},${Number.isInteger(value) ? value : value.toPrecision(6)}`);
  }

  get length(): number {
    return this.rows.length;
  }

  /** Every row so far (CSV lines, no header). */
  get lines(): readonly string[] {
    return this.rows;
  }

  /** Appends rows recorded elsewhere (a parallel run's partitions, merged in the order of a single run). */
  append(rows: readonly string[]): void {
    for (const r of rows) this.rows.push(r);
  }

  write(dir: OutputDir): void {
    dir.write(this.file, `${this.header.join(",")}\n${this.rows.join("\n")}${this.rows.length ? "\n" : ""}`);
  }
}

export class SeriesRecorder {
  readonly queueDepth = new Series(SERIES_FILES.queueDepth, ["t_ns", "device", "port", "queue", "bytes"]);
  readonly pauseState = new Series(SERIES_FILES.pauseState, ["t_ns", "device", "port", "queue", "paused"]);
  readonly buffer = new Series(SERIES_FILES.buffer, ["t_ns", "device", "kind", "bytes"]);
  readonly qpRate = new Series(SERIES_FILES.qpRate, ["t_ns", "host", "qpn", "metric", "value"]);
  readonly flowRate = new Series(SERIES_FILES.flowRate, ["t_ns", "host", "qpn", "goodput_bps"]);
  private readonly lastAcked = new Map<string, number>();
  private lastSampleAt: number | null = null;

  /**
   * Records one sample of every device, at emulated time `now` (relative to the run's start), from their
   * stats. A run uses either this or a SeriesSampler (series-sampler.ts), not both.
   */
  sample(now: Nanoseconds, stats: Iterable<AnyDeviceStats>): void {
    const dt = this.lastSampleAt === null ? 0 : now - this.lastSampleAt;
    for (const s of stats) {
      if (s.kind === "switch") this.recordSwitch(now, s);
      else this.recordNic(now, s, dt);
    }
    this.lastSampleAt = now;
  }

  get all(): Series[] {
    return [this.queueDepth, this.pauseState, this.buffer, this.qpRate, this.flowRate];
  }

  private recordSwitch(now: Nanoseconds, s: SwitchStats): void {
    for (const p of s.ports) {
      for (const q of p.queues ?? []) {
        this.queueDepth.record(now, [s.name, p.name, q.queue], q.depthBytes);
        this.pauseState.record(now, [s.name, p.name, q.queue], q.paused ? 1 : 0);
      }
    }
    this.buffer.record(now, [s.name, "shared"], readCounter(s.counters, SwitchCounter.bufferSharedUsed));
    this.buffer.record(now, [s.name, "headroom"], readCounter(s.counters, SwitchCounter.bufferHeadroomUsed));
  }

  private recordNic(now: Nanoseconds, s: NicStats, dt: number): void {
    for (const qp of s.detail.qps) {
      this.qpRate.record(now, [s.name, qp.qpn, "rate_bps"], Math.round(qp.rateBps));
      this.qpRate.record(now, [s.name, qp.qpn, "alpha"], qp.alpha);
      for (const c of QP_CC_SERIES) {
        const key = [s.name, qp.qpn, c.metric];
        const v = c.fromStats(qp);
        if (v !== 0 || this.qpRate.has(key)) this.qpRate.record(now, key, v);
      }
      const key = `${s.name}/${qp.qpn}`;
      const acked = qp.bytesAcked + qp.readBytesReceived;
      if (dt > 0) {
        this.flowRate.record(
          now,
          [s.name, qp.qpn],
          Math.round(((acked - (this.lastAcked.get(key) ?? 0)) * 8e9) / dt),
        );
      }
      this.lastAcked.set(key, acked);
    }
  }
}
