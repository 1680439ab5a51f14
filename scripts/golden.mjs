// The goldens of the committed simulator experiments, under test/golden/: one JSON file per experiment, named
// after the directory its run writes into under docs/experiments/ (test/golden/incast/pfc.json for the run
// in docs/experiments/incast/pfc/). Each holds what a re-run must reproduce exactly:
//   scenario   the scenario file, relative to docs/experiments/
//   summary    the report's summary
//   flowFields, flows   every flow of the report, one row per flow (the values in flowFields' order)
//   files      every other file the run writes (the CSV time series, events.jsonl): size and SHA-256 of
//              its bytes as `rocelab run` writes them at the scenario's own sample interval
// scripts/check-experiments.mjs re-runs them all and compares everything; test/lab/experiments*.test.ts
// compare summary and flows in-process; scripts/run-experiments.mjs regenerates the full results (report,
// CSVs, events, plots) that the goldens stand for. Dependency-free (Node built-ins only).

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const GOLDEN_DIR = join(ROOT, "test", "golden");
export const EXPERIMENTS_DIR = join(ROOT, "docs", "experiments");

/** Every golden: its name (the run directory under docs/experiments/) and file, sorted by name. */
export function listGoldens(dir = GOLDEN_DIR) {
  const found = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".json"))
        found.push({ name: relative(dir, p).slice(0, -5).split(sep).join("/"), file: p });
    }
  };
  walk(dir);
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The golden's file for the run directory `name` (e.g. "incast/pfc"). */
export function goldenFile(name, dir = GOLDEN_DIR) {
  return join(dir, ...name.split("/")) + ".json";
}

/** Reads a golden; flows come back as objects, as in a report. Throws naming the file if malformed. */
export function readGolden(file) {
  const g = JSON.parse(readFileSync(file, "utf8"));
  const problem =
    typeof g.scenario !== "string"
      ? "no scenario"
      : typeof g.summary !== "object" || g.summary === null
        ? "no summary"
        : !Array.isArray(g.flowFields) || !Array.isArray(g.flows)
          ? "no flowFields/flows"
          : typeof g.files !== "object" || g.files === null
            ? "no files"
            : null;
  if (problem) throw new Error(`${file}: not a golden (${problem})`);
  const flows = g.flows.map((row, i) => {
    if (!Array.isArray(row) || row.length !== g.flowFields.length)
      throw new Error(`${file}: flows[${i}] has ${row?.length} values for ${g.flowFields.length} fields`);
    return Object.fromEntries(g.flowFields.map((f, k) => [f, row[k]]));
  });
  return { scenario: g.scenario, summary: g.summary, flows, files: g.files };
}

/**
 * A golden as text: the summary and the file digests indented, one line per flow, so that a change shows in
 * a diff as the lines of the flows it changed. Every flow must have the same fields in the same order (a
 * report's flows do): a flow that does not would lose information, so it throws instead.
 */
export function goldenText({ scenario, summary, flows, files }) {
  const fields = flows.length > 0 ? Object.keys(flows[0]) : [];
  const rows = flows.map((f, i) => {
    const keys = Object.keys(f);
    if (keys.length !== fields.length || keys.some((k, n) => k !== fields[n]))
      throw new Error(`flow ${i} has fields ${keys.join(",")}, not ${fields.join(",")}`);
    return `    ${JSON.stringify(fields.map((k) => f[k]))}`;
  });
  const indent = (value) => JSON.stringify(value, null, 2).replaceAll("\n", "\n  ");
  return [
    "{",
    `  "scenario": ${JSON.stringify(scenario)},`,
    `  "summary": ${indent(summary)},`,
    `  "files": {\n${Object.entries(files)
      .map(([name, d]) => `    ${JSON.stringify(name)}: ${JSON.stringify(d)}`)
      .join(",\n")}\n  },`,
    `  "flowFields": ${JSON.stringify(fields)},`,
    rows.length === 0 ? '  "flows": []' : `  "flows": [\n${rows.join(",\n")}\n  ]`,
    "}",
    "",
  ].join("\n");
}

/** Size and SHA-256 of a file's bytes. */
export function digest(path) {
  const bytes = readFileSync(path);
  return { bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** The golden of the run written into `outDir` (report.json and the files it lists). */
export function goldenOfRun(scenario, outDir) {
  const report = JSON.parse(readFileSync(join(outDir, "report.json"), "utf8"));
  const files = {};
  for (const f of Object.values(report.files ?? {}).sort()) files[f] = digest(join(outDir, f));
  return { scenario, summary: report.summary, flows: report.flows, files };
}

export function writeGolden(name, golden, dir = GOLDEN_DIR) {
  const file = goldenFile(name, dir);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, goldenText(golden));
  return file;
}

/** The first difference between two JSON values, as "path: a != b" (golden first), or null. */
export function firstDifference(a, b, path = "") {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b))
    return `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  if (a === null || b === null || typeof a !== "object") {
    return Object.is(a, b) ? null : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  }
  if (Array.isArray(a) && a.length !== b.length) return `${path}: ${a.length} entries != ${b.length}`;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const d = firstDifference(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

/**
 * What differs between a golden and the run written into `outDir`: the first difference of the summary,
 * of the flows, and every file whose bytes differ (or that is missing or new); an empty list when the run
 * reproduces the golden exactly.
 */
export function compareRun(want, outDir) {
  const got = goldenOfRun(want.scenario, outDir);
  const diffs = [];
  const s = firstDifference(want.summary, got.summary, "summary");
  if (s) diffs.push(s);
  const f = firstDifference(want.flows, got.flows, "flows");
  if (f) diffs.push(f);
  for (const name of new Set([...Object.keys(want.files), ...Object.keys(got.files)])) {
    const w = want.files[name];
    const g = got.files[name];
    if (!g) diffs.push(`${name}: not written`);
    else if (!w) diffs.push(`${name}: written, not in the golden`);
    else if (w.sha256 !== g.sha256)
      diffs.push(
        `${name}: ${w.bytes} bytes, sha256 ${w.sha256.slice(0, 12)}… != ` +
          `${g.bytes} bytes, ${g.sha256.slice(0, 12)}…`,
      );
  }
  return diffs;
}
