#!/usr/bin/env node
// Re-runs every simulator experiment committed under docs/experiments/ and compares what it reports with
// the committed report.json: the summary, every flow, and the CSV time series (byte for byte). The
// simulator is deterministic, so a refactor that claims "no behaviour change" must reproduce them all.
//
//   node scripts/check-experiments.mjs            # all of them (needs dist/: npm run build)
//   node scripts/check-experiments.mjs incast-pfc # only those whose scenario file name contains this
//
// Exits 1 when anything differs and names the first difference of each experiment.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const exp = join(root, "docs", "experiments");

/** Scenario file → the directory its committed report lives in. */
const EXPERIMENTS = [
  ["incast-pfc.yaml", "incast/pfc"],
  ["incast-no-pfc.yaml", "incast/no-pfc"],
  ["incast-dcqcn.yaml", "incast/dcqcn"],
  ["threshold-table/aggressive.yaml", "threshold-table/aggressive"],
  ["threshold-table/balanced.yaml", "threshold-table/balanced"],
  ["threshold-table/conservative.yaml", "threshold-table/conservative"],
  ["ghost-latency/bad.yaml", "ghost-latency/bad"],
  ["ghost-latency/fixed.yaml", "ghost-latency/fixed"],
  ["elephant-mice/lossy-off.yaml", "elephant-mice/lossy-off"],
  ["elephant-mice/lossy-scheduling.yaml", "elephant-mice/lossy-scheduling"],
  ["elephant-mice/lossy-adaptive.yaml", "elephant-mice/lossy-adaptive"],
  ["elephant-mice/lossless-off.yaml", "elephant-mice/lossless-off"],
  ["elephant-mice/lossless-scheduling.yaml", "elephant-mice/lossless-scheduling"],
  ["elephant-mice/lossless-adaptive.yaml", "elephant-mice/lossless-adaptive"],
  ["vxlan-ecn/ecn.yaml", "vxlan-ecn/ecn"],
  ["vxlan-ecn/no-ecn.yaml", "vxlan-ecn/no-ecn"],
  ["path-navigation/perm-ecmp.yaml", "path-navigation/perm-ecmp"],
  ["path-navigation/perm-network.yaml", "path-navigation/perm-network"],
  ["path-navigation/perm-host.yaml", "path-navigation/perm-host"],
  ["path-navigation/ring-ecmp.yaml", "path-navigation/ring-ecmp"],
  ["path-navigation/ring-network.yaml", "path-navigation/ring-network"],
  ["path-navigation/ring-host.yaml", "path-navigation/ring-host"],
  ["path-navigation/fail-ecmp.yaml", "path-navigation/fail-ecmp"],
  ["path-navigation/fail-network.yaml", "path-navigation/fail-network"],
  ["path-navigation/fail-host.yaml", "path-navigation/fail-host"],
  ["load-balancing/ring/ecmp.yaml", "load-balancing/ring/ecmp"],
  ["load-balancing/ring/ecmp-destqp.yaml", "load-balancing/ring/ecmp-destqp"],
  ["load-balancing/ring/lbn.yaml", "load-balancing/ring/lbn"],
  ["load-balancing/ring/lbn-enhanced.yaml", "load-balancing/ring/lbn-enhanced"],
  ["load-balancing/ring/dlb-eligibility.yaml", "load-balancing/ring/dlb-eligibility"],
  ["load-balancing/ring/dlb-fixed.yaml", "load-balancing/ring/dlb-fixed"],
  ["load-balancing/ring/spray.yaml", "load-balancing/ring/spray"],
  ["load-balancing/ring/spray-reorder.yaml", "load-balancing/ring/spray-reorder"],
  ["load-balancing/perm/ecmp.yaml", "load-balancing/perm/ecmp"],
  ["load-balancing/perm/ecmp-destqp.yaml", "load-balancing/perm/ecmp-destqp"],
  ["load-balancing/perm/lbn.yaml", "load-balancing/perm/lbn"],
  ["load-balancing/perm/lbn-enhanced.yaml", "load-balancing/perm/lbn-enhanced"],
  ["load-balancing/perm/dlb-eligibility.yaml", "load-balancing/perm/dlb-eligibility"],
  ["load-balancing/perm/dlb-fixed.yaml", "load-balancing/perm/dlb-fixed"],
  ["load-balancing/perm/spray.yaml", "load-balancing/perm/spray"],
  ["load-balancing/perm/spray-reorder.yaml", "load-balancing/perm/spray-reorder"],
  ["load-balancing/fail/ecmp.yaml", "load-balancing/fail/ecmp"],
  ["load-balancing/fail/ecmp-destqp.yaml", "load-balancing/fail/ecmp-destqp"],
  ["load-balancing/fail/lbn.yaml", "load-balancing/fail/lbn"],
  ["load-balancing/fail/lbn-enhanced.yaml", "load-balancing/fail/lbn-enhanced"],
  ["load-balancing/fail/dlb-eligibility.yaml", "load-balancing/fail/dlb-eligibility"],
  ["load-balancing/fail/dlb-fixed.yaml", "load-balancing/fail/dlb-fixed"],
  ["load-balancing/fail/spray.yaml", "load-balancing/fail/spray"],
  ["load-balancing/fail/spray-reorder.yaml", "load-balancing/fail/spray-reorder"],
  ["ipcc/incast16-dcqcn.yaml", "ipcc/incast16-dcqcn"],
  ["ipcc/incast16-ipcc.yaml", "ipcc/incast16-ipcc"],
  ["ipcc/incast16-both.yaml", "ipcc/incast16-both"],
  ["ipcc/incast16-cold-dcqcn.yaml", "ipcc/incast16-cold-dcqcn"],
  ["ipcc/incast16-cold-ipcc.yaml", "ipcc/incast16-cold-ipcc"],
  ["ipcc/incast16-cold-both.yaml", "ipcc/incast16-cold-both"],
  ["ipcc/bystanders-dcqcn.yaml", "ipcc/bystanders-dcqcn"],
  ["ipcc/bystanders-ipcc.yaml", "ipcc/bystanders-ipcc"],
  ["ipcc/bystanders-both.yaml", "ipcc/bystanders-both"],
  ["ai-ecn/aggressive.yaml", "ai-ecn/aggressive"],
  ["ai-ecn/balanced.yaml", "ai-ecn/balanced"],
  ["ai-ecn/conservative.yaml", "ai-ecn/conservative"],
  ["ai-ecn/local.yaml", "ai-ecn/local"],
  ["ai-ecn/central.yaml", "ai-ecn/central"],
  ["pfc-deadlock/loop-no-watchdog.yaml", "pfc-deadlock/loop-no-watchdog"],
  ["pfc-deadlock/loop-watchdog-drop.yaml", "pfc-deadlock/loop-watchdog-drop"],
  ["pfc-deadlock/loop-stale-route.yaml", "pfc-deadlock/loop-stale-route"],
  ["pfc-deadlock/loop-watchdog-forward.yaml", "pfc-deadlock/loop-watchdog-forward"],
  ["pfc-deadlock/loop-prevention.yaml", "pfc-deadlock/loop-prevention"],
  ["pfc-deadlock/storm-no-watchdog.yaml", "pfc-deadlock/storm-no-watchdog"],
  ["pfc-deadlock/storm-watchdog.yaml", "pfc-deadlock/storm-watchdog"],
  ["default-incast.yaml", "default-incast"],
];

function firstDifference(a, b, path = "") {
  if (typeof a !== typeof b) return `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  if (a === null || b === null || typeof a !== "object") {
    return Object.is(a, b) ? null : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const d = firstDifference(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

const filter = process.argv[2];
const work = mkdtempSync(join(tmpdir(), "rocelab-exp-"));
let failed = 0;
try {
  for (const [file, dir] of EXPERIMENTS) {
    if (filter && !file.includes(filter)) continue;
    const out = join(work, dir.replaceAll("/", "-"));
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      [join(root, "dist", "main/cli.js"), "run", join(exp, file), "--runtime", "sim", "--out", out],
      { encoding: "utf8" },
    );
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (r.status !== 0) {
      failed++;
      console.log(`FAIL ${file}: exit ${r.status}\n${r.stderr}`);
      continue;
    }
    const want = JSON.parse(readFileSync(join(exp, dir, "report.json"), "utf8"));
    const got = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    let diff =
      firstDifference(want.summary, got.summary, "summary") ??
      firstDifference(want.flows, got.flows, "flows");
    if (!diff) {
      for (const f of readdirSync(join(exp, dir)).filter((n) => n.endsWith(".csv"))) {
        const w = readFileSync(join(exp, dir, f), "utf8");
        let g;
        try {
          g = readFileSync(join(out, f), "utf8");
        } catch {
          diff = `${f}: not written`;
          break;
        }
        if (w !== g) {
          const wl = w.split("\n");
          const gl = g.split("\n");
          const i = wl.findIndex((line, n) => line !== gl[n]);
          diff = `${f} line ${i + 1}: ${JSON.stringify(wl[i])} != ${JSON.stringify(gl[i])}`;
          break;
        }
      }
    }
    if (diff) {
      failed++;
      console.log(`FAIL ${file} (${secs} s): ${diff}`);
    } else {
      console.log(`ok   ${file} (${secs} s)`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed > 0 ? 1 : 0);
