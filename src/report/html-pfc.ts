// The report page's PFC table and its one-line verdict. The table has one row per port and priority that
// sent or received a pause (IEEE 802.1Qbb): XOFF frames each way, how long the peer held this port's
// egress and how long this port held its peer, each also as a share of the run, with the peer the link
// leads to — the per-port view the summary's one "time paused" sum cannot give. The verdict is the run in
// one sentence: lossless or not, how the flows ended, where PFC held traffic longest.

import { type CounterDef, readCounter } from "../device/counters.js";
import { PfcCounter } from "../device/l2/pfc-counters.js";
import { formatDuration } from "../device/units.js";
import { PRIORITIES } from "../wire/pfc.js";
import type { Report } from "./report.js";
import { fctValueText, flowsText } from "./summary-text.js";

/** Rows the table shows at most (report.json holds every port). */
export const PFC_ROWS = 40;

export interface PfcRow {
  /** "leaf2:eth5". */
  readonly port: string;
  /** "spine1:eth2", or "" when the report has no link table. */
  readonly peer: string;
  readonly priority: number;
  readonly xoffSent: number;
  readonly xoffReceived: number;
  /** Time the peer's XOFF held this port's egress (ns). */
  readonly pausedNs: number;
  /** Time this port's XOFF held its peer (ns). */
  readonly heldPeerNs: number;
}

function counter(table: Readonly<Record<string, number>>, def: CounterDef, priority: number): number {
  try {
    return readCounter(table, def, { priority });
  } catch {
    return 0; // a port without PFC counters (a report of an older format) paused nothing we can show
  }
}

/** Every (port, priority) with a pause either way, most paused first. */
export function pfcRows(r: Report): PfcRow[] {
  const peers = new Map((r.links ?? []).map((l) => [l.from, l.to]));
  const rows: PfcRow[] = [];
  for (const [device, d] of Object.entries(r.devices)) {
    for (const [port, table] of Object.entries(d.ports)) {
      for (let priority = 0; priority < PRIORITIES; priority++) {
        const row = {
          port: `${device}:${port}`,
          peer: peers.get(`${device}:${port}`) ?? "",
          priority,
          xoffSent: counter(table, PfcCounter.txPause, priority),
          xoffReceived: counter(table, PfcCounter.rxPause, priority),
          pausedNs: counter(table, PfcCounter.rxPauseDuration, priority),
          heldPeerNs: counter(table, PfcCounter.txPauseDuration, priority),
        };
        if (row.xoffSent + row.xoffReceived > 0) rows.push(row);
      }
    }
  }
  return rows.sort(
    (a, b) =>
      b.pausedNs - a.pausedNs ||
      b.heldPeerNs - a.heldPeerNs ||
      a.port.localeCompare(b.port, undefined, { numeric: true }),
  );
}

function share(ns: number, runNs: number): string {
  return runNs > 0 ? `${((100 * ns) / runNs).toFixed(1)} %` : "-";
}

/** The PFC section's HTML (`esc`: the page's HTML escaper). */
export function pfcSection(r: Report, esc: (s: string) => string): string {
  const rows = pfcRows(r);
  if (rows.length === 0) return "<p>No PFC pause frame was sent or received in this run.</p>";
  const body = rows
    .slice(0, PFC_ROWS)
    .map(
      (x) =>
        `<tr><td>${esc(x.port)}</td><td>${esc(x.peer || "-")}</td><td class="n">${x.priority}</td><td class="n">${x.xoffSent}</td><td class="n">${esc(formatDuration(x.heldPeerNs))}</td><td class="n">${share(x.heldPeerNs, r.durationNs)}</td><td class="n">${x.xoffReceived}</td><td class="n">${esc(formatDuration(x.pausedNs))}</td><td class="n">${share(x.pausedNs, r.durationNs)}</td></tr>`,
    )
    .join("\n");
  const more =
    rows.length > PFC_ROWS
      ? `<p class="info">${rows.length - PFC_ROWS} more ports and priorities paused: see report.json.</p>`
      : "";
  return `<p>Every port and priority that sent or received a PFC pause, the most paused first. <em>held peer</em>: time this port's XOFF kept the neighbour from sending; <em>paused</em>: time the neighbour's XOFF kept this port from sending (its egress queue waited). Shares are of the ${esc(formatDuration(r.durationNs))} run.</p>
<table><tr><th>port</th><th>link to</th><th>prio</th><th>XOFF sent</th><th>held peer</th><th>share</th><th>XOFF received</th><th>paused</th><th>share</th></tr>
${body}
</table>
${more}`;
}

/** The run in one sentence: lossless or not, how the flows ended, the FCT tail, where PFC held longest. */
export function verdict(r: Report): string {
  const s = r.summary;
  const parts: string[] = [];
  parts.push(
    s.drops.lossless > 0
      ? `NOT lossless: ${s.drops.lossless} frames dropped on lossless priorities`
      : `lossless (no lossless drop${s.drops.lossy > 0 ? `; ${s.drops.lossy} lossy drops` : ""})`,
  );
  const due = s.flowsTotal - s.flowsNotDue;
  if (due > 0) {
    const ok = s.flowsCompleted === due;
    parts.push(
      `${ok ? "every flow completed" : flowsText(s)}${s.fctNs ? `, FCT p99 ${fctValueText(s.fctNs, "p99")}` : ""}`,
    );
  } else parts.push("no flow was due");
  const worst = pfcRows(r)[0];
  if (worst === undefined || worst.pausedNs === 0) parts.push("PFC paused no queue");
  else
    parts.push(
      `PFC held ${worst.port} priority ${worst.priority} longest: ${formatDuration(worst.pausedNs)} (${share(worst.pausedNs, r.durationNs)} of the run)${worst.peer ? ` by ${worst.peer}` : ""}`,
    );
  return `${parts.join("; ")}.`;
}
