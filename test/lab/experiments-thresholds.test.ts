// docs/experiments/threshold-table: each preset's golden summary and flows (test/golden),
// re-run (see experiments.test.ts).
import t from "tap";
import { checkExperiment } from "../helpers/experiments.js";

for (const preset of ["aggressive", "balanced", "conservative"]) {
  t.test(`threshold-table/${preset} reproduces its golden`, (t) => {
    checkExperiment(t, `threshold-table/${preset}.yaml`);
    t.end();
  });
}
