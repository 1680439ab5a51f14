// The lab's side of its devices' clocks: the epoch every device counts from, and with synced clocks the
// shared clock table (runtime/realtime/clock-table.ts) the supervisor creates, hands each device its row of,
// reads the lab's time from (the slowest running device) and marks dead devices in.

import { ClockTable, clockTableBytes, DeviceState } from "../../runtime/realtime/clock-table.js";
import { CHANGE_LEAD_NS, DilationTimeline, dilationTableBytes } from "../../runtime/realtime/dilation.js";
import { nativeAddon } from "../../runtime/realtime/native.js";
import type { DilationInit, SyncInit } from "../../runtime/realtime/protocol.js";
import type { Topology } from "../../scenario/topology.js";
import { ClockMode, type ClockPlan, planClock } from "./clock-plan.js";
import { clockTablePath, dilationTablePath } from "./names.js";

/**
 * Default grace of synced clocks: none. A neighbour with work is taken to be where it last published, never
 * trusted to have run on: with 1 ms (the Node timer's tick) a neighbour the OS did not run for that long put
 * frames in its receiver's past (69–83 per run of docs/experiments/fidelity/incast-pfc.yaml on a loaded
 * machine, against 8–13 with none, at the same pace: 0.066/0.127 against 0.051/0.120 in alternate runs).
 */
export const DEFAULT_SYNC_GRACE_MS = 0;

export class LabClock {
  /** process.hrtime.bigint() at emulated time 0. */
  readonly epoch = process.hrtime.bigint();
  private readonly plan: ClockPlan;
  private table: ClockTable | null = null;
  /** The lab's dilation over time, shared with every device (free-running clocks too). */
  private timeline: DilationTimeline;

  constructor(
    private readonly lab: string,
    topo: Topology,
    /** The dilation the lab starts with. */
    readonly initialDilation: number,
    readonly mode: ClockMode,
    private readonly graceMs = DEFAULT_SYNC_GRACE_MS,
  ) {
    this.plan = planClock(topo);
    this.timeline = DilationTimeline.fixed(initialDilation);
  }

  /** The dilation in force now. */
  get dilation(): number {
    return this.timeline.factor(this.real());
  }

  /**
   * From CHANGE_LEAD_NS real from now on, emulated time runs `factor` times slower than real time: every
   * device reads the change before it takes effect, so all of them switch at the same real instant.
   * Returns the emulated time the change takes effect at.
   */
  setDilation(factor: number): number {
    const at = this.real() + CHANGE_LEAD_NS;
    this.timeline.change(at, factor);
    return this.timeline.emulated(at);
  }

  /** Every dilation the lab has run at (its last SEGMENTS changes), with when it started. */
  dilationHistory(): { startReal: number; startEmu: number; factor: number }[] {
    return this.timeline.segments();
  }

  /** Where the devices find the lab's dilation. */
  dilationFor(): DilationInit {
    return { table: dilationTablePath(this.lab), bytes: dilationTableBytes() };
  }

  /** Creates the shared dilation table and (synced clocks) the clock table, before any device starts. */
  create(): void {
    const shared = nativeAddon().mapShared(dilationTablePath(this.lab), dilationTableBytes());
    this.timeline = DilationTimeline.format(shared, this.initialDilation);
    if (this.mode !== ClockMode.Synced) return;
    const devices = this.plan.device.size;
    const bytes = clockTableBytes(devices, this.plan.links.length);
    const buffer = nativeAddon().mapShared(clockTablePath(this.lab), bytes);
    this.table = ClockTable.format(buffer, devices, this.plan.links);
  }

  /** What a device needs to run a synced clock (undefined: free-running). */
  syncFor(node: string): SyncInit | undefined {
    if (this.table === null) return undefined;
    return {
      table: clockTablePath(this.lab),
      bytes: this.table.words.byteLength,
      device: this.plan.device.get(node)!,
      ports: this.plan.ports.get(node)!,
      graceMs: this.graceMs,
    };
  }

  /**
   * Synced clocks: no device runs past the lab's emulated time `at` until the next call (+Inf releases
   * them); free-running clocks cannot be held, and ignore it. Returns whether the lab's clocks are held.
   */
  hold(at: number): boolean {
    if (this.table === null) return false;
    this.table.setGate(at);
    return true;
  }

  /** A dead device constrains no clock (its links are silent; a restart takes the row again). */
  gone(node: string): void {
    this.table?.setState(this.plan.device.get(node)!, DeviceState.Gone);
  }

  /** Emulated ns of the dilated real clock alone. */
  free(): number {
    return this.timeline.emulated(this.real());
  }

  /** Real ms until the dilated real clock reaches emulated `at` (<= 0 once it has). */
  realMsUntil(at: number): number {
    return (this.timeline.realAt(at) - this.real()) / 1e6;
  }

  private real(): number {
    return Number(process.hrtime.bigint() - this.epoch);
  }

  /**
   * The lab's emulated now. Free-running clocks: from the shared epoch. Synced clocks: the slowest running
   * device's clock, so that scenario steps and workloads start when the devices are there.
   */
  now(): number {
    const real = this.real();
    const free = this.timeline.emulated(real);
    if (this.table === null) return free;
    let slowest = Number.POSITIVE_INFINITY;
    for (let d = 0; d < this.table.devices; d++) {
      const e = this.table.estimate(d, real, this.timeline, this.graceMs * 1e6);
      if (e < slowest) slowest = e;
    }
    return slowest === Number.POSITIVE_INFINITY ? free : Math.max(0, slowest);
  }
}
