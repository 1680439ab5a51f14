// docs/experiments/cc-family: every run's golden summary and flows (test/golden),
// re-run (see experiments.test.ts).
import t from "tap";
import { checkExperiment, experimentsUnder } from "../helpers/experiments.js";

const files = experimentsUnder("cc-family/");
t.ok(files.length > 0, `${files.length} experiments under cc-family/`);
for (const file of files) {
  t.test(`${file} reproduces its golden`, (t) => {
    checkExperiment(t, file);
    t.end();
  });
}
