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
      [join(root, "dist", "cli.js"), "run", join(exp, file), "--runtime", "sim", "--out", out],
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
