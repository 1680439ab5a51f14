// What both runtimes do with a device's stats tables at a scenario's time 0, where a report's counters
// start (lab/stats-since.ts): read them as a baseline, knowing which keys are levels (gauges: read whole
// at the end, not subtracted), and restart the high-water marks, so that a watermark at the end is the
// peak since time 0 and not one of the bring-up's (a live lab's ping, the simulator's ARP).

import type { Device, Nanoseconds } from "../device/contract.js";
import { levelKeys } from "../device/counters.js";
import { Nic } from "../nic/nic.js";
import { nicLevelKeys } from "../nic/nic-stats.js";
import { DROP_REASONS as SWITCH_DROP_REASONS } from "../switch/drops.js";
import { Switch } from "../switch/switch.js";
import type { StatsBaseline } from "./realtime/protocol.js";

/** The keys of a device's stats tables that are levels, not counts. */
export function deviceLevels(d: Device): string[] {
  if (d instanceof Switch) return levelKeys(d.counters, SWITCH_DROP_REASONS);
  if (d instanceof Nic) return nicLevelKeys(d.counters);
  throw new Error(`device ${d.name} has no counter registry`);
}

/** Reads `d`'s tables at `now` as a baseline for `at`, then restarts its high-water marks from `now`. */
export function takeBaseline(d: Device, at: Nanoseconds, now: Nanoseconds, late: boolean): StatsBaseline {
  const baseline = { at, late, takenAt: now, stats: d.stats(now), levels: deviceLevels(d) };
  if (d instanceof Switch || d instanceof Nic) d.clearPeaks();
  return baseline;
}
