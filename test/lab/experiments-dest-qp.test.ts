// docs/experiments/dest-qp: every run's golden summary and flows (test/golden),
// re-run (see experiments.test.ts), and the verdict of the page over seeds.
import { join } from "node:path";
import t from "tap";
import { runComparison } from "../../src/run/compare/compare.js";
import { parseSweep, planJobs, type Variant } from "../../src/run/compare/variants.js";
import { checkExperiment, experimentsUnder } from "../helpers/experiments.js";

const files = experimentsUnder("dest-qp/");
t.ok(files.length > 0, `${files.length} experiments under dest-qp/`);
for (const file of files) {
  t.test(`${file} reproduces its golden`, (t) => {
    checkExperiment(t, file);
    t.end();
  });
}

// The verdict of docs/load-balancing.md, re-judged: with one source port for every QP, only Dest-QP
// hashing spreads a host pair's QPs, and it lowers p99 FCT beyond a change of seed; with per-QP ports it
// changes nothing measurable.
t.test("Dest-QP helps exactly when QPs share a source port", async (t) => {
  const sweep = parseSweep(
    "switches.ecmp.fields=[srcIp, dstIp, protocol, srcPort, dstPort],[srcIp, dstIp, protocol, srcPort, dstPort, destQp]",
  );
  const judge = async (mode: string) => {
    const file = join("docs", "experiments", "dest-qp", `${mode}.yaml`);
    const variants: Variant[] = sweep.map((v, i) => ({
      label: i === 0 ? "5-tuple" : "destQp",
      file,
      sweep: v,
    }));
    const jobs = planJobs(variants, { seeds: [1, 2, 3, 4, 5], jitterNs: 1000, varyEcmp: true }, {});
    const out = await runComparison(jobs, 1);
    return out.metrics.find((m) => m.id === "fct-p99")!.pairs[0]!;
  };
  const fixed = await judge("fixed");
  t.equal(fixed.direction, -1, fixed.text);
  t.ok(fixed.beyondSeedScatter, fixed.text);
  const perQp = await judge("per-qp");
  t.equal(perQp.direction, 0, perQp.text);
});
