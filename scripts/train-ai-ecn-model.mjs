#!/usr/bin/env node
// Trains AI ECN's model library (docs/ai-ecn.md, "Model mode") in the simulator and writes it to
// src/switch/features/ai-ecn-models.ts. For each training traffic pattern on the 3-leaf fabric
// (docs/examples/incast-3leaf.yaml, DCQCN `nvidia`, PFC of the `balanced` profile):
//   1. features: one run in `ecn.ai.mode: model` with the library off (`maxDistance: 0`, so the online
//      correction sets the thresholds) and `publish: true`; every switch's per-period scaled feature
//      vector of queue 3 is collected, the busy ones (scaled demand ≥ BUSY) are kept, and the mean of those
//      of the pattern's bottleneck (the switch with the highest mean demand) is the pattern's centroid;
//   2. thresholds: the pattern runs with static thresholds at every level of AI ECN's template ladder
//      (8 levels, 50 KB/200 KB … 500 KB/3000 KB, Pmax 100 %, Kmax capped at 90 % of XOFF as the switch
//      does), over SEEDS seeds each (`rocelab compare`'s seeding: start jitter 1 µs, per-switch ECMP seeds);
//   3. objective: the lowest mean p99 FCT of the small flows (≤ 100 KB; an unfinished flow counts as at
//      least its time to the end of the run) among the levels whose mean goodput is at least GOODPUT_FLOOR
//      of the best level's.
// The distance bound is the median over patterns of the 75th percentile of their own vectors' distances to
// their centroid.
//
//   npm run build && nice -n 10 node scripts/train-ai-ecn-model.mjs [--jobs N] [--dry-run]
//
// The runs use the compiled simulator (dist/); the output is deterministic for a given code state.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./golden.mjs";

const dist = (p) => import(join(ROOT, "dist", p));
const { runScenarioSim } = await dist("run/run-sim.js");
const { loadScenario } = await dist("scenario/scenario.js");
const { runComparison } = await dist("run/compare/compare.js");
const { planJobs } = await dist("run/compare/variants.js");
const { AI_ECN_DEFAULTS } = await dist("switch/features/ai-ecn.js");
const { safeThresholds, templateOf } = await dist("switch/features/ai-ecn-controller.js");
const { AI_ECN_MODEL_FEATURES, patternDistance } = await dist("switch/features/ai-ecn-model.js");

const SEEDS = [1, 2];
const BUSY = 0.3;
const GOODPUT_FLOOR = 0.97;
const XOFF = 3_000_000; // the balanced profile's static PFC XOFF
const args = process.argv.slice(2);
const jobsArg = args.indexOf("--jobs");
const THREADS = jobsArg >= 0 ? Number(args[jobsArg + 1]) : 2;
const DRY = args.includes("--dry-run");

const mix = (load) => ({
  at: "10us",
  start: {
    type: "mix",
    name: "mice",
    hosts: ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h17"],
    load,
    sizes: "websearch",
    qpPerMessage: true,
  },
});
const hosts = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => `h${a + i}`);

/** The training patterns. The held-out ones (docs/experiments/ai-ecn-model/) are different on purpose. */
const PATTERNS = [
  { name: "mice", duration: "3ms", timeline: [mix(0.45)] },
  {
    name: "incast-4",
    duration: "3ms",
    timeline: [
      mix(0.15),
      {
        at: "500us",
        start: { type: "incast", name: "elephants", to: "h17", from: hosts(9, 12), size: "2MB" },
      },
    ],
  },
  {
    name: "incast-16",
    duration: "3ms",
    timeline: [
      mix(0.15),
      {
        at: "500us",
        start: { type: "incast", name: "elephants", to: "h17", from: hosts(1, 16), size: "1MB" },
      },
    ],
  },
  {
    name: "elephants-2",
    duration: "3ms",
    timeline: [
      mix(0.15),
      { at: "200us", start: { type: "flow", name: "e1", from: "h9", to: "h17", size: "30MB" } },
      { at: "200us", start: { type: "flow", name: "e2", from: "h10", to: "h17", size: "30MB" } },
    ],
  },
  {
    name: "permutation",
    duration: "3ms",
    timeline: [
      mix(0.15),
      { at: "500us", start: { type: "permutation", name: "perm", hosts: hosts(1, 16), size: "2MB" } },
    ],
  },
];

const dir = mkdtempSync(join(tmpdir(), "ai-ecn-train-"));
const topology = join(ROOT, "docs", "examples", "incast-3leaf.yaml");

function scenarioFile(name, pattern, switches) {
  const file = join(dir, `${name}.yaml`);
  const sc = {
    name,
    topology,
    seed: 1,
    duration: pattern.duration,
    sample: "100us",
    overrides: { hosts: { dcqcn: "nvidia" }, switches },
    timeline: pattern.timeline,
  };
  writeFileSync(file, JSON.stringify(sc)); // JSON is YAML
  return file;
}

function centroidOf(pattern) {
  const file = scenarioFile(`${pattern.name}-features`, pattern, {
    profile: "balanced",
    ecn: { ai: { mode: "model", maxDistance: 0, publish: true } },
  });
  const byDevice = new Map();
  runScenarioSim(loadScenario(file), {
    onEvent: (e) => {
      if (e.kind !== "info" || !e.detail?.startsWith('{"aiEcn":"model-features"')) return;
      const { vector } = JSON.parse(e.detail);
      if (vector[3] < BUSY) return;
      if (!byDevice.has(e.device)) byDevice.set(e.device, []);
      byDevice.get(e.device).push(vector);
    },
  });
  // The pattern's bottleneck: the switch whose busy periods carry the highest mean demand.
  const meanLoad = (vs) => vs.reduce((a, v) => a + v[3], 0) / vs.length;
  const [device, vectors] = [...byDevice].reduce(
    (a, b) => (meanLoad(b[1]) > meanLoad(a[1]) ? b : a),
    ["none", [[0, 0, 0, 0]]],
  );
  if (device === "none") throw new Error(`${pattern.name}: no busy periods`);
  const c = AI_ECN_MODEL_FEATURES.map((_, i) => vectors.reduce((a, v) => a + v[i], 0) / vectors.length);
  const d = vectors.map((v) => patternDistance(v, c)).sort((a, b) => a - b);
  return {
    centroid: c.map((x) => +x.toFixed(4)),
    device,
    n: vectors.length,
    p75: d[Math.floor(0.75 * (d.length - 1))],
  };
}

const LEVELS = Array.from({ length: AI_ECN_DEFAULTS.levels }, (_, l) => l);
const thresholdsOf = (l) => safeThresholds(templateOf(l, AI_ECN_DEFAULTS), XOFF, AI_ECN_DEFAULTS.safety);

async function bestLevel(pattern) {
  const variants = LEVELS.map((l) => ({
    label: `L${l}`,
    file: scenarioFile(`${pattern.name}-L${l}`, pattern, {
      profile: "balanced",
      ecn: { queues: { 3: thresholdsOf(l) } },
    }),
  }));
  const jobs = planJobs(variants, { seeds: SEEDS, jitterNs: 1000, varyEcmp: true }, { smallBytes: 100_000 });
  const out = await runComparison(jobs, THREADS);
  const rows = LEVELS.map((l) => {
    const runs = out.runs.filter((r) => r.variant === `L${l}`);
    const mean = (id) => runs.reduce((a, r) => a + (r.values[id]?.value ?? Number.NaN), 0) / runs.length;
    return { level: l, p99: mean("small-fct-p99"), goodput: mean("goodput"), unfinished: mean("unfinished") };
  });
  const top = Math.max(...rows.map((r) => r.goodput));
  const feasible = rows.filter((r) => r.goodput >= GOODPUT_FLOOR * top);
  const best = feasible.reduce((a, r) => (r.p99 < a.p99 ? r : a));
  return { best, rows };
}

const patterns = [];
const radii = [];
for (const p of PATTERNS) {
  const c = centroidOf(p);
  radii.push(c.p75);
  console.log(
    `${p.name}: centroid ${c.centroid.join(" ")} (${c.device}, ${c.n} busy periods, p75 radius ${c.p75.toFixed(3)})`,
  );
  const { best, rows } = DRY ? { best: { level: 3 }, rows: [] } : await bestLevel(p);
  for (const r of rows)
    console.log(
      `  L${r.level} small p99 ${(r.p99 / 1e3).toFixed(1)}us goodput ${(r.goodput / 1e9).toFixed(1)}G unfinished ${r.unfinished}`,
    );
  const t = thresholdsOf(best.level);
  console.log(`  -> level ${best.level}: kmin ${t.kmin} kmax ${t.kmax} pmax ${t.pmax}`);
  patterns.push({ name: p.name, centroid: c.centroid, kmin: t.kmin, kmax: t.kmax, pmax: t.pmax });
}
rmSync(dir, { recursive: true, force: true });
radii.sort((a, b) => a - b);
const maxDistance = +radii[Math.floor(radii.length / 2)].toFixed(3);

const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], {
  cwd: ROOT,
  encoding: "utf8",
}).stdout.trim();
const date = spawnSync("git", ["log", "-1", "--format=%cs"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
const lib = { features: [...AI_ECN_MODEL_FEATURES], maxDistance, patterns };
const text = `// GENERATED by scripts/train-ai-ecn-model.mjs — do not edit by hand; re-run the script instead.
// AI ECN's trained model library (docs/ai-ecn.md, "Model mode"): one nearest-centroid model per training
// traffic pattern. Made with
//   npm run build && nice -n 10 node scripts/train-ai-ecn-model.mjs
// on the code of commit ${commit} (${date}), seeds ${SEEDS.join(", ")} per (pattern, level), the 3-leaf
// fabric with DCQCN nvidia and the balanced profile's PFC; objective: lowest mean p99 FCT of flows
// ≤ 100 KB (unfinished counted as ≥ their time to the end) among the levels with mean goodput
// ≥ ${GOODPUT_FLOOR * 100} % of the best; centroid: mean busy (scaled demand ≥ ${BUSY}) feature vector of the
// pattern's bottleneck switch in a run with the library off; maxDistance: median over patterns of the 75th percentile radius.
import type { AiEcnModelLibrary } from "./ai-ecn-model.js";

export const AI_ECN_MODELS: AiEcnModelLibrary = ${JSON.stringify(lib)};
`;
if (DRY) console.log(text);
else {
  writeFileSync(join(ROOT, "src", "switch", "features", "ai-ecn-models.ts"), text);
  spawnSync("npx", ["biome", "format", "--write", "src/switch/features/ai-ecn-models.ts"], { cwd: ROOT });
  console.log("wrote src/switch/features/ai-ecn-models.ts");
}
