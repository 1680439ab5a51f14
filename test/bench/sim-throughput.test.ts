// `npm run bench -- sim-throughput`'s sampling comparison: what it runs and what it leaves behind. Its
// figures are the benchmark's to print; the test only checks that the comparison is the one it says.
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import t from "tap";
import { samplingCost } from "../../scripts/bench/sim-throughput.js";

t.test("sampling cost: the scenario's own interval against one sample per run, alternating", (t) => {
  const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith("rocelab-sampling-")));
  const cost = samplingCost("docs/experiments/incast-pfc.yaml", 2);
  t.equal(cost.sampleNs, 2000, "incast-pfc.yaml samples every 2 µs");
  t.equal(cost.sampled.length, 2, "one sampled run per pair, the warm-up pair left out");
  t.equal(cost.unsampled.length, 2, "one unsampled run per pair");
  for (const ms of [...cost.sampled, ...cost.unsampled]) t.ok(ms > 0, `a run took CPU (${ms} ms)`);
  const left = readdirSync(tmpdir()).filter((f) => f.startsWith("rocelab-sampling-") && !before.has(f));
  t.same(left, [], "the reports' scratch directory is removed");
  t.end();
});
