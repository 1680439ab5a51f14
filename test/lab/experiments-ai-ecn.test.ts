// docs/experiments/ai-ecn: every run's golden summary and flows (test/golden),
// re-run (see experiments.test.ts).
import t from "tap";
import { checkExperiment, experimentsUnder } from "../helpers/experiments.js";

const files = experimentsUnder("ai-ecn/");
t.ok(files.length > 0, `${files.length} experiments under ai-ecn/`);
for (const file of files) {
  t.test(`${file} reproduces its golden`, (t) => {
    checkExperiment(t, file);
    t.end();
  });
}
