// The summary as people read it, in `rocelab run`'s one screen and the HTML report alike, so both say the
// same: how many flows completed and how many did not, goodput over every delivered byte, and FCT
// percentiles that show a lower bound as "≥" (an unfinished flow reached their rank) and "n/a" with no flow.

import { join } from "node:path";
import { formatDuration, formatRate, formatSize } from "../device/units.js";
import type { FctPercentiles } from "./flow-stats.js";
import type { Report, Summary } from "./report.js";

/** "12/16 completed, 4 unfinished when the run ended" or "16/16 completed" (and flows never due). */
export function flowsText(s: Summary): string {
  const notDue = s.flowsNotDue > 0 ? `, ${s.flowsNotDue} due after the end of the run (not counted)` : "";
  const due = s.flowsTotal - s.flowsNotDue;
  return `${s.flowsCompleted}/${due} completed${failedText(s)}${s.flowsUnfinished > 0 ? `, ${s.flowsUnfinished} unfinished when the run ended` : ""}${notDue}`;
}

/** ", 3 failed (retry_exceeded 2, flushed 1)", or nothing when no flow failed. */
export function failedText(s: Pick<Summary, "flowsFailed" | "flowsFailedBy">): string {
  if (!s.flowsFailed) return "";
  const by = Object.entries(s.flowsFailedBy ?? {}).map(([k, n]) => `${k} ${n}`);
  return `, ${s.flowsFailed} failed (${by.join(", ")})`;
}

/** Goodput and what it counts. */
export function goodputText(s: Summary): string {
  const rate = `${formatRate(s.goodputBps)}b/s`;
  if (s.flowsTotal === 0) return `${rate} (no flows)`;
  return s.flowsUnfinished + s.flowsFailed > 0
    ? `${rate} (${formatSize(s.deliveredBytes)} delivered, unfinished and failed flows' bytes included, up to the end of the run)`
    : rate;
}

/** One FCT percentile: "1.2 ms", "≥ 2 ms" (a lower bound) or "n/a" (no flow). */
export function fctValueText(fct: FctPercentiles | null, p: "p50" | "p99" | "p999"): string {
  if (fct === null) return "n/a";
  return `${fct.atLeast[p] ? "≥ " : ""}${formatDuration(fct[p])}`;
}

/** What the FCT percentiles stand for when they are not plain completion times; "" when they are. */
export function fctNote(s: Summary): string {
  if (s.fctNs === null) return "no flows";
  const unfinished = s.flowsUnfinished + s.flowsFailed;
  if (unfinished === 0) return "";
  const what = s.flowsFailed > 0 ? "unfinished or failed flow" : "unfinished flow";
  return `${unfinished} ${what}${unfinished === 1 ? "" : "s"} counted as at least their time to the end of the run`;
}

/** The one-screen summary `rocelab run` prints. */
export function formatSummary(r: Report, dir?: string): string {
  const s = r.summary;
  const note = fctNote(s);
  const lines = [
    `scenario ${r.scenario} (${r.runtime}${r.dilation ? `, dilation ${r.dilation}` : ""}, seed ${r.seed}) — ${formatDuration(r.durationNs)} emulated in ${(r.wallClockMs / 1000).toFixed(1)} s`,
    `topology ${r.topology.name}`,
    "",
    `  flows          ${flowsText(s)}, ${s.retransmits} retransmissions`,
    `  goodput        ${goodputText(s)}`,
    `  FCT            p50 ${fctValueText(s.fctNs, "p50")}   p99 ${fctValueText(s.fctNs, "p99")}   p99.9 ${fctValueText(s.fctNs, "p999")}${note ? `   (${note})` : ""}`,
    `  packet latency p50 ${formatDuration(s.latencyNs.p50)}   p99 ${formatDuration(s.latencyNs.p99)}   p99.9 ${formatDuration(s.latencyNs.p999)}`,
    `  queue peak     ${formatSize(s.queuePeakBytes)}`,
    `  PFC            ${s.pauseFramesTx} pause frames sent, ${formatDuration(s.pauseTimeNs)} paused (sum over queues)`,
    `  ECN            ${s.ecnMarked} packets marked CE`,
    `  CNP            ${s.cnpSent} sent (${Math.round(s.cnpPerSecond)}/s), ${s.cnpHandled} handled`,
    `  drops          lossless ${s.drops.lossless}, lossy ${s.drops.lossy}`,
  ];
  const lb = r.loadBalance;
  if (lb && lb.links > 0) {
    lines.push(
      `  load balance   max/mean ${lb.figure.toFixed(2)} over ${lb.links} fabric link directions (max ${(100 * lb.maxUtilisation).toFixed(0)} %, mean ${(100 * lb.meanUtilisation).toFixed(0)} %)`,
    );
  }
  if (r.live) {
    const l = r.live;
    lines.push(
      `  live timing    ${l.machineLimited ? "MACHINE-LIMITED: " : ""}${l.why}; pace ${l.pace.toFixed(2)} of real time / dilation`,
    );
  }
  if (dir)
    lines.push("", `report: ${join(dir, "report.json")} (time series: ${Object.values(r.files).join(", ")})`);
  return lines.join("\n");
}
