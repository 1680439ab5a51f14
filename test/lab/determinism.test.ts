// Determinism: the same scenario and seed give byte-identical output, run after run in one process (so no
// state — pools, scratch buffers, caches — leaks from one run into the next). Only the wall-clock time in
// report.json may differ. A different seed must give a different run, or the comparison proves nothing.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario, type Scenario } from "../../src/scenario/scenario.js";

function outputs(sc: Scenario, dir: string): Map<string, string> {
  runScenarioSim(sc, { outDir: dir });
  const files = new Map<string, string>();
  for (const f of readdirSync(dir).sort()) {
    let text = readFileSync(join(dir, f), "utf8");
    if (f === "report.json") text = text.replace(/"wallClockMs": [\d.e+-]+/, '"wallClockMs": 0');
    files.set(f, text);
  }
  return files;
}

t.test("same seed, byte-identical reports, series and events; another seed differs", (t) => {
  const base = loadScenario("docs/experiments/incast-dcqcn.yaml");
  // 2 ms of the sustained DCQCN incast, sampled every 10 µs: ECN marks, CNPs, rate cuts and PFC all happen.
  const sc: Scenario = { ...base, durationNs: 2_000_000, sampleNs: 10_000 };
  const work = mkdtempSync(join(tmpdir(), "determinism-"));
  try {
    const a = outputs(sc, join(work, "a"));
    const b = outputs(sc, join(work, "b"));
    const other = outputs({ ...sc, seed: 2 }, join(work, "c"));
    t.same([...a.keys()], [...b.keys()], "the same files");
    t.ok(a.size >= 7, `report, five series and the event log (${[...a.keys()].join(", ")})`);
    for (const [f, text] of a) t.ok(text === b.get(f), `${f}: identical (${text.length} bytes)`);
    t.ok((a.get("events.jsonl")?.length ?? 0) > 1000, "the event log is not empty");
    t.not(other.get("report.json"), a.get("report.json"), "seed 2 gives another run");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  t.end();
});
