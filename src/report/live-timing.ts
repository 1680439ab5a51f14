// What a live run's report says about the machine it ran on: how long the synced clocks held, whether free
// clocks lost wire time or fired timers later than the PFC slack, work requests that started late, and
// where synced clocks had to bet (a neighbour trusted past the grace, a frame without its stamp).

import { readCounter } from "../device/counters.js";
import { PortCounter } from "../device/l2/port-counters.js";
import { formatDuration } from "../device/units.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import { NicCounter } from "../nic/counters.js";
import { SwitchCounter } from "../switch/counter-defs.js";

export interface LiveTiming {
  readonly clock: "synced" | "free";
  /** How much longer than real time / dilation the run's emulated time took (synced clocks waiting), ns. */
  readonly heldNs: number;
  /** Emulated time per (real time / dilation) over the run: 1 kept pace, 0.5 ran at half speed. */
  readonly pace: number;
  /** The most transmit time one port lost to its process's lateness, ns. */
  readonly worstTxStalledNs: number;
  /**
   * Lossless drops of frames a punctual upstream would not have sent (free clocks: `dropped_lossless_late`),
   * counted apart from the network's drops in `summary.drops`.
   */
  readonly lateLosslessDrops: number;
  /**
   * Work requests that reached their NIC after the time they were to start at (`posts_late`), and the
   * latest of them, ns: a start the simulator would have made on time (a dependent flow waits for the
   * supervisor to hear of its predecessor's completion; any flow, on a very busy machine).
   */
  readonly lateStarts: number;
  readonly worstLateStartNs: number;
  /**
   * Synced clocks: times during the run a neighbour with work stayed silent past the grace period and was
   * taken to be where the grace put it (a bet: a frame may then arrive in its receiver's past), and frames
   * read without their arrival stamp (taken when read). Either can make the run differ from the simulator's.
   */
  readonly graceExceeded: number;
  readonly unstamped: number;
  /**
   * Stamped frames a device was handed after their emulated arrival time (they arrived in its past), the
   * worst by; a frame nobody stamped (a host kernel's) counts in `unstamped` instead.
   */
  readonly framesLate: number;
  readonly framesLateMaxNs: number;
  /** Whether the figures depend on the machine rather than only on the configured network. */
  readonly machineLimited: boolean;
  readonly why: string;
}

/** What synced clocks report about their own exactness over a run (health.sync deltas, summed). */
export interface SyncExactness {
  readonly graceExceeded: number;
  readonly unstamped: number;
  /** Frames handed to a device after their emulated arrival time, and the worst lateness, ns. */
  readonly framesLate?: number;
  readonly framesLateMaxNs?: number;
}

/** What a device's health says of late frames, over its whole life (protocol.ts Health). */
export interface LateFramesView {
  readonly node: string;
  readonly health?: { readonly framesLate?: number; readonly framesLateMaxNs?: number } | null;
}

/**
 * Late frames during a run, from the devices' health before and after it: how many, and the worst
 * lateness among the devices that had one during the run. A device only keeps its lifetime worst, so a
 * device with no late frame in the run does not contribute its worst (a bring-up frame's, before the
 * scenario's time 0: one run reported a 14 ns late ACK as "the latest by 12.96 µs", another device's
 * bring-up ARP); one late both before and during the run still reports the larger of the two.
 */
export function lateFramesDuring(
  before: readonly LateFramesView[],
  after: readonly LateFramesView[],
): { framesLate: number; framesLateMaxNs: number } {
  let framesLate = 0;
  let framesLateMaxNs = 0;
  for (const d of after) {
    const was = before.find((b) => b.node === d.node)?.health?.framesLate ?? 0;
    const n = (d.health?.framesLate ?? 0) - was;
    if (n <= 0) continue;
    framesLate += n;
    framesLateMaxNs = Math.max(framesLateMaxNs, d.health?.framesLateMaxNs ?? 0);
  }
  return { framesLate, framesLateMaxNs };
}

/**
 * Synced clocks wait for late processes, so their figures are the network's; free-running ones that lost
 * more than 1 % of the run's wire time on a port, or fired a timer more than the PFC headroom's live slack
 * late, report the machine as much as the network.
 */
export function liveTiming(
  clock: "synced" | "free",
  durationNs: number,
  heldNs: number,
  stats: readonly AnyDeviceStats[],
  worstTimerLateNs: number,
  slackNs: number,
  exactness: SyncExactness = { graceExceeded: 0, unstamped: 0 },
): LiveTiming {
  let worst = 0;
  for (const s of stats)
    for (const p of s.ports) worst = Math.max(worst, readCounter(p.counters, PortCounter.txStalled));
  // Emulated time per advance of the dilated real clock: the run's emulated time plus what the clocks held.
  // (Not realNs / dilation: with `--dilation auto` the dilation changes during the run.)
  const pace = durationNs + heldNs > 0 ? durationNs / (durationNs + heldNs) : 1;
  const stalled = worst > 0.01 * durationNs;
  const late = worstTimerLateNs > slackNs;
  let lateDrops = 0;
  for (const s of stats)
    if (s.kind === "switch") lateDrops += readCounter(s.counters, SwitchCounter.droppedLosslessLate);
  const machineLimited = clock === "free" && (stalled || late || lateDrops > 0);
  let lateStarts = 0;
  let worstLateStart = 0;
  for (const s of stats) {
    if (s.kind !== "nic") continue;
    lateStarts += readCounter(s.counters, NicCounter.postsLate);
    worstLateStart = Math.max(worstLateStart, readCounter(s.counters, NicCounter.postLateMaxNs));
  }
  const causes = [
    stalled ? `a port lost ${formatDuration(worst)} of wire time` : "",
    late ? `a timer fired ${formatDuration(worstTimerLateNs)} late (slack ${formatDuration(slackNs)})` : "",
    lateDrops > 0
      ? `${lateDrops} lossless frames sent past a pause were dropped (dropped_lossless_late)`
      : "",
  ].filter((c) => c !== "");
  const bets = [
    exactness.graceExceeded > 0
      ? `${exactness.graceExceeded} times a neighbour stayed silent past the grace period and was trusted`
      : "",
    exactness.unstamped > 0 ? `${exactness.unstamped} frames were read without their arrival stamp` : "",
    (exactness.framesLate ?? 0) > 0
      ? `${exactness.framesLate} frames reached a device after their emulated arrival time (the latest by ${formatDuration(exactness.framesLateMaxNs ?? 0)})`
      : "",
  ].filter((c) => c !== "");
  const clocks =
    clock === "synced"
      ? `synced clocks: late processes were waited for (${formatDuration(heldNs)} in all), not run past${
          bets.length > 0
            ? `, except that ${bets.join(" and ")} (the run may differ from the simulator's there)`
            : ""
        }`
      : machineLimited
        ? `free clocks: ${causes.join(" and ")}`
        : "free clocks: no port lost wire time and no timer was later than the slack";
  const starts =
    lateStarts > 0
      ? `; ${lateStarts} work requests reached their NIC after their start time (the latest by ${formatDuration(worstLateStart)}) and started then`
      : "";
  return {
    clock,
    heldNs,
    pace,
    worstTxStalledNs: worst,
    lateLosslessDrops: lateDrops,
    lateStarts,
    worstLateStartNs: worstLateStart,
    graceExceeded: exactness.graceExceeded,
    unstamped: exactness.unstamped,
    framesLate: exactness.framesLate ?? 0,
    framesLateMaxNs: exactness.framesLateMaxNs ?? 0,
    machineLimited,
    why: clocks + starts,
  };
}
