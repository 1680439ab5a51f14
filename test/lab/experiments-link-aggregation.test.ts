// docs/experiments/link-aggregation: every run's golden summary and flows (test/golden), re-run (see
// experiments.test.ts); and the failure experiment's verdict re-judged over seeds with compare's own
// statistics (the page uses ten seeds, this three), so a change that reverses or blurs it fails here even
// when every golden is regenerated.
import { join } from "node:path";
import t from "tap";
import { runComparison } from "../../src/run/compare/compare.js";
import { planJobs, type Variant } from "../../src/run/compare/variants.js";
import { checkExperiment, experimentsUnder } from "../helpers/experiments.js";

const files = experimentsUnder("link-aggregation/");
t.ok(files.length >= 7, `${files.length} experiments under link-aggregation/`);
for (const file of files) {
  t.test(`${file} reproduces its golden`, (t) => {
    checkExperiment(t, file);
    t.end();
  });
}

t.test("under member failure and recovery LBN beats hashing on p99 FCT, paired over seeds", async (t) => {
  const dir = join("docs", "experiments", "link-aggregation");
  const variants: Variant[] = ["hash", "lbn"].map((v) => ({
    label: v,
    file: join(dir, `fail-${v}.yaml`),
  }));
  const jobs = planJobs(variants, { seeds: [1, 2, 3], jitterNs: 1000, varyEcmp: true }, {});
  const out = await runComparison(jobs, 1);
  const unfinished = out.metrics.find((m) => m.id === "unfinished")!;
  t.strictSame(
    unfinished.variants.map((v) => v.values),
    [
      [0, 0, 0],
      [0, 0, 0],
    ],
    "every flow finishes in every run",
  );
  t.notOk(
    out.metrics.find((m) => m.id === "fct-p99")!.variants.some((v) => v.atLeast),
    "every flow completed: the p99s are exact, not lower bounds",
  );
  const p = out.metrics.find((m) => m.id === "fct-p99")!.pairs[0]!;
  t.match(p.text, /lbn lower than hash/, p.text);
  t.ok(p.beyondSeedScatter, p.text);
});
