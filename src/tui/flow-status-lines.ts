// The flows view's status mode (`v`): every flow a NIC completed, with how it ended — failed ones first,
// in red with their error — then a line per QP with messages still outstanding (unfinished). The flow
// ids are the report's; the times are emulated (flow-outcomes.ts).

import { type FlowOutcomes, flowOutcomes, outcomesText } from "./flow-outcomes.js";
import { formatBytes, formatEmulated, padLeft, padRight } from "./format.js";
import { pickFit, type Segment, seg, type ViewLines } from "./segments.js";
import type { DashboardState } from "./store.js";
import { Tone } from "./theme.js";

type Row =
  | { readonly kind: "ended"; readonly i: number }
  | { readonly kind: "unfinished"; readonly i: number };

function rowsOf(o: FlowOutcomes): Row[] {
  return [
    ...o.ended.map((_, i) => ({ kind: "ended" as const, i })),
    ...o.unfinished.map((_, i) => ({ kind: "unfinished" as const, i })),
  ];
}

const HEADER = ` ${padLeft("FLOW", 6)} ${padRight("HOST", 5)} ${padRight("QP", 4)} ${padRight("OP", 5)} ${padLeft("SIZE", 8)} ${padLeft("FCT / END", 11)}  STATUS`;

function line(o: FlowOutcomes, row: Row): Segment[] {
  if (row.kind === "unfinished") {
    const u = o.unfinished[row.i]!;
    const lead = ` ${padLeft("-", 6)} ${padRight(u.host, 5)} ${padRight(String(u.qpn), 4)} `;
    return [
      seg(lead),
      seg(`unfinished: ${u.messages} message${u.messages === 1 ? "" : "s"} outstanding`, Tone.Warn),
    ];
  }
  const { host, record: r } = o.ended[row.i]!;
  const ok = r.status === "success";
  const lead = ` ${padLeft(r.flowId, 6)} ${padRight(host, 5)} ${padRight(String(r.qpn), 4)} ${padRight(r.op, 5)} ${padLeft(formatBytes(r.bytes), 8)} `;
  // A completed flow shows its FCT, a failed one when it failed.
  const time = padLeft(ok ? formatEmulated(r.fctNs) : `@${formatEmulated(r.completedAt)}`, 11);
  return [
    seg(lead),
    seg(time, ok ? undefined : Tone.Dim),
    seg("  "),
    ok ? seg("completed", Tone.Good) : seg(`FAILED ${r.status}`, Tone.Bad),
  ];
}

/** The status mode's lines; `top` is the first row shown. */
export function flowStatusLines(
  state: DashboardState,
  top: number,
  width: number,
  height: number,
): ViewLines {
  const o = flowOutcomes(state.snapshot);
  const rows = rowsOf(o);
  const page = Math.max(1, height - 3);
  const first = Math.max(0, Math.min(top, rows.length - page));
  const shown =
    rows.length > page ? `   (${first + 1}-${Math.min(rows.length, first + page)} shown, ↑↓)` : "";
  const short = `${o.completed} completed${o.failed > 0 ? `, ${o.failed} FAILED` : ""}${o.unfinishedMessages > 0 ? `, ${o.unfinishedMessages} unfinished` : ""}`;
  const lines: Segment[][] = [
    pickFit(
      [
        [seg(`flows: ${outcomesText(o)}`), seg(shown, Tone.Dim), seg("   v: rates", Tone.Dim)],
        [seg(`flows: ${short}`), seg(shown, Tone.Dim), seg("   v: rates", Tone.Dim)],
        [seg(`flows: ${short}`), seg(shown, Tone.Dim)],
      ],
      width,
    ),
    [],
    [seg(HEADER, Tone.Heading)],
  ];
  if (rows.length === 0) lines.push([seg(" no flow has ended yet and none is outstanding", Tone.Dim)]);
  for (const r of rows.slice(first, first + page)) lines.push(line(o, r));
  return { lines: lines.slice(0, height), rows: rows.length, page };
}
