// docs/experiments/ghost-latency: both runs' golden summaries and flows (test/golden),
// re-run (see experiments.test.ts).
import t from "tap";
import { checkExperiment } from "../helpers/experiments.js";

for (const run of ["bad", "fixed"]) {
  t.test(`ghost-latency/${run} reproduces its golden`, (t) => {
    checkExperiment(t, `ghost-latency/${run}.yaml`);
    t.end();
  });
}
