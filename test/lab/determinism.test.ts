// Determinism: the same scenario and seed give byte-identical output, run after run in one process (so no
// state — pools, scratch buffers, caches — leaks from one run into the next). Only the wall-clock time in
// report.json may differ. A different seed must give a different run, or the comparison proves nothing.
// The same holds across worker counts (docs/parallel-sim.md): a run split over 2 workers writes the bytes
// the single-threaded run writes (the worker is the bundle's: `node scripts/setup` first).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { runScenarioSimParallel } from "../../src/run/sim-parallel.js";
import { loadScenario, type Scenario } from "../../src/scenario/scenario.js";

function outputs(sc: Scenario, dir: string): Map<string, string> {
  runScenarioSim(sc, { outDir: dir });
  return read(dir);
}

function read(dir: string): Map<string, string> {
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

/** Every action kind a scenario run in the simulator carries out, on the default fabric, in 600 µs. */
const CHAOS = `name: parallel-chaos
description: every action kind, for the 1-vs-2-workers comparison
topology: default
seed: 3
duration: 600us
sample: 5us
overrides:
  hosts: { dcqcn: nvidia }
timeline:
  - at: 10us
    start: { type: incast, name: storage, to: h8, from: 6, size: 1MB }
  - at: 20us
    start: { type: permutation, name: perm, hosts: all, size: 200KB, qps: 1 }
  - at: 100us
    set: { switches: { profile: aggressive }, hosts: { dcqcn: paper } }
  - at: 150us
    link: { down: "leaf2:eth1" }
  - at: 250us
    link: { up: "leaf2:eth1" }
  - at: 300us
    inject: { pfcStorm: h5, priority: 3 }
  - at: 350us
    inject: { stopPfcStorm: h5 }
  - at: 400us
    inject: { route: { node: leaf1, to: h5, via: eth1 } }
  - at: 450us
    inject: { withdrawRoute: { node: leaf1, to: h5 } }
  - at: 480us
    inject: { kill: spine1 }
  - at: 530us
    inject: { restart: spine1 }
  - at: 580us
    stop: all
`;

t.test("1 and 2 workers: the same report, series and event log, byte for byte", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "determinism-workers-"));
  try {
    writeFileSync(join(work, "chaos.yaml"), CHAOS);
    const incast = loadScenario("docs/experiments/incast-dcqcn.yaml");
    const cases: [string, Scenario][] = [
      ["incast-dcqcn, 1 ms", { ...incast, durationNs: 1_000_000, sampleNs: 10_000 }],
      ["every action kind", loadScenario(join(work, "chaos.yaml"))],
    ];
    for (const [what, sc] of cases) {
      const one = outputs(sc, join(work, `${sc.name}-1`));
      const run = await runScenarioSimParallel(sc, { outDir: join(work, `${sc.name}-2`), workers: 2 });
      const two = read(join(work, `${sc.name}-2`));
      t.equal(run.partitioning.parts, 2, `${what}: split in two (${run.partitioning.cutLinks} links cut)`);
      t.ok(
        run.workers.every((w) => w.framesSent > 0),
        `${what}: frames crossed both ways (${run.workers.map((w) => w.framesSent).join(", ")})`,
      );
      t.same([...two.keys()], [...one.keys()], `${what}: the same files`);
      for (const [f, text] of one)
        t.ok(text === two.get(f), `${what}: ${f} identical (${text.length} bytes)`);
      t.ok((one.get("events.jsonl")?.length ?? 0) > 1000, `${what}: the event log is not empty`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
