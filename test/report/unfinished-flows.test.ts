// Unfinished flows are counted in every statistic: FCT percentiles censored at the run's end and marked as
// lower bounds, goodput over every delivered byte, and a printed summary that never shows 0 for either.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { dueFlows, fctPercentiles, goodputSpanNs } from "../../src/report/flow-stats.js";
import { renderHtmlReport } from "../../src/report/html-report.js";
import { formatSummary } from "../../src/report/summary-text.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { timedFlow as flow } from "../helpers/flow-report.js";

t.test("every flow completed: plain nearest-rank percentiles, no lower bound", async (t) => {
  const flows = [1, 2, 3, 4].map((i) => flow(i, 0, i * 100));
  const p = fctPercentiles(flows, 10_000)!;
  t.same([p.p50, p.p99, p.p999], [200, 400, 400]);
  t.same(p.atLeast, { p50: false, p99: false, p999: false });
  t.equal(goodputSpanNs(flows, 10_000), 400, "first start to last completion");
});

t.test("an unfinished flow counts as at least its time to the run's end", async (t) => {
  // Four flows done in 100..400 ns; one started at 500 ns and still running at the end (1000 ns):
  // its FCT is at least 500 ns, above every completed one, so p99 is a lower bound and p50 is exact.
  const flows = [...[1, 2, 3, 4].map((i) => flow(i, 0, i * 100)), flow(5, 500, null)];
  const p = fctPercentiles(flows, 1000)!;
  t.equal(p.p50, 300, "p50 over all five flows, not the four that completed");
  t.equal(p.atLeast.p50, false, "no unfinished flow below the median's rank");
  t.equal(p.p99, 500);
  t.equal(p.atLeast.p99, true, "the unfinished flow is the p99: only a lower bound");
  t.equal(goodputSpanNs(flows, 1000), 1000, "goodput runs to the end of the run");
});

t.test("an unfinished flow censored below completed ones makes the higher ranks lower bounds", async (t) => {
  // Started late, so its elapsed time (100 ns) is below completed FCTs: every rank at or above it is a bound.
  const flows = [flow(1, 0, 50), flow(2, 0, 300), flow(3, 0, 400), flow(4, 900, null)];
  const p = fctPercentiles(flows, 1000)!;
  t.equal(p.p50, 100);
  t.equal(p.atLeast.p50, true);
  t.equal(p.atLeast.p99, true);
});

t.test("no flows: no percentiles (null), never 0", async (t) => {
  t.equal(fctPercentiles([], 1000), null);
  t.equal(goodputSpanNs([], 1000), 0);
});

t.test("a simulated incast cut short: the summary counts the unfinished flows", async (t) => {
  const dir = t.testdir({});
  const file = join(dir, "incast.yaml");
  // 8 x 256 KB into h17 from 10 us; at 100 Gb/s the last byte cannot arrive before ~180 us: at 60 us every
  // flow is still running.
  writeFileSync(
    file,
    [
      "name: cut-short",
      `topology: ${resolve("docs/examples/incast-3leaf.yaml")}`,
      "duration: 60us",
      "sample: 20us",
      "timeline:",
      "  - at: 10us",
      "    start: { type: incast, name: burst, to: h17, from: 8, size: 256KB }",
    ].join("\n"),
  );
  const { report } = runScenarioSim(loadScenario(file));
  const s = report.summary;
  t.equal(s.flowsCompleted, 0);
  t.equal(s.flowsUnfinished, 8);
  t.ok(s.deliveredBytes > 100_000, `bytes delivered although no flow completed: ${s.deliveredBytes}`);
  t.ok(s.goodputBps > 10e9, `goodput from delivered bytes: ${(s.goodputBps / 1e9).toFixed(1)} Gb/s`);
  t.ok(s.fctNs !== null && s.fctNs.p99 >= 50_000 && s.fctNs.atLeast.p99, "p99 ≥ 50 µs, a lower bound");
  const text = formatSummary(report);
  t.match(text, /0\/8 completed, 8 unfinished when the run ended/);
  t.match(text, /FCT {12}p50 ≥ /, "FCT shown as a lower bound");
  t.notMatch(text, /p50 0ns|p99 0ns|goodput {8}0b\/s/, "no 0 standing for 'no data'");
  t.match(text, /8 unfinished flows counted as at least their time to the end of the run/);
  const html = renderHtmlReport({ report, plots: [], skipped: [], config: [], findings: null });
  t.match(html, /0\/8 completed, 8 unfinished/);
  t.match(html, /≥ /, "the HTML summary shows the same lower bounds");
  t.notMatch(html, />0b\/s</);
});

t.test("a flow due after the end of the run is not unfinished: it is in no statistic", async (t) => {
  // A later round of a workload cut short: starts at 2000 ns, the run ends at 1000 ns.
  const flows = [flow(1, 0, 100), flow(2, 0, 200), flow(3, 2000, null)];
  const due = dueFlows(flows, 1000);
  t.same(
    due.map((f) => f.id),
    [1, 2],
  );
  const p = fctPercentiles(due, 1000)!;
  t.equal(p.p99, 200);
  t.equal(p.atLeast.p99, false, "no lower bound from a flow that never started");
});
