// docs/experiments/ai-ecn-model.md states verdicts over seeds: on the held-out incast8 workload the model
// mode is indistinguishable from local mode, and the aggressive preset gives mice (≤ 100 KB) a lower p99
// FCT than the model mode while sending more PFC pauses. Re-judged here with compare's own statistics
// over three seeds (the page uses ten; at three the mice p99 pair agrees in sign by ~100 µs but is not yet
// separated), so a change that reverses a verdict fails this test even when every golden is regenerated.
import { join } from "node:path";
import t from "tap";
import { runComparison } from "../../src/run/compare/compare.js";
import { planJobs, type Variant } from "../../src/run/compare/variants.js";

const dir = join("docs", "experiments", "ai-ecn-model");
const variants: Variant[] = ["aggressive", "local", "model"].map((v) => ({
  label: v,
  file: join(dir, `incast8-${v}.yaml`),
}));

t.test("incast8: model = local, aggressive lower mice p99 than model and more pauses", async (t) => {
  const jobs = planJobs(
    variants,
    { seeds: [1, 2, 3], jitterNs: 1000, varyEcmp: true },
    { smallBytes: 100_000 },
  );
  const out = await runComparison(jobs, 1);
  const pairOf = (id: string, a: string, b: string) =>
    out.metrics.find((m) => m.id === id)!.pairs.find((p) => p.a === a && p.b === b)!;
  const mice = out.metrics.find((m) => m.id === "small-fct-p99")!;
  t.notOk(
    mice.variants.some((v) => v.atLeast),
    "every mouse completed: the p99s are exact, not lower bounds",
  );
  // Ten seeds separate this pair (the page); three only agree on its sign.
  const vsAggressive = pairOf("small-fct-p99", "aggressive", "model");
  t.ok(vsAggressive.difference.mean > 50_000, `model − aggressive > 50 µs on average: ${vsAggressive.text}`);
  t.not(vsAggressive.direction, -1, "and never the other way round");
  const vsLocal = pairOf("small-fct-p99", "local", "model");
  t.equal(vsLocal.direction, 0, vsLocal.text);
  const pauses = pairOf("pause-frames", "aggressive", "model");
  t.equal(pauses.direction, -1, pauses.text);
});
