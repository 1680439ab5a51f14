// The report page's flow table: each flow's status (completed, failed with its error, unfinished, not due),
// failures first, values escaped, and a note when the table is cut short.

import t from "tap";
import type { FlowReport } from "../../src/lab/flow-report.js";
import { FLOW_ROWS, flowStatus, flowsSection, flowTableOrder } from "../../src/report/html-flows.js";
import { escapeHtml } from "../../src/report/html-report.js";
import { flowReport } from "../helpers/flow-report.js";

const RUN_END = 1_000_000;

const flow = (id: number, o: Partial<FlowReport>) => flowReport(id, { qp: 0x100, bytes: 1 << 20, ...o });
const done = (id: number) =>
  flow(id, { outcome: "completed", endNs: 90_000, fctNs: 90_000, goodputBps: 93e9 });

t.test("status words: completed, failed with its error, unfinished, not due", (t) => {
  t.equal(flowStatus(done(1), RUN_END), "completed");
  t.equal(
    flowStatus(flow(2, { outcome: "failed", error: "retry_exceeded", endNs: 5 }), RUN_END),
    "failed: retry_exceeded",
  );
  t.equal(flowStatus(flow(3, {}), RUN_END), "unfinished");
  t.equal(flowStatus(flow(4, { startNs: RUN_END + 1 }), RUN_END), "not due");
  t.end();
});

t.test("the table: failed first, then unfinished, then completed; every status on its row", (t) => {
  const flows = [
    done(1),
    flow(2, { outcome: "failed", error: "flushed", endNs: 500 }),
    flow(3, {}),
    flow(4, { outcome: "failed", error: "retry_exceeded", endNs: 400, workload: "<a&b>" }),
    { ...done(5), reconnects: 2, qp: 0x105 },
  ];
  t.same(
    flowTableOrder(flows).map((f) => f.id),
    [2, 4, 3, 1, 5],
  );
  const html = flowsSection(flows, RUN_END, escapeHtml);
  const rows = html.split("\n").filter((l) => l.startsWith("<tr><td"));
  t.equal(rows.length, 5, "one row per flow");
  t.match(rows[0]!, /<td class="error">failed: flushed<\/td>/);
  t.match(rows[1]!, /<td class="error">failed: retry_exceeded<\/td>/);
  t.match(rows[1]!, /&lt;a&amp;b&gt;/, "escaped");
  t.match(rows[2]!, /<td class="warning">unfinished<\/td>/);
  t.match(rows[3]!, /<td class="">completed<\/td>/);
  t.match(
    rows[4]!,
    /<td>0x105<\/td>.*<td class="n">2<\/td><td class="">completed/,
    "the QP it completed on, reconnects",
  );
  t.notMatch(html, /more flows/);
  t.end();
});

t.test("a long run: FLOW_ROWS rows, the failures among them, the rest counted", (t) => {
  const flows = Array.from({ length: FLOW_ROWS + 20 }, (_, i) => done(i + 1));
  flows.push(flow(FLOW_ROWS + 21, { outcome: "failed", error: "rnr_retry_exceeded", endNs: 7 }));
  const html = flowsSection(flows, RUN_END, escapeHtml);
  t.equal(html.split("\n").filter((l) => l.startsWith("<tr><td")).length, FLOW_ROWS);
  t.match(html, /failed: rnr_retry_exceeded/, "the failure is shown although it came last");
  t.match(html, /21 more flows in <a href="report.json">/);
  t.equal(flowsSection([], RUN_END, escapeHtml), "<p>No flows: the scenario started no workload.</p>");
  t.end();
});
