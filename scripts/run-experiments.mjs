#!/usr/bin/env node
// Regenerates the results of the simulator experiments, which are not committed: each run's report.json,
// CSV time series and events.jsonl in its directory under docs/experiments/ (.gitignore keeps them out of
// git), the charts and HTML pages of single runs, and the comparisons drawn over several runs. The SVG
// charts that the doc pages show are committed; this is the script that made them, and it ends by listing
// every committed file under docs/ that came out different (git diff), so a chart that no longer matches
// the code shows. Each run is also compared with its golden (test/golden/, scripts/golden.mjs).
//
//   npm run build
//   node scripts/run-experiments.mjs            # everything: every run, summaries, tune, Grafana preview
//   node scripts/run-experiments.mjs ipcc       # the runs whose scenario file contains "ipcc", and the steps
//                                               # whose name contains it or that use one of those runs
//   node scripts/run-experiments.mjs --list     # the runs and the steps, without running anything
//   node scripts/run-experiments.mjs --update [FILTER]  # a change of results on purpose: rewrite each
//                                               # run's golden from it (as check-experiments.mjs --update
//                                               # does), then plots, pages and steps from the same runs
//
// Exits 1 when a run differs from its golden (without --update), a step fails, or a committed file under
// docs/ changed.

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { compareRun, goldenOfRun, listGoldens, ROOT, readGolden, writeGolden } from "./golden.mjs";

const CLI = join("dist", "main", "cli.js");
const GOLDENS = listGoldens().map(({ name, file }) => ({ name, golden: readGolden(file) }));
const EXP = "docs/experiments";

/** Run directories (prefixes of golden names) whose charts (`rocelab plot`) the doc pages show. */
const PLOTTED = [
  "incast/",
  "threshold-table/",
  "ghost-latency/",
  "vxlan-ecn/",
  "pfc-deadlock/",
  "qp-errors/",
  "rnr/",
];
/** Run directories whose HTML page (`rocelab report`) docs/experiments/README.md links. */
const PAGED = ["incast/", "threshold-table/", "ghost-latency/"];

/** The IPCC comparison of one workload: its dcqcn, ipcc and both runs (docs/ipcc.md). */
const ipcc = (workload, start, variants = ["dcqcn", "ipcc", "both"]) => ({
  name: `compare-runs ipcc/${workload}`,
  runs: variants.map((v) => `ipcc/${workload}-${v}`),
  cmd: (dirs) => [
    "scripts/compare-runs.mjs",
    "--start",
    start,
    "--title",
    workload,
    "--plots",
    `${EXP}/ipcc/plots/${workload}`,
    ...dirs.map((d) => `${d.split("-").pop()}=${EXP}/${d}`),
  ],
});

/**
 * A `rocelab compare` of the congestion-control family (docs/experiments/cc-family.md) over 10 seeds: its
 * chart and JSON in cc-family/plots/NAME (the page shows the chart).
 */
const ccFamily = (name, files, sweep, extra = []) => ({
  name: `compare cc-family/${name}`,
  runs: [],
  cmd: () => [
    CLI,
    "compare",
    ...files.map((f) => `${EXP}/cc-family/${f}.yaml`),
    "--sweep",
    `hosts.cc=${sweep}`,
    "--seeds",
    "10",
    ...extra,
    "--quiet",
    "--force",
    "--out",
    `${EXP}/cc-family/plots/${name}`,
  ],
});

/**
 * AI ECN's model mode against local, central and the static presets on the patterns held out of its
 * training (docs/experiments/ai-ecn-model.md): two `rocelab compare`s over 10 seeds, chart and JSON in
 * ai-ecn-model/plots/NAME (the page shows the charts).
 */
const aiEcnModel = () => {
  const presets = ["aggressive", "balanced", "conservative", "local", "central"];
  const compare = (name, files) => ({
    name: `compare ai-ecn-model/${name}`,
    runs: [],
    cmd: () => [
      CLI,
      "compare",
      ...files,
      "--seeds",
      "10",
      "--small",
      "100KB",
      "--quiet",
      "--force",
      "--out",
      `${EXP}/ai-ecn-model/plots/${name}`,
    ],
  });
  return [
    compare(
      "incast8",
      [...presets, "model"].map((v) => `${EXP}/ai-ecn-model/incast8-${v}.yaml`),
    ),
    compare("changing", [
      ...presets.map((v) => `${EXP}/ai-ecn/${v}.yaml`),
      `${EXP}/ai-ecn-model/changing-model.yaml`,
    ]),
  ];
};

/**
 * A `rocelab compare` of the link-aggregation schemes (docs/link-aggregation.md) over 10 seeds: its chart
 * and JSON in link-aggregation/plots/NAME (the page shows the failure one's chart).
 */
const lagCompare = (name, variants) => ({
  name: `compare link-aggregation/${name}`,
  runs: [],
  cmd: () => [
    CLI,
    "compare",
    ...variants.map((v) => `${EXP}/link-aggregation/${name}-${v}.yaml`),
    "--seeds",
    "10",
    "--quiet",
    "--force",
    "--out",
    `${EXP}/link-aggregation/plots/${name}`,
  ],
});

/** Every run under `prefix` (the runs a summary script reads: it finds them itself). */
const under = (prefix) => GOLDENS.filter((g) => g.name.startsWith(prefix)).map((g) => g.name);

/**
 * Steps over several runs (or with runs of their own): `runs` are the run directories they read, which
 * must exist; `cmd` is the command after `node`, run from the repository's root.
 */
const STEPS = [
  ipcc("incast16", "300us"),
  ipcc("incast16-cold", "10us"),
  ipcc("incast16-cm", "10us", ["dcqcn", "ipcc"]),
  ipcc("bystanders", "300us"),
  {
    name: "compare-runs ai-ecn",
    runs: ["aggressive", "balanced", "conservative", "local", "central"].map((v) => `ai-ecn/${v}`),
    cmd: (dirs) => [
      "scripts/compare-runs.mjs",
      "--start",
      "3ms",
      "--throughput-hosts",
      "h9,h10,h11,h12,h13,h14,h15,h16",
      "--thresholds",
      "leaf3",
      "--title",
      "ai-ecn",
      "--plots",
      `${EXP}/ai-ecn/plots`,
      ...dirs.map((d) => `${d.split("/").pop()}=${EXP}/${d}`),
    ],
  },
  ...aiEcnModel(),
  ccFamily("incast", ["incast"], "dcqcn,hpcc,timely,dctcp"),
  ccFamily("incast16", ["incast16", "incast16-ipcc"], "dcqcn,timely"),
  ccFamily("storm", ["storm-no-watchdog", "storm-watchdog"], "none,dcqcn,hpcc"),
  ccFamily("websearch", ["websearch"], "dcqcn,hpcc,timely,dctcp", ["--small", "100KB"]),
  ccFamily("websearch-qp-per-message", ["websearch-qp-per-message"], "dcqcn,hpcc,timely,dctcp", [
    "--small",
    "100KB",
  ]),
  lagCompare("perm", ["hash", "lbn", "dlb-eligibility"]),
  lagCompare("fail", ["hash", "lbn", "lbn-enhanced", "dlb-eligibility"]),
  {
    name: "elephant-mice-summary",
    runs: under("elephant-mice/"),
    cmd: () => ["scripts/elephant-mice-summary.mjs"],
  },
  {
    name: "lb-experiment table",
    runs: under("load-balancing/"),
    cmd: () => ["scripts/lb-experiment.mjs", "table"],
  },
  {
    name: "path-navigation-report",
    runs: under("path-navigation/"),
    cmd: () => ["scripts/path-navigation-report.mjs"],
  },
  {
    name: "tune threshold-table",
    runs: [],
    cmd: () => [
      CLI,
      "tune",
      `${EXP}/threshold-table/balanced.yaml`,
      "--trials",
      "16",
      "--duration",
      "8ms",
      "--out",
      `${EXP}/threshold-table/tune`,
      "--quiet",
      "--force",
    ],
  },
  {
    name: "grafana preview",
    runs: [],
    cmd: () => [
      CLI,
      "grafana",
      "--preview",
      `${EXP}/ghost-latency/bad.yaml`,
      "--preview-dir",
      "docs/grafana/preview",
      "--force",
    ],
  },
];

/**
 * Runs `node ARGS` from the root; returns null or what went wrong. A step's output (the tables it prints) goes
 * to the terminal; a run's (its summary, lint warnings on load) only when it fails.
 */
function node(args, { quiet = false } = {}) {
  const r = spawnSync(process.execPath, args, {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", quiet ? "pipe" : "inherit", quiet ? "pipe" : "inherit"],
  });
  if (r.status === 0) return null;
  return `exit ${r.status ?? r.signal}${quiet ? `\n${r.stdout}${r.stderr}` : ""}`;
}

function timed(label, f) {
  const started = Date.now();
  const err = f();
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${err ? "FAIL" : "ok  "} ${label} (${secs} s)${err ? `: ${err}` : ""}`);
  return err ? 1 : 0;
}

const args = process.argv.slice(2);
const list = args[0] === "--list";
if (list) args.shift();
const update = args[0] === "--update";
if (update) args.shift();
const filter = args[0];

const runs = GOLDENS.filter((r) => !filter || r.golden.scenario.includes(filter));
const chosen = new Set(runs.map((r) => r.name));
const steps = STEPS.filter((s) => !filter || s.name.includes(filter) || s.runs.some((r) => chosen.has(r)));

if (list) {
  for (const r of runs) console.log(`run   ${EXP}/${r.golden.scenario} → ${EXP}/${r.name}/`);
  for (const s of steps) console.log(`step  ${s.name}: node ${s.cmd(s.runs).join(" ")}`);
  process.exit(0);
}
if (!existsSync(join(ROOT, CLI))) {
  console.error(`no ${CLI}: npm run build first`);
  process.exit(2);
}

let failed = 0;
for (const { name, golden } of runs) {
  const dir = `${EXP}/${name}`;
  failed += timed(`run ${golden.scenario} → ${dir}`, () => {
    // --force: the run directories are this script's (they hold the committed charts), so it writes over them.
    const run = [
      CLI,
      "run",
      `${EXP}/${golden.scenario}`,
      "--runtime",
      "sim",
      "--out",
      dir,
      "--quiet",
      "--force",
    ];
    const err = node(run, { quiet: true });
    if (err) return err;
    if (update) writeGolden(name, goldenOfRun(golden.scenario, join(ROOT, dir)));
    const diffs = compareRun(golden, join(ROOT, dir));
    if (diffs.length > 0 && !update) return `differs from test/golden/${name}.json:\n  ${diffs.join("\n  ")}`;
    if (PLOTTED.some((p) => name.startsWith(p))) {
      const e = node([CLI, "plot", dir, "--quiet", "--force"], { quiet: true });
      if (e) return `rocelab plot: ${e}`;
    }
    if (PAGED.some((p) => name.startsWith(p))) {
      const e = node([CLI, "report", dir, "--scenario", `${EXP}/${golden.scenario}`, "--force"], {
        quiet: true,
      });
      if (e) return `rocelab report: ${e}`;
    }
    return null;
  });
}
for (const s of steps) {
  const missing = s.runs.filter((r) => !existsSync(join(ROOT, EXP, r, "report.json")));
  if (missing.length > 0) {
    failed++;
    console.log(`FAIL ${s.name}: no report yet in ${missing.join(", ")} (run them first)`);
    continue;
  }
  failed += timed(s.name, () => node(s.cmd(s.runs)));
}

// What came out different from the committed files, and what is new without being ignored.
const git = (...a) => spawnSync("git", a, { cwd: ROOT, encoding: "utf8" });
const changed = git("diff", "--name-only", "--", "docs");
if (changed.status !== 0) {
  console.log("(not a git checkout: committed files not compared)");
} else {
  const untracked = git("ls-files", "--others", "--exclude-standard", "--", "docs").stdout.trim();
  if (changed.stdout.trim()) {
    failed++;
    console.log(
      `committed files under docs/ that differ from the last commit (git diff them):\n${changed.stdout}`,
    );
  }
  if (untracked) console.log(`new files under docs/ that .gitignore does not cover:\n${untracked}`);
  if (!changed.stdout.trim()) console.log("every committed file under docs/ came out identical");
}
process.exit(failed > 0 ? 1 : 0);
