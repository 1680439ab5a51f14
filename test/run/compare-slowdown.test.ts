// FCT slowdown by flow size in `rocelab compare`: the ideal FCT of a flow alone on an idle path (HPCC's
// standalone FCT, report/ideal-fct.ts) checked against a hand computation and against the simulator; the
// buckets; an unfinished flow counted in its bucket as a lower bound, never dropped; the analysis, the
// text and the chart of a comparison.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import type { FlowReport } from "../../src/lab/flow-report.js";
import { flowIdealFctNs, idealFctNs, idealPaths, messageWireBytes } from "../../src/report/ideal-fct.js";
import { analyse, cellText } from "../../src/run/compare/analysis.js";
import { runComparison } from "../../src/run/compare/compare.js";
import { slowdownSpec } from "../../src/run/compare/compare-plot.js";
import { formatComparison } from "../../src/run/compare/compare-text.js";
import { measure } from "../../src/run/compare/metrics.js";
import {
  BucketError,
  bucketLabel,
  bucketsOf,
  parseBuckets,
  slowdownBucket,
  slowdownValues,
  WEBSEARCH_BUCKETS,
} from "../../src/run/compare/slowdown.js";
import { planJobs } from "../../src/run/compare/variants.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { resolveTopology } from "../../src/scenario/topology.js";
import { timedFlow } from "../helpers/flow-report.js";
import { PAIR_TOPOLOGY } from "../helpers/pair-scenario.js";

const pair = () => resolveTopology(PAIR_TOPOLOGY as never, "test", null);

t.test("the ideal FCT of a 100 KB WRITE over a 2-hop path, by hand", (t) => {
  // h1 - sw - h2: two 100 Gb/s links of 1 µs, RoCE MTU 4096.
  const path = idealPaths(pair())("h1", "h2")!;
  t.same(path, { hops: 2, delayNs: 2000, bottleneckBps: 100e9, txDelayNs: 2 * 327.68 }, "the path");
  // 100,000 bytes: 24 packets of 4,096 and one of 1,696. Headers: Ethernet 14, IPv4 20, UDP 8, BTH 12,
  // ICRC 4 = 58, and on the wire FCS 4 + preamble and gap 20: a full packet is 4,178 bytes, the first
  // with its RETH (16) 4,194, the last 1,778.
  t.equal(messageWireBytes(100_000, "write", 4096), 4194 + 23 * 4178 + 1778);
  // Base RTT 2 × 2 µs + 2 × 327.68 ns; 102,066 bytes at 100 Gb/s: 8,165.28 ns.
  t.equal(idealFctNs(path, 100_000, "write", 4096), 4000 + 655.36 + 8165.28);
  t.equal(messageWireBytes(1000, "send", 4096), 58 + 1000 + 24, "one SEND packet: no RETH");
  t.equal(messageWireBytes(1, "send", 4096), 58 + 1 + 3 + 24, "a 1-byte packet: padded to 4 bytes");
  t.equal(idealPaths(pair())("h1", "h1"), null, "no path to itself");
  t.end();
});

t.test(
  "a flow alone on an idle path finishes within one packet time below its ideal FCT, never above",
  (t) => {
    // HPCC's base RTT has a full packet serialised on every link, the first included, where the message's own
    // serialisation already is: alone, a flow can beat it by up to one packet time (4,096 bytes at 100 Gb/s,
    // 328 ns), which the floor of 1 absorbs as in HPCC's analysis.
    for (const size of ["8KB", "100KB", "2MB"]) {
      const sc = resolveScenario(
        scenarioFile.parse({
          name: "alone",
          seed: 1,
          topology: PAIR_TOPOLOGY,
          duration: "1ms",
          timeline: [{ at: "0ns", start: { type: "flow", from: "h1", to: "h2", size } }],
        }),
        "alone",
        null,
      );
      const { report } = runScenarioSim(sc);
      const f = report.flows[0]!;
      const ideal = flowIdealFctNs(sc.topology)(f)!;
      t.ok(
        f.fctNs! >= ideal - 330 && f.fctNs! <= ideal * 1.03,
        `${size}: FCT ${f.fctNs} ns against ideal ${ideal.toFixed(0)} ns (${(f.fctNs! / ideal).toFixed(4)}×)`,
      );
    }
    t.end();
  },
);

t.test("buckets: the web-search 5 % bins, custom ones, refusals", (t) => {
  t.equal(WEBSEARCH_BUCKETS.length, 20);
  t.same(WEBSEARCH_BUCKETS.slice(0, 4), [3333, 6667, 10_000, 20_000], "the CDF's 5, 10, 15, 20 % quantiles");
  t.equal(WEBSEARCH_BUCKETS[19], 30_000_000);
  t.equal(parseBuckets("websearch"), WEBSEARCH_BUCKETS);
  t.equal(parseBuckets("none"), null);
  t.same(parseBuckets("10KB, 100KB,1MB"), [10_000, 100_000, 1_000_000]);
  t.throws(() => parseBuckets("10KB,abc"), BucketError);
  t.throws(() => parseBuckets("100KB,10KB"), /must ascend/);
  t.same(
    bucketsOf([10_000, 100_000]).map(bucketLabel),
    ["≤ 10KB", "10KB–100KB", "> 100KB"],
    "the last edge closes a bucket; larger flows form their own",
  );
  t.end();
});

function flow(id: number, bytes: number, startNs: number, fctNs: number | null): FlowReport {
  return timedFlow(id, startNs, fctNs, { qp: id, bytes });
}

t.test("an unfinished flow counts in its bucket as at least its time to the end", (t) => {
  const ideal = () => 10_000; // 10 µs for every flow, to read the slowdowns off easily
  const flows = [
    flow(1, 5_000, 0, 20_000), // 2×
    flow(2, 5_000, 0, 30_000), // 3×
    flow(3, 50_000, 0, 40_000), // 4×
    flow(4, 50_000, 10_000, null), // still running at 100 µs: ≥ 9×
    flow(5, 50_000, 0, 5_000), // faster than ideal: 1 (HPCC's floor)
    flow(6, 50_000, 200_000, null), // due after the end: never part of the run
  ];
  const v = Object.fromEntries(slowdownValues(flows, 100_000, ideal, [10_000, 100_000]));
  const id = (lo: number, hi: number | string, s: string) => `slowdown:${lo}:${hi}:${s}`;
  t.same(v[id(0, 10_000, "p50")], { value: 2, atLeast: false, n: 2 });
  t.same(v[id(0, 10_000, "p99")], { value: 3, atLeast: false, n: 2 });
  t.same(
    v[id(10_000, 100_000, "p50")],
    { value: 4, atLeast: false, n: 3 },
    "ranks 1, 4, ≥9: the median is exact",
  );
  t.same(
    v[id(10_000, 100_000, "p99")],
    { value: 9, atLeast: true, n: 3 },
    "the p99 is the unfinished flow's ≥ 9",
  );
  t.equal(v[id(100_000, "inf", "p50")], null, "no flow above 100 KB");
  t.same(slowdownBucket(id(10_000, 100_000, "p99")), { bucket: { lo: 10_000, hi: 100_000 }, stat: "p99" });

  // Over seeds: the lower bound stays a lower bound in the analysis and the table.
  const run = (variant: string, seed: number, extra: number) => ({
    variant,
    seed,
    values: Object.fromEntries(
      slowdownValues(
        [...flows.slice(0, 3), flow(4, 50_000, 10_000, variant === "a" ? null : 50_000 + extra)],
        100_000,
        ideal,
        [10_000, 100_000],
      ),
    ),
  });
  const runs = [run("a", 1, 0), run("a", 2, 0), run("b", 1, 0), run("b", 2, 1000)];
  const metrics = analyse(["a", "b"], runs);
  const p99 = metrics.find((m) => m.id === id(10_000, 100_000, "p99"))!;
  t.equal(cellText(p99, p99.variants[0]!), "≥ 9.00", "a's p99 shown as ≥");
  t.equal(p99.variants[0]!.flows, 2, "flows per run in the bucket");
  t.equal(p99.pairs[0]!.direction, -1, p99.pairs[0]!.text);
  t.match(p99.pairs[0]!.text, /b lower than a/, "b, exact, is lower than a's lower bound");
  t.notOk(
    metrics.some((m) => m.id.startsWith("slowdown:100000:inf")),
    "a bucket without flows is not compared",
  );
  t.end();
});

t.test("rocelab compare: slowdown per bucket over seeds, in the text and the chart", async (t) => {
  const dir = t.testdir({});
  const file = (name: string, size: string) => {
    const f = join(dir, `${name}.yaml`);
    writeFileSync(
      f,
      JSON.stringify({
        name,
        topology: resolve("docs/examples/incast-3leaf.yaml"),
        duration: "300us",
        timeline: [
          { at: "10us", start: { type: "incast", name: "mice", to: "h17", from: 8, size: "8KB" } },
          { at: "10us", start: { type: "incast", name: "elephants", to: "h17", from: 4, size } },
        ],
      }),
    );
    return f;
  };
  // The elephants' size decides how long the mice wait behind them at h17's port.
  const variants = [
    { label: "light", file: file("light", "32KB") },
    { label: "heavy", file: file("heavy", "512KB") },
  ];
  const runs = await runComparison(
    planJobs(variants, { seeds: [1, 2, 3], jitterNs: 1000, varyEcmp: true }, { buckets: [10_000, 100_000] }),
    1,
  );
  const m = (id: string) => runs.metrics.find((x) => x.id === id);
  const mice = m("slowdown:0:10000:p99")!;
  t.ok(mice, "the mice's bucket is compared");
  t.ok(
    mice.variants.every((v) => v.interval.mean >= 1),
    "slowdowns are at least 1",
  );
  t.equal(mice.pairs[0]!.direction, 1, `heavier elephants slow the mice: ${mice.pairs[0]!.text}`);
  t.notOk(m("slowdown:100000:inf:p50"), "512 KB flows only in the heavy variant: nothing to pair them with");
  t.ok(
    runs.runs.filter((r) => r.variant === "heavy").every((r) => r.values["slowdown:100000:inf:p50"]?.n === 4),
    "but measured in every heavy run (4 elephants)",
  );
  const text = formatComparison(
    runs.metrics,
    { seeds: [1, 2, 3], jitterNs: 1000, varyEcmp: true },
    variants,
    "sim",
    runs.runs,
  );
  t.match(text, /FCT slowdown median by flow size/);
  t.match(text, /≤ 10KB\s+8\.0/, "8 mice per run in the first bucket");
  t.match(
    text,
    /not compared \(no flow of that size in some run\): .*> 100KB/,
    "the top bucket only the heavy variant has is named, not silently dropped",
  );
  const spec = slowdownSpec(runs.metrics, 3);
  t.ok(spec, "a slowdown chart");
  t.match(JSON.stringify(spec), /"y2":\{"field":"hi"\}/, "error bars from the interval");
  // measure without buckets (or without the topology) adds none.
  const report = runScenarioSim(
    resolveScenario(
      scenarioFile.parse({
        name: "one",
        seed: 1,
        topology: PAIR_TOPOLOGY,
        duration: "50us",
        timeline: [{ at: "0ns", start: { type: "flow", from: "h1", to: "h2", size: "8KB" } }],
      }),
      "one",
      null,
    ),
  ).report;
  t.notOk(
    Object.keys(measure(report, {}, pair())).some((id) => id.startsWith("slowdown:")),
    "no buckets: no slowdown",
  );
});
