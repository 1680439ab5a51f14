// A live run's counters from its time 0 (lab/stats-since.ts): the devices read their tables at the
// scenario's time 0 on the lab's clock, and the report takes the final tables' difference from them, so
// the lab's bring-up (ARP, the hosts' ping, LACP, LLDP before time 0) is not in it — as the simulator,
// whose bring-up before 0 is taken out the same way (bring-up.ts), counts nothing before it.

import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { BaselineArmed } from "../lab/live/baselines.js";
import type { LiveLab } from "../lab/live/live-lab.js";
import { statsSince } from "../lab/stats-since.js";
import type { StatsBaseline } from "../runtime/realtime/protocol.js";

/**
 * Asks every device to read its counters at emulated time `t0`. Synced clocks are held one nanosecond
 * short of it meanwhile, so that none is past it when asked (the caller holds them at the timeline's
 * first step after); free clocks are asked ahead of it and are late only if the request is.
 */
export async function armBaselines(
  lab: LiveLab,
  t0: number,
  progress: (line: string) => void,
): Promise<BaselineArmed> {
  await lab.request("hold", { at: t0 - 1 });
  const armed = await lab.request<BaselineArmed>("baseline", { at: t0 });
  if (armed.late.length > 0)
    progress(`  counters of ${armed.late.join(", ")} read after time 0 (their device was already past it)`);
  return armed;
}

/**
 * The devices' final stats with their counters since time 0. A device without a baseline (restarted
 * after time 0: its counters began then; or one that does not answer the request) is reported as it is.
 */
export async function sinceTimeZero(
  lab: LiveLab,
  stats: readonly AnyDeviceStats[],
): Promise<{ stats: AnyDeviceStats[]; without: string[] }> {
  let baselines: Record<string, StatsBaseline | null> = {};
  try {
    baselines = await lab.request<Record<string, StatsBaseline | null>>("baseline", {});
  } catch {
    // A lab whose devices predate baselines: totals, said in `without`.
  }
  const without: string[] = [];
  const out = stats.map((s) => {
    const b = baselines[s.name];
    if (b === undefined || b === null) {
      without.push(s.name);
      return s;
    }
    return statsSince(s, b);
  });
  return { stats: out, without };
}
