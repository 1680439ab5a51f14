// The verdicts of docs/path-navigation.md, checked as verdicts: over 10 seeds (the page's N), the paired 95 %
// interval of the difference must exclude 0 in the direction the page states, with every flow counted. Not a
// snapshot: any change that moves a difference inside the seed scatter fails here, whatever the numbers.
import { resolve } from "node:path";
import t from "tap";
import { runComparison } from "../../src/run/compare/compare.js";
import { planJobs, type Variant } from "../../src/run/compare/variants.js";

const DIR = resolve("docs/experiments/path-navigation");
const SEEDS = { seeds: Array.from({ length: 10 }, (_, i) => i + 1), jitterNs: 1000, varyEcmp: true };
const variant = (name: string): Variant => ({ label: name, file: resolve(DIR, `${name}.yaml`) });

t.test("permutation: host mode beats ECMP on FCT p99 and balance, beyond the seed scatter", async (t) => {
  const out = await runComparison(planJobs([variant("perm-ecmp"), variant("perm-host")], SEEDS, {}), 2);
  const unfinished = out.metrics.find((m) => m.id === "unfinished")!;
  t.ok(
    unfinished.variants.every((v) => v.values.every((x) => x === 0)),
    "every flow finished",
  );
  for (const id of ["fct-p99", "load-balance"]) {
    const pair = out.metrics.find((m) => m.id === id)!.pairs[0]!;
    t.equal(pair.direction, -1, pair.text);
    t.ok(pair.difference.hi < 0, `paired interval below 0: ${pair.text}`);
    t.ok(pair.beyondSeedScatter, pair.text);
  }
});

t.test(
  "failure with the switch's default write costs: host mode's FCT p99 lower than network mode's",
  async (t) => {
    const jobs = planJobs([variant("fail-host"), variant("fail-network")], SEEDS, {}, 3_000_000);
    const out = await runComparison(jobs, 2);
    const pair = out.metrics.find((m) => m.id === "fct-p99")!.pairs[0]!;
    t.equal(pair.a, "fail-host");
    t.equal(pair.direction, 1, pair.text);
    t.ok(pair.difference.lo > 0, `network − host above 0: ${pair.text}`);
  },
);
