// Bundles the compiled entry points (dist/*.js, from tsc) into dist/bundle/ with esbuild: the `rocelab`
// command, every process a live lab starts, the tuner's worker. Each entry becomes one file plus a few
// chunks it shares with the others (code splitting), so starting a process loads ~10 modules instead of
// ~500 (our ~280 and execa's, zod's and yaml's). Module resolution, stat and compile of those files were
// most of a process's start-up: `rocelab --help` took 0.7 s of CPU, a device process 0.3 s, 13 of them at
// `rocelab up` on two cores (docs/performance.md, "Start-up"). What the bundle leaves out, and so loads from node_modules as before:
// the native packages (cap, raw-socket, whose .node files esbuild cannot carry), the large CommonJS
// libraries that only one command needs and imports on first use (vega, vega-lite, prom-client), and the
// TUI's ink and react (loaded with the dashboard).
//
//   node scripts/bundle.mjs          (scripts/setup runs it after tsc)

import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Entry points, relative to dist/; each is written to the same relative path under dist/bundle/. */
export const ENTRIES = [
  "main/cli.js",
  "main/device-main.js",
  "main/udp-tool.js",
  "main/trace-tool.js",
  "main/supervisor-main.js",
  "main/attach-main.js",
  "main/device-entry-main.js",
  "main/tune-worker.js",
  "main/compare-worker.js",
];

/** Loaded from node_modules at run time (see above). */
export const EXTERNAL = [
  "cap",
  "raw-socket",
  "vega",
  "vega-lite",
  "prom-client",
  "ink",
  "ink-*",
  "react",
  "react/*",
  "react-devtools-core",
  "yoga-layout",
];

export async function bundle(root) {
  const esbuild = await import(join(root, "node_modules", "esbuild", "lib", "main.js"));
  const dist = join(root, "dist");
  const outdir = join(dist, "bundle");
  const missing = ENTRIES.filter((e) => !existsSync(join(dist, e)));
  if (missing.length > 0) throw new Error(`not compiled yet: ${missing.map((e) => `dist/${e}`).join(", ")}`);
  rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: ENTRIES.map((e) => join(dist, e)),
    outbase: dist,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    // CommonJS packages in the bundle (commander, cross-spawn) call require() for Node's built-ins; an
    // ES module has no `require`, so each output file makes one.
    banner: {
      js: 'import { createRequire as __rocelabCreateRequire } from "node:module"; const require = __rocelabCreateRequire(import.meta.url);',
    },
    // No minification: names and lines stay readable. Source maps (esbuild follows the ones tsc wrote
    // beside dist/*.js) lead back to src/*.ts: for stack traces under --enable-source-maps, and for the
    // test suite's coverage, which maps what a bundled process runs with coverage on back to the src/
    // lines it came from (without them each chunk counted as an uncovered file of its own).
    minify: false,
    sourcemap: "linked",
    keepNames: false,
    legalComments: "none",
    logLevel: "warning",
  });
}

/**
 * The tooling under scripts/ (benchmarks, fuzzers), which is not part of the product: bundled straight from
 * its TypeScript (type-checked by `npm run check` with scripts/tsconfig.json) into dist/tools/, one file per
 * module so that the benchmark launcher's `import("./name.js")` finds each benchmark, with the chunks they
 * share. The benchmarks and fuzzers start processes from it in lab namespaces (frame-generator.js,
 * live-injector.js).
 */
export async function bundleTools(root) {
  const esbuild = await import(join(root, "node_modules", "esbuild", "lib", "main.js"));
  const scripts = join(root, "scripts");
  const entries = ["bench", "fuzz"].flatMap((dir) =>
    readdirSync(join(scripts, dir))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(scripts, dir, f)),
  );
  const outdir = join(root, "dist", "tools");
  rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries,
    outbase: scripts,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    banner: {
      js: 'import { createRequire as __rocelabCreateRequire } from "node:module"; const require = __rocelabCreateRequire(import.meta.url);',
    },
    sourcemap: "linked",
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  await bundle(root);
  await bundleTools(root);
}
