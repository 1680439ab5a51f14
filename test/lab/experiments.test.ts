// No figure in the docs can drift from the code: every scenario under docs/experiments has a golden under
// test/golden (its summary and flows) that a test re-runs (this file: the incasts; experiments-*.test.ts: the
// rest, one file each so tap runs them in parallel).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import t from "tap";
import {
  BENCHMARK_ONLY,
  checkExperiment,
  EXPERIMENTS,
  EXPERIMENTS_DIR,
  LIVE_ONLY,
} from "../helpers/experiments.js";

function scenarios(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? scenarios(join(dir, e.name)) : e.name.endsWith(".yaml") ? [join(dir, e.name)] : [],
  );
}

t.test("every scenario in docs/experiments has a golden that is checked", (t) => {
  // A file with `nodes` at the top is an experiment's fabric (a topology), not a scenario.
  const files = scenarios(EXPERIMENTS_DIR).filter((f) => !/^nodes:/m.test(readFileSync(f, "utf8")));
  t.ok(files.length > 60, `${files.length} scenarios`);
  for (const file of files.map((f) => relative(EXPERIMENTS_DIR, f))) {
    t.ok(file in EXPERIMENTS || LIVE_ONLY(file) || BENCHMARK_ONLY.has(file), file);
  }
  t.end();
});

for (const file of ["default-incast.yaml", "incast-pfc.yaml", "incast-no-pfc.yaml", "incast-dcqcn.yaml"]) {
  t.test(`${file} reproduces its golden`, (t) => {
    checkExperiment(t, file);
    t.end();
  });
}
