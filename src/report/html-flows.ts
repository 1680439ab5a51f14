// The report page's flow table: every flow with how it ended — completed (with its FCT), failed with the
// error its work completion carried (retry_exceeded, rnr_retry_exceeded, remote_access, invalid_request,
// flushed, stopped, ...), or unfinished when the run ended — so a failure is found on the page, not only
// in report.json. Failed and unfinished flows come first; a run with many flows shows the first
// FLOW_ROWS rows and says how many more report.json holds.

import { formatDuration, formatSize } from "../device/units.js";
import type { FlowReport } from "../lab/flow-report.js";

/** Rows the table shows at most. */
export const FLOW_ROWS = 500;

/** How a flow ended, in the table's words: "completed", "failed: <error>", "unfinished", "not due". */
export function flowStatus(f: FlowReport, runEndNs: number): string {
  if (f.outcome === "completed") return "completed";
  if (f.outcome === "failed") return `failed: ${f.error ?? "?"}`;
  return f.startNs < runEndNs ? "unfinished" : "not due";
}

const RANK = { failed: 0, unfinished: 1, completed: 2 } as const;

/** The flows in table order: failed, then unfinished, then completed; by id within each. */
export function flowTableOrder(flows: readonly FlowReport[]): FlowReport[] {
  return [...flows].sort((a, b) => RANK[a.outcome] - RANK[b.outcome] || a.id - b.id);
}

/** The flow table's HTML (`esc`: the page's HTML escaper). */
export function flowsSection(
  flows: readonly FlowReport[],
  runEndNs: number,
  esc: (s: string) => string,
): string {
  if (flows.length === 0) return "<p>No flows: the scenario started no workload.</p>";
  const shown = flowTableOrder(flows).slice(0, FLOW_ROWS);
  const cls = (f: FlowReport) =>
    f.outcome === "failed" ? "error" : f.outcome === "unfinished" ? "warning" : "";
  const cell = (v: string, numeric = false) => `<td${numeric ? ' class="n"' : ""}>${esc(v)}</td>`;
  const rows = shown
    .map((f) =>
      [
        "<tr>",
        cell(String(f.id), true),
        cell(f.workload),
        cell(`${f.src} → ${f.dst}`),
        cell(f.op),
        cell(`0x${f.qp.toString(16)}`),
        cell(formatSize(f.bytes), true),
        cell(formatDuration(f.startNs), true),
        cell(f.fctNs === null ? "-" : formatDuration(f.fctNs), true),
        cell(String(f.retransmits), true),
        cell(f.reconnects === undefined ? "-" : String(f.reconnects), true),
        `<td class="${cls(f)}">${esc(flowStatus(f, runEndNs))}</td>`,
        "</tr>",
      ].join(""),
    )
    .join("\n");
  const more =
    flows.length > shown.length
      ? `<p class="info">${flows.length - shown.length} more flows in <a href="report.json">report.json</a>.</p>`
      : "";
  const head =
    "<tr><th>flow</th><th>workload</th><th>hosts</th><th>op</th><th>QP</th><th>size</th><th>start</th><th>FCT</th><th>retx</th><th>reconnects</th><th>status</th></tr>";
  return `<table>\n${head}\n${rows}\n</table>\n${more}`;
}
