#!/usr/bin/env node
// Re-runs every simulator experiment that has a golden under test/golden/ (scripts/golden.mjs says what one
// holds) and compares the run with it: the summary, every flow, and the bytes of every CSV time series and
// of events.jsonl (by SHA-256). The simulator is deterministic, so a refactor that claims "no behaviour
// change" must reproduce them all; a change that means to change results rewrites the goldens with --update
// and shows the change in the diff of test/golden/.
//
//   node scripts/check-experiments.mjs                 # all of them (needs dist/: npm run build)
//   node scripts/check-experiments.mjs incast-pfc      # those whose scenario file name contains this
//   node scripts/check-experiments.mjs --update [FILTER]  # rewrite the goldens from fresh runs
//   node scripts/check-experiments.mjs --add ipcc/new.yaml ipcc/new  # a new experiment: its golden
//   node scripts/check-experiments.mjs --workers 2 [FILTER]  # the same goldens from parallel runs
//
// Exits 1 when anything differs, names the differences of each experiment and keeps its run (report, CSVs,
// events) in a temporary directory to look at.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  compareRun,
  EXPERIMENTS_DIR,
  goldenOfRun,
  listGoldens,
  ROOT,
  readGolden,
  writeGolden,
} from "./golden.mjs";

const args = process.argv.slice(2);
// --workers N (anywhere): every run split over N workers (docs/parallel-sim.md); the goldens stay those of
// one worker, since a parallel run must give the same bytes.
const workersAt = args.indexOf("--workers");
const workers = workersAt === -1 ? null : args.splice(workersAt, 2)[1];
if (workers !== null && !/^[1-9][0-9]*$/.test(workers ?? "")) {
  console.error("--workers takes a whole number >= 1");
  process.exit(2);
}
const update = args[0] === "--update";
const add = args[0] === "--add";
if (update || add) args.shift();
if (workers !== null && (update || add)) {
  console.error("--workers checks goldens; write them (--update, --add) from one worker");
  process.exit(2);
}

/** Runs `scenario` (relative to docs/experiments/) in the simulator into `out`; null, or what failed. */
function run(scenario, out) {
  const r = spawnSync(
    process.execPath,
    [
      join(ROOT, "dist", "main", "cli.js"),
      "run",
      join(EXPERIMENTS_DIR, scenario),
      "--runtime",
      "sim",
      "--out",
      out,
      "--quiet",
      ...(workers !== null ? ["--workers", workers] : []),
    ],
    { encoding: "utf8" },
  );
  return r.status === 0 ? null : `exit ${r.status}\n${r.stderr}`;
}

if (!existsSync(join(ROOT, "dist", "main", "cli.js"))) {
  console.error("no dist/main/cli.js: npm run build first");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "rocelab-exp-"));
let failed = 0;
let keep = false;
try {
  if (add) {
    const [scenario, name] = args;
    if (!scenario?.endsWith(".yaml") || !name || !existsSync(join(EXPERIMENTS_DIR, scenario))) {
      console.error("usage: --add SCENARIO.yaml RUN_DIR (both relative to docs/experiments/)");
      process.exit(2);
    }
    const out = join(work, "run");
    const err = run(scenario, out);
    if (err) throw new Error(`${scenario}: ${err}`);
    console.log(`wrote ${writeGolden(name, goldenOfRun(scenario, out))}`);
  } else {
    const filter = args[0];
    for (const { name, file } of listGoldens()) {
      const want = readGolden(file);
      if (filter && !want.scenario.includes(filter)) continue;
      const out = join(work, name.replaceAll("/", "-"));
      const started = Date.now();
      const err = run(want.scenario, out);
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      if (err) {
        failed++;
        console.log(`FAIL ${want.scenario}: ${err}`);
        continue;
      }
      if (update) {
        writeGolden(name, goldenOfRun(want.scenario, out));
        console.log(`wrote ${name} (${secs} s)`);
        continue;
      }
      const diffs = compareRun(want, out);
      if (diffs.length === 0) {
        console.log(`ok   ${want.scenario} (${secs} s)`);
        rmSync(out, { recursive: true, force: true });
      } else {
        failed++;
        keep = true;
        console.log(`FAIL ${want.scenario} (${secs} s), run kept in ${out}:\n  ${diffs.join("\n  ")}`);
      }
    }
  }
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}
process.exit(failed > 0 ? 1 : 0);
