// docs/experiments/ai-ecn-model: every run's golden summary and flows (test/golden),
// re-run (see experiments.test.ts).
import t from "tap";
import { checkExperiment, experimentsUnder } from "../helpers/experiments.js";

const files = experimentsUnder("ai-ecn-model/");
t.ok(files.length > 0, `${files.length} experiments under ai-ecn-model/`);
for (const file of files) {
  t.test(`${file} reproduces its golden`, (t) => {
    checkExperiment(t, file);
    t.end();
  });
}
