// What a live run's end says about the lab's timing, from the supervisor's status before and after: the
// synced-clock bets and the pace note of the progress line (late frames: report/live-timing.ts lateFramesDuring).

import { ClockMode, DEFAULT_CLOCK_MODE } from "../lab/live/clock-plan.js";
import type { LabStatus } from "../lab/live/supervisor.js";

/** A synced-clock health figure summed over the lab's devices. */
export function syncSum(s: LabStatus, key: "graceExceeded" | "unstamped"): number {
  let sum = 0;
  for (const d of s.devices) sum += d.health?.sync?.[key] ?? 0;
  return sum;
}

/**
 * What the "s real" estimate cannot know: the pace the machine will give. Synced clocks wait for the
 * slowest device, so a busy machine stretches the run; free clocks keep the time and lose wire time.
 */
export function clockPaceNote(clock: ClockMode | undefined): string {
  return (clock ?? DEFAULT_CLOCK_MODE) === ClockMode.Synced
    ? "synced clocks slow down when the machine cannot keep up, so it can take longer: the progress line shows the pace"
    : "free clocks keep the pace; a machine that cannot keep up loses wire time instead (the report's live timing says)";
}
