// The flows view shows how every flow ended: in rates mode a failed QP's state is ERROR and the summary
// counts the failed flows; in status mode (`v` twice) one line per flow, failed ones first with their
// error, and the QPs with messages still outstanding. Driven by a simulated lab where flows really fail.
import "./fixtures/force-colour.js";
import t from "tap";
import { formatDuration } from "../../src/device/units.js";
import type { LabSnapshot } from "../../src/lab/lab.js";
import { SimLab } from "../../src/lab/sim/sim-lab.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { flowOutcomes, outcomesText } from "../../src/tui/flow-outcomes.js";
import { INITIAL_UI } from "../../src/tui/ui-state.js";
import { dashboard, plainLines } from "./fixtures/dashboard.js";

/**
 * With retryCnt 0 and a 20 us timeout: h1 -> h8 completes, then h8's link goes down under h1 -> h8 and
 * h2 -> h8 (each fails retry_exceeded at its first timeout), while h3 -> h7 (100 MB) is still running.
 */
async function failing(): Promise<LabSnapshot> {
  const lab = new SimLab({ topology: defaultTopology(), seed: 1 });
  await lab.apply({
    kind: "set",
    change: { switches: [], nodes: {}, hosts: [{ transport: { rto: 20_000, retryCnt: 0 } }] },
  });
  await lab.apply({ kind: "incast", to: "h8", from: ["h1"], bytes: 100_000 });
  lab.step(100_000);
  // The incast starts first (a workload towards an unreachable host is refused), then its link goes down.
  await lab.apply({ kind: "incast", to: "h8", from: ["h1", "h2"], bytes: 1_000_000 });
  await lab.apply({ kind: "link", node: "h8", port: 1, up: false });
  await lab.apply({ kind: "incast", to: "h7", from: ["h3"], bytes: 100_000_000 });
  lab.step(200_000);
  const s = lab.snapshotNow();
  await lab.close();
  return { ...s, status: "running" };
}

t.test("flow outcomes from the NICs' completions", async (t) => {
  const o = flowOutcomes(await failing());
  t.equal(o.completed, 1);
  t.equal(o.failed, 2);
  t.same([...o.failedBy], [["retry_exceeded", 2]]);
  t.same(
    o.ended.map((r) => [r.host, r.record.status]),
    [
      ["h1", "retry_exceeded"],
      ["h2", "retry_exceeded"],
      ["h1", "success"],
    ],
    "failed first",
  );
  t.same(
    o.unfinished.map((u) => [u.host, u.messages]),
    [["h3", 1]],
    "h3's 100 MB is outstanding",
  );
  t.equal(outcomesText(o), "1 completed, 2 failed (retry_exceeded 2), 1 unfinished");
  t.end();
});

t.test(
  "on screen: ERROR and the failed count in rates mode, every flow's status in status mode",
  async (t) => {
    const snap = await failing();
    const d = await dashboard({
      columns: 120,
      rows: 30,
      snapshots: [snap],
      events: false,
      initialUi: { ...INITIAL_UI, tab: "flows" },
    });
    let screen = plainLines(d.ui.screen()).join("\n");
    t.match(screen, /2 flows FAILED/, "the summary says flows failed");
    t.match(screen, /h1\s+256\s+→h8.*ERROR/, "h1's QP is in the error state");
    t.match(screen, /h3\s+256\s+→h7.*sending/, "h3's is not");
    await d.ui.type("v");
    await d.ui.type("v");
    const lines = plainLines(d.ui.screen());
    screen = lines.join("\n");
    t.match(screen, /flows: 1 completed, 2 failed \(retry_exceeded 2\), 1 unfinished/);
    t.match(screen, /FLOW\s+HOST\s+QP\s+OP\s+SIZE\s+FCT \/ END\s+STATUS/);
    const rows = lines.filter((l) => /^\s+(\d+|-)\s+h\d/.test(l));
    t.equal(rows.length, 4, "three flows and one QP with work outstanding");
    t.match(rows[0]!, /h1\s+256\s+write\s+.*@.*FAILED retry_exceeded/);
    t.match(rows[1]!, /h2\s+256\s+write\s+.*FAILED retry_exceeded/);
    t.match(rows[2]!, /h1\s+256\s+write\s+100KB\s+\S+us\s+completed/);
    t.match(rows[3]!, /-\s+h3\s+256\s+unfinished: 1 message outstanding/);
    t.ok(Math.max(...lines.map((l) => [...l].length)) <= 120, "nothing wider than the screen");
    d.ui.unmount();
  },
);

t.test("rates mode: each QP's last flow, its FCT or FAILED, at 80 and 120 columns", async (t) => {
  // h4 -> h5 completes alone; in `failing()` h1's QP ended failed and h3's has not ended.
  const lab = new SimLab({ topology: defaultTopology(), seed: 1 });
  await lab.apply({ kind: "incast", to: "h5", from: ["h4"], bytes: 200_000 });
  lab.step(200_000);
  const done = { ...lab.snapshotNow(), status: "running" as const };
  await lab.close();
  const record = flowOutcomes(done).ended.find((r) => r.host === "h4")?.record;
  t.equal(record?.status, "success", "h4's flow completed");
  const fct = formatDuration(record?.fctNs ?? 0);
  t.ok((record?.fctNs ?? 0) > 16_000, `its FCT (${fct}) is at least 200KB at 100Gb/s`);
  for (const columns of [80, 120]) {
    const d = await dashboard({
      columns,
      rows: 24,
      snapshots: [done],
      events: false,
      initialUi: { ...INITIAL_UI, tab: "flows" },
    });
    const lines = plainLines(d.ui.screen());
    t.ok(
      Math.max(...lines.map((l) => [...l].length)) <= columns,
      `${columns}: nothing wider than the screen`,
    );
    t.match(lines.join("\n"), /HOST\s+QP\s+PEER\s+RATE.*\s+FCT\s+STATE\s*$/m, `${columns}: an FCT column`);
    t.match(
      lines.join("\n"),
      new RegExp(`^ h4\\s+\\d+\\s+→h5 .* ${fct.replace(".", "\\.")}\\s+done\\s*$`, "m"),
      `${columns}: h4's FCT`,
    );
    t.match(lines.join("\n"), /^ h5\s+\d+\s+←h4 .* -\s+\S+\s*$/m, `${columns}: the receiver has none`);
    d.ui.unmount();
    const f = await dashboard({
      columns,
      rows: 24,
      snapshots: [await failing()],
      events: false,
      initialUi: { ...INITIAL_UI, tab: "flows" },
    });
    const screen = plainLines(f.ui.screen()).join("\n");
    t.match(screen, /^ h1\s+256\s+→h8 .* FAILED\s+\*?ERROR/m, `${columns}: h1's last flow failed`);
    t.match(screen, /^ h3\s+256\s+→h7 .* -\s+sending/m, `${columns}: h3's has not ended`);
    f.ui.unmount();
  }
});
