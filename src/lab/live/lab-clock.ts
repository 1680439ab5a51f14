// The lab's side of its devices' clocks: the epoch every device counts from, and with synced clocks the
// shared clock table (runtime/live/clock-table.ts) the supervisor creates, hands each device its row of,
// reads the lab's time from (the slowest running device) and marks dead devices in.

import { ClockTable, clockTableBytes, DeviceState } from "../../runtime/live/clock-table.js";
import { nativeAddon } from "../../runtime/live/native.js";
import type { SyncInit } from "../../runtime/live/protocol.js";
import type { Topology } from "../topology.js";
import { ClockMode, type ClockPlan, planClock } from "./clock-plan.js";
import { clockTablePath } from "./names.js";

/** Default grace of synced clocks: above a busy device's usual gap between turns (Node timers, ~1 ms). */
export const DEFAULT_SYNC_GRACE_MS = 1;

export class LabClock {
  /** process.hrtime.bigint() at emulated time 0. */
  readonly epoch = process.hrtime.bigint();
  private readonly plan: ClockPlan;
  private table: ClockTable | null = null;

  constructor(
    private readonly lab: string,
    topo: Topology,
    readonly dilation: number,
    readonly mode: ClockMode,
    private readonly graceMs = DEFAULT_SYNC_GRACE_MS,
  ) {
    this.plan = planClock(topo);
  }

  /** Creates the clock table (synced clocks), before any device starts. */
  create(): void {
    if (this.mode !== ClockMode.Synced) return;
    const devices = this.plan.device.size;
    const bytes = clockTableBytes(devices, this.plan.linkTo.length);
    const buffer = nativeAddon().mapShared(clockTablePath(this.lab), bytes);
    this.table = ClockTable.format(buffer, devices, this.plan.linkTo);
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

  /** A dead device constrains no clock (its links are silent; a restart takes the row again). */
  gone(node: string): void {
    this.table?.setState(this.plan.device.get(node)!, DeviceState.Gone);
  }

  /** Emulated ns of the dilated real clock alone. */
  free(): number {
    return Math.floor(Number(process.hrtime.bigint() - this.epoch) / this.dilation);
  }

  /**
   * The lab's emulated now. Free-running clocks: from the shared epoch. Synced clocks: the slowest running
   * device's clock, so that scenario steps and workloads start when the devices are there.
   */
  now(): number {
    const real = Number(process.hrtime.bigint() - this.epoch);
    const free = Math.floor(real / this.dilation);
    if (this.table === null) return free;
    let slowest = Number.POSITIVE_INFINITY;
    for (let d = 0; d < this.table.devices; d++) {
      const e = this.table.estimate(d, real, this.dilation, this.graceMs * 1e6);
      if (e < slowest) slowest = e;
    }
    return slowest === Number.POSITIVE_INFINITY ? free : Math.max(0, slowest);
  }
}
