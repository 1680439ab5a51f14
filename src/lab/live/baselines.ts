// Reads at a run's emulated times on a live lab. Counters from its time 0: every running device reads its stats tables at that
// emulated time (device-host.ts readAt) when asked ahead of it, and hands them over after the run
// (lab/stats-since.ts subtracts them). A device restarted after the time has no baseline: its counters
// started after it anyway. Time series on the scenario's grid: every device reads what they need at each
// sample time (runtime/realtime/grid-reads.ts) and the run collects the reads as it goes.

import type { GridRead } from "../../runtime/realtime/grid-reads.js";
import type { StatsBaseline } from "../../runtime/realtime/protocol.js";
import type { DeviceFleet } from "./device-fleet.js";

/** What arming a baseline found: the devices that were already past its time (read late), by name. */
export interface BaselineArmed {
  readonly armed: number;
  readonly late: readonly string[];
}

/** Asks every running device to read its tables at emulated time `at`. */
export async function armBaselines(fleet: DeviceFleet, at: number): Promise<BaselineArmed> {
  const late: string[] = [];
  let armed = 0;
  await Promise.all(
    fleet.running().map(async (d) => {
      const r = (await d.request({ type: "baseline", at })) as { ok: boolean; late: boolean };
      armed++;
      if (r.late) late.push(d.node);
    }),
  );
  return { armed, late: late.sort() };
}

/** Every running device's baseline, by name; null where it has none (not yet taken, or restarted since). */
export function takeBaselines(fleet: DeviceFleet): Promise<Record<string, StatsBaseline | null>> {
  return fleet.askRunning(
    async (d) => (await d.request({ type: "baseline", at: null })) as StatsBaseline | null,
  );
}

/** Asks every running device to read its series at `at`, `at + every`, … (`count` times). */
export async function armSeries(fleet: DeviceFleet, at: number, every: number, count: number): Promise<void> {
  await Promise.all(fleet.running().map((d) => d.request({ type: "series", at, every, count })));
}

/**
 * The series reads every running device took since the last collection, by name (a device that just died,
 * a chaos kill, has no more reads; its restart none either).
 */
export function takeSeries(fleet: DeviceFleet): Promise<Record<string, GridRead[]>> {
  return fleet.askRunning(async (d) => (await d.request({ type: "series", at: null })) as GridRead[]);
}
