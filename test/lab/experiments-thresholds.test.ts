// docs/experiments/threshold-table: each preset's committed summary and flows, re-run (see experiments.test.ts).
import t from "tap";
import { checkExperiment } from "../helpers/experiments.js";

for (const preset of ["aggressive", "balanced", "conservative"]) {
  t.test(`threshold-table/${preset} reproduces its committed summary`, (t) => {
    checkExperiment(t, `threshold-table/${preset}.yaml`);
    t.end();
  });
}
