// Checks the source tree against the rules of docs/architecture.md, so that they hold without anyone
// having to remember them (`npm test` runs this before tap; it prints nothing when all is well):
//   1. No import circle between source files (type-only imports count: a circle of types is still a
//      circle a reader has to untangle).
//   2. Imports point down the layers of docs/architecture.md ("Dependency direction"), never up; folders
//      of one layer may import each other without forming a circle, except the pairs that must never meet
//      (the switch and the NIC meet only on the wire; the two runtimes, and the simulated and the live lab,
//      do not import each other).
//   3. No source file over MAX_LINES lines.
// Dependency-free (Node built-ins only); imports are read as text, as `import … from "./x.js"`,
// `export … from`, `import("./x.js")` and bare `import "./x.js"`.
//
//   node scripts/check-structure.mjs [--json]

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Top to bottom; a folder imports only folders of its own layer or below. */
export const LAYERS = [
  ["main"],
  ["cli"],
  ["tui"],
  ["run"],
  ["control", "report", "export", "lint", "verify"],
  ["lab"],
  ["scenario", "metrics"],
  ["runtime"],
  ["switch", "nic"],
  ["lb"],
  ["device"],
  ["wire"],
];

/** Pairs of folders (paths under src/) that never import each other, in either direction. */
export const APART = [
  ["switch", "nic"],
  ["runtime/sim", "runtime/realtime"],
  ["lab/sim", "lab/live"],
];

export const MAX_LINES = 400;

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)|(?:^|[\s;])import\s+["'](\.[^"']+)["']/g;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function resolveImport(from, spec, known) {
  const base = normalize(join(dirname(from), spec)).replace(/\.(js|jsx|ts|tsx)$/, "");
  for (const cand of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) if (known.has(cand)) return cand;
  return null;
}

/** The file-level import graph of src/: path relative to src/ -> paths it imports. */
export function importGraph(srcDir = join(root, "src")) {
  const files = walk(srcDir).map((p) => relative(srcDir, p).split(sep).join("/"));
  const known = new Set(files);
  const graph = new Map();
  const lines = new Map();
  for (const f of files) {
    const text = readFileSync(join(srcDir, f), "utf8");
    lines.set(f, text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
    const deps = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(f, m[1] ?? m[2] ?? m[3], known);
      if (target !== null && target !== f) deps.add(target);
    }
    graph.set(f, [...deps]);
  }
  return { graph, lines };
}

/** Strongly connected components of more than one node (Tarjan), each sorted. */
export function circles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const topFolder = (f) => (f.includes("/") ? f.slice(0, f.indexOf("/")) : "");
const layerOf = (folder) => LAYERS.findIndex((l) => l.includes(folder));
const under = (f, folder) => f === folder || f.startsWith(`${folder}/`);

/** Every rule broken, as one sentence each. */
export function findProblems({ graph, lines }) {
  const problems = [];
  for (const [f, n] of lines) {
    if (n > MAX_LINES) problems.push(`${f} has ${n} lines (at most ${MAX_LINES}: split it by role)`);
  }
  for (const f of graph.keys()) {
    const folder = topFolder(f);
    if (layerOf(folder) < 0) problems.push(`${f} is in no layer of the architecture (folder "${folder}")`);
  }
  const folderEdges = new Map();
  for (const [from, deps] of graph) {
    const a = topFolder(from);
    for (const to of deps) {
      const b = topFolder(to);
      for (const [x, y] of APART) {
        if ((under(from, x) && under(to, y)) || (under(from, y) && under(to, x))) {
          problems.push(`${from} imports ${to}: ${x} and ${y} never import each other`);
        }
      }
      if (a === b) continue;
      const la = layerOf(a);
      const lb = layerOf(b);
      if (la < 0 || lb < 0) continue;
      if (lb < la) problems.push(`${from} imports ${to}: ${a} may not import ${b}, a layer above it`);
      else if (la === lb) {
        if (!folderEdges.has(a)) folderEdges.set(a, []);
        folderEdges.get(a).push(b);
      }
    }
  }
  for (const c of circles(folderEdges))
    problems.push(`folders ${c.join(", ")} import each other in a circle`);
  for (const c of circles(graph)) problems.push(`import circle of ${c.length} files: ${c.join(", ")}`);
  return [...new Set(problems)];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problems = findProblems(importGraph());
  if (process.argv.includes("--json")) process.stdout.write(`${JSON.stringify(problems, null, 1)}\n`);
  else for (const p of problems) process.stderr.write(`structure: ${p}\n`);
  if (problems.length > 0) {
    process.stderr.write(`structure: ${problems.length} problem(s); the rules are in docs/architecture.md\n`);
    process.exit(1);
  }
}
