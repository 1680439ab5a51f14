#!/usr/bin/env node
// The load-balancing experiment (docs/experiments/load-balancing.md): every scheme on three workloads of
// the 4-spine, 4-leaf, 16-host fabric, in the simulator.
//
//   node scripts/lb-experiment.mjs scenarios   # (re)writes the scenario files from SCHEMES x CASES
//   node scripts/lb-experiment.mjs run [FILTER] # runs them (needs dist/: npm run build) into their report dirs
//   node scripts/lb-experiment.mjs table       # results.json, results.md and the plots from the reports
//   node scripts/lb-experiment.mjs live [FILTER] # (b) on the live lab (root): live-results.json/.md, live
//                                                # reports under out/lb-live/, beside the sim reports
//
// To add a scheme (e.g. path navigation), add an entry to SCHEMES: its settings overrides and, if it needs
// them, extra scenario keys; then run the three commands and give each new run its golden
// (node scripts/check-experiments.mjs --add load-balancing/CASE/SCHEME.yaml load-balancing/CASE/SCHEME).
// scripts/run-experiments.mjs load-balancing/ runs every committed one and then `table`.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = join(root, "docs", "experiments", "load-balancing");

/** Scheme: name, label, what it sets (YAML flow text for `overrides`), QPs per host pair. */
export const SCHEMES = [
  { name: "ecmp", label: "ECMP (5-tuple)", overrides: {}, qps: 1 },
  {
    name: "ecmp-destqp",
    label: "ECMP + destQp, 4 QPs",
    overrides: { switches: "{ ecmp: { fields: [srcIp, dstIp, protocol, srcPort, dstPort, destQp] } }" },
    qps: 4,
  },
  { name: "lbn", label: "LBN", overrides: { switches: "{ lb: { mode: lbn } }" }, qps: 1 },
  {
    name: "lbn-enhanced",
    label: "LBN enhanced failover",
    overrides: { switches: "{ lb: { mode: lbn, lbn: { enhancedFailover: true } } }" },
    qps: 1,
  },
  {
    name: "dlb-eligibility",
    label: "DLB eligibility",
    overrides: { switches: "{ lb: { mode: dlb-eligibility } }" },
    qps: 1,
  },
  { name: "dlb-fixed", label: "DLB fixed", overrides: { switches: "{ lb: { mode: dlb-fixed } }" }, qps: 1 },
  {
    name: "spray",
    label: "Spray, go-back-N",
    overrides: { switches: "{ lb: { mode: dlb-spray } }" },
    qps: 1,
  },
  {
    name: "spray-reorder",
    label: "Spray + NIC reorder",
    overrides: { switches: "{ lb: { mode: dlb-spray } }", hosts: "{ reorder: { window: 256 } }" },
    qps: 1,
  },
];

/** Every ring hop crosses leaves: hosts in leaf-interleaved order (h1, h5, h9, h13, h2, ...). */
const RING = [1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16].map((h) => `h${h}`);

/** The spine link that fails in case (c), and when. */
export const FAILED_LINK = "leaf2:eth4";
export const FAIL_AT_US = 60;

export const CASES = [
  {
    name: "ring",
    label: "(a) ring all-reduce",
    describe: "ring all-reduce over 16 hosts in leaf-interleaved order, 2 MB per host, one QP per pair",
    timeline: (qps) => [
      `  - at: 10us`,
      "    start:",
      "      type: all-reduce",
      "      name: ring",
      `      hosts: [${RING.join(", ")}]`,
      "      size: 2MB",
      `      qps: ${qps}`,
    ],
  },
  {
    name: "perm",
    label: "(b) permutation",
    describe: "a random permutation of the 16 hosts, 2 MB per host",
    timeline: (qps) => [
      `  - at: 10us`,
      `    start: { type: permutation, name: perm, hosts: all, size: 2MB, qps: ${qps} }`,
    ],
  },
  {
    name: "fail",
    label: "(c) permutation, spine link fails",
    describe: `the permutation of (b); the ${FAILED_LINK} uplink (to spine4) goes down at ${FAIL_AT_US} µs`,
    timeline: (qps) => [
      `  - at: 10us`,
      `    start: { type: permutation, name: perm, hosts: all, size: 2MB, qps: ${qps} }`,
      `  - at: ${FAIL_AT_US}us`,
      `    link: { down: "${FAILED_LINK}" }`,
    ],
  },
];

const file = (c, s) => join(dir, c.name, `${s.name}.yaml`);
const out = (c, s) => join(dir, c.name, s.name);

function scenarios() {
  for (const c of CASES) {
    mkdirSync(join(dir, c.name), { recursive: true });
    for (const s of SCHEMES) {
      const o = Object.entries(s.overrides);
      const lines = [
        `# Load-balancing experiment, ${c.label}: ${c.describe}; scheme ${s.label}.`,
        "# Written by scripts/lb-experiment.mjs; results in ../../load-balancing.md.",
        `name: lb-${c.name}-${s.name}`,
        `description: ${c.label}, ${s.label}`,
        "topology: ../fabric.yaml",
        "seed: 1",
        "duration: 3ms",
        "sample: 10us",
        ...(o.length > 0 ? ["overrides:", ...o.map(([k, v]) => `  ${k}: ${v}`)] : []),
        "timeline:",
        ...c.timeline(s.qps),
      ];
      writeFileSync(file(c, s), `${lines.join("\n")}\n`);
    }
  }
}

function run(filter) {
  for (const c of CASES) {
    for (const s of SCHEMES) {
      if (filter && !`${c.name}/${s.name}`.includes(filter)) continue;
      const started = Date.now();
      const r = spawnSync(
        process.execPath,
        [join(root, "dist", "main/cli.js"), "run", file(c, s), "--runtime", "sim", "--out", out(c, s)],
        { encoding: "utf8" },
      );
      if (r.status !== 0) throw new Error(`${c.name}/${s.name}: ${r.stderr}`);
      console.log(`${c.name}/${s.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  }
}

function sumCounter(report, name) {
  let n = 0;
  for (const d of Object.values(report.devices)) n += d.counters[name] ?? 0;
  return n;
}

/** The figures of one run. */
function figures(report, mtu) {
  const flows = report.flows;
  const done = flows.filter((f) => f.endNs !== null);
  const start = Math.min(...flows.map((f) => f.startNs));
  const jct = done.length === flows.length ? Math.max(...done.map((f) => f.endNs)) - start : null;
  const s = report.summary;
  return {
    jctUs: jct === null ? null : jct / 1000,
    flowsCompleted: `${s.flowsCompleted}/${s.flowsTotal}`,
    loadBalance: report.loadBalance.figure,
    maxLinkUtilisation: report.loadBalance.maxUtilisation,
    pauseFrames: s.pauseFramesTx,
    retransmits: s.retransmits,
    retransmittedBytes: s.retransmits * mtu,
    outOfOrder: sumCounter(report, "out_of_sequence") + sumCounter(report, "ooo_placed_packets"),
    oooPlaced: sumCounter(report, "ooo_placed_packets"),
    losslessDrops: s.drops.lossless,
    flowletMoves: sumCounter(report, "dlb_flowlet_moves"),
  };
}

async function table() {
  const { renderSvg } = await import(join(root, "dist", "report", "plots.js"));
  const mtu = 4096;
  const rows = [];
  for (const c of CASES) {
    for (const s of SCHEMES) {
      const p = join(out(c, s), "report.json");
      if (!existsSync(p)) continue;
      rows.push({
        case: c.name,
        scheme: s.name,
        label: s.label,
        ...figures(JSON.parse(readFileSync(p, "utf8")), mtu),
      });
    }
  }
  for (const r of rows.filter((r) => r.case === "fail")) {
    const base = rows.find((b) => b.case === "perm" && b.scheme === r.scheme);
    r.recoveryUs = base && r.jctUs !== null && base.jctUs !== null ? r.jctUs - base.jctUs : null;
  }
  writeFileSync(join(dir, "results.json"), `${JSON.stringify(rows, null, 2)}\n`);
  const f = (v, d = 0) =>
    v === null || v === undefined
      ? "—"
      : v.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  const md = [];
  for (const c of CASES) {
    md.push(`**${c.label}** — ${c.describe}.`, "");
    const fail = c.name === "fail";
    md.push(
      `| scheme | JCT µs | LB max/mean | max link % | pauses | retransmits | out-of-order arrivals | lossless drops |${fail ? " JCT added by the failure µs | bytes resent |" : ""}`,
      `|---|--:|--:|--:|--:|--:|--:|--:|${fail ? "--:|--:|" : ""}`,
    );
    for (const r of rows.filter((r) => r.case === c.name)) {
      const jct = r.jctUs === null ? `not done in 3 ms (${r.flowsCompleted})` : f(r.jctUs);
      md.push(
        `| ${r.label} | ${jct} | ${f(r.loadBalance, 2)} | ${f(100 * r.maxLinkUtilisation)} | ${f(r.pauseFrames)} | ${f(r.retransmits)} | ${f(r.outOfOrder)} | ${f(r.losslessDrops)} |${fail ? ` ${f(r.recoveryUs)} | ${f(r.retransmittedBytes)} |` : ""}`,
      );
    }
    md.push("");
  }
  writeFileSync(join(dir, "results.md"), `${md.join("\n")}\n`);
  const chart = (field, title, axis) => ({
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title,
    width: 220,
    height: 200,
    data: { values: rows.map((r) => ({ ...r, case: CASES.find((c) => c.name === r.case).label })) },
    mark: "bar",
    encoding: {
      column: { field: "case", type: "nominal", title: null, sort: CASES.map((c) => c.label) },
      x: {
        field: "label",
        type: "nominal",
        title: null,
        sort: SCHEMES.map((s) => s.label),
        axis: { labelAngle: -50 },
      },
      y: { field, type: "quantitative", title: axis },
      color: { field: "label", type: "nominal", legend: null, sort: SCHEMES.map((s) => s.label) },
    },
    config: { font: "sans-serif" },
  });
  mkdirSync(join(dir, "plots"), { recursive: true });
  for (const [name, field, title, axis] of [
    ["jct.svg", "jctUs", "Job completion time per scheme (lower is better)", "JCT (µs)"],
    [
      "load-balance.svg",
      "loadBalance",
      "Load-balance figure: max/mean fabric link utilisation (1 = even)",
      "max / mean",
    ],
    ["retransmits.svg", "retransmits", "Packets retransmitted", "packets"],
  ]) {
    writeFileSync(join(dir, "plots", name), await renderSvg(chart(field, title, axis)));
  }
  console.log(md.join("\n"));
}

/** Case (b) on the live lab (synced clocks, dilation 1000): the same scenario files, compared with sim. */
function live(filter) {
  const c = CASES.find((x) => x.name === "perm");
  // Rows of earlier runs stay (a run can be redone for one scheme); in SCHEMES order.
  const saved = join(dir, "live-results.json");
  const rows = existsSync(saved) ? JSON.parse(readFileSync(saved, "utf8")) : [];
  for (const s of SCHEMES) {
    if (filter && !filter.split(",").includes(s.name)) continue;
    const liveOut = join(root, "out", "lb-live", s.name);
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      [
        ...[join(root, "dist", "main/cli.js"), "run", file(c, s), "--runtime", "live", "--out", liveOut],
        ...["--name", `lbl${s.name.replace(/[^a-z]/g, "").slice(0, 8)}`, "--no-metrics", "--quiet"],
      ],
      { encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`live ${s.name}: ${r.stderr}`);
    const report = JSON.parse(readFileSync(join(liveOut, "report.json"), "utf8"));
    const sim = JSON.parse(readFileSync(join(out(c, s), "report.json"), "utf8"));
    const at = rows.findIndex((r) => r.scheme === s.name);
    if (at >= 0) rows.splice(at, 1);
    rows.push({
      scheme: s.name,
      label: s.label,
      wallSeconds: (Date.now() - started) / 1000,
      pace: report.live?.pace ?? null,
      live: figures(report, 4096),
      sim: figures(sim, 4096),
    });
    console.log(`live perm/${s.name} (${rows.at(-1).wallSeconds.toFixed(1)} s)`);
  }
  const order = (r) => SCHEMES.findIndex((s) => s.name === r.scheme);
  rows.sort((a, b) => order(a) - order(b));
  writeFileSync(join(dir, "live-results.json"), `${JSON.stringify(rows, null, 2)}\n`);
  const f = (v, d = 0) =>
    v === null || v === undefined
      ? "—"
      : v.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  const md = [
    "| scheme | JCT µs live / sim | LB max/mean live / sim | pauses live / sim | retransmits live / sim | out-of-order live / sim | lossless drops live / sim | run s |",
    "|---|--:|--:|--:|--:|--:|--:|--:|",
    ...rows.map(
      (r) =>
        `| ${r.label} | ${f(r.live.jctUs)} / ${f(r.sim.jctUs)} | ${f(r.live.loadBalance, 2)} / ${f(r.sim.loadBalance, 2)} | ${f(r.live.pauseFrames)} / ${f(r.sim.pauseFrames)} | ${f(r.live.retransmits)} / ${f(r.sim.retransmits)} | ${f(r.live.outOfOrder)} / ${f(r.sim.outOfOrder)} | ${f(r.live.losslessDrops)} / ${f(r.sim.losslessDrops)} | ${f(r.wallSeconds)} |`,
    ),
  ];
  writeFileSync(join(dir, "live-results.md"), `${md.join("\n")}\n`);
  console.log(md.join("\n"));
}

const cmd = process.argv[2];
if (cmd === "scenarios") scenarios();
else if (cmd === "run") run(process.argv[3]);
else if (cmd === "table") await table();
else if (cmd === "live") live(process.argv[3]);
else {
  console.error("usage: lb-experiment.mjs scenarios | run [FILTER] | table | live [FILTER]");
  process.exit(2);
}
