// Bundles the compiled entry points (dist/*.js, from tsc) into dist/bundle/ with esbuild: the `rocelab`
// command, every process a live lab starts, the tuner's worker. Each entry becomes one file plus a few
// chunks it shares with the others (code splitting), so starting a process loads ~10 modules instead of
// ~500 (our ~280 and execa's, zod's and yaml's). Module resolution, stat and compile of those files were
// most of a process's start-up: `rocelab --help` took 0.7 s of CPU, a device process 0.3 s, 13 of them at
// `rocelab up` on two cores (docs/performance.md, "Start-up"). What the bundle leaves out, and so loads from node_modules as before:
// the native packages (cap, raw-socket, whose .node files esbuild cannot carry), the large CommonJS
// libraries that only one command needs and imports on first use (vega, vega-lite, svgo, prom-client), and the
// TUI's ink and react (loaded with the dashboard).
//
//   node scripts/bundle.mjs          (scripts/setup runs it after tsc)

import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
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
  "main/sim-worker.js",
];

/**
 * Entries started from V8's code cache (src/main/code-cache-entry.ts): entry -> the module of dist/ whose
 * `main(process.argv)` it runs (`program`), and how set-up runs it once to make the cache (`warmUp`: its
 * arguments, or null for the small scenario set-up gives; `status`: the exit status that run ends with).
 * Each is bundled on its own as one CommonJS file (`cli.cjs`), the entry's own path becomes the small
 * loader, and set-up (`writeCodeCache`) keeps what V8 compiled during that run, in `cli.cjs.cache`. A
 * `rocelab run` of a small scenario spends 25-30 % less CPU in start-up; a device process and a lab's
 * supervisor, run without what starts them so that they load the whole program and stop (status 2), cache
 * their start-up (docs/performance.md, "Start-up").
 */
export const CACHED = {
  "main/cli.js": { program: "main/cli-program.js", warmUp: null, status: 0 },
  "main/device-main.js": { program: "main/device-program.js", warmUp: [], status: 2 },
  "main/supervisor-main.js": { program: "main/supervisor-program.js", warmUp: [], status: 2 },
};

/** The loader's compiled file under dist/, copied to the place of each cached entry. */
const CACHE_LOADER = "main/code-cache-entry.js";

/** Loaded from node_modules at run time (see above). */
export const EXTERNAL = [
  "cap",
  "raw-socket",
  "vega",
  "vega-lite",
  "svgo",
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
    // A cached entry's ES-module build keeps its path with "-esm": its loader runs it for the commands
    // that load ES-only packages (code-cache-entry.ts).
    entryPoints: ENTRIES.map((e) =>
      e in CACHED ? { in: join(dist, e), out: e.replace(/\.js$/, "-esm") } : join(dist, e),
    ),
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
  for (const [entry, { program }] of Object.entries(CACHED))
    await bundleCached(esbuild, dist, entry, program);
}

/**
 * A cached entry (CACHED): the program as one CommonJS file with everything it imports (no chunks: the
 * loader compiles one script), and the loader at the entry's path. `import.meta.url` becomes the bundle's
 * own file URL, which is what the modules that use it (project-root.ts, native.ts) expect of it.
 */
async function bundleCached(esbuild, dist, entry, program) {
  const outfile = join(dist, "bundle", entry.replace(/\.js$/, ".cjs"));
  await esbuild.build({
    stdin: {
      contents: `import { main } from ${JSON.stringify(`./${basename(program)}`)};\nvoid main(process.argv);\n`,
      resolveDir: join(dist, dirname(program)),
      sourcefile: `${entry.replace(/\.js$/, "")}-cached-entry.js`,
      loader: "js",
    },
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    // The dashboard (tui/) imports ink and react, ES modules that `require` cannot load: the loader runs
    // the ES-module build for `tui`, and here its dynamic imports stay imports of files that do not exist
    // beside this bundle, so that nothing else can reach it unnoticed.
    plugins: [
      {
        name: "tui-stays-esm",
        setup(build) {
          build.onResolve({ filter: /^\.\.\/tui\// }, (a) =>
            a.kind === "dynamic-import" ? { path: a.path, external: true } : undefined,
          );
        },
      },
    ],
    define: { "import.meta.url": "__rocelabImportMetaUrl" },
    banner: {
      js:
        'var __rocelabImportMetaUrl = require("node:url").pathToFileURL(__filename).href;\n' +
        'var __rocelabImport = (specifier) => globalThis[Symbol.for("rocelab.import")](specifier);',
    },
    minify: false,
    sourcemap: "linked",
    keepNames: false,
    legalComments: "none",
    logLevel: "warning",
  });
  // A script V8 deserialised from a code cache has lost the callback Node gives `import()` (Node 20:
  // ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING, with or without importModuleDynamically), so the bundle's
  // dynamic imports of packages (vega, vega-lite, prom-client: ES modules `require` cannot load) call the
  // loader's `import()` instead, which a real ES module makes. Same line, same specifier.
  //
  // Then every character outside ASCII becomes its \u escape. esbuild escapes them in strings, regular
  // expressions and names already (its default `charset: "ascii"`) but keeps the comments it keeps as they
  // are (α, µs, —); one of them makes the whole 2.6 MB a two-byte string, which the loader decodes at every
  // start at twice the CPU of ASCII (26 against 13 ms for the CLI on this project's machine) and V8 holds
  // at twice the size. An escape means the same character in every place such a character can be
  // (comment, string, template, regular expression, name); only the columns of a source map shift, on the
  // few comment lines that have one.
  const code = readFileSync(outfile, "utf8")
    .replace(/(?<![\w$.])import\("([^".][^"]*)"\)/g, '__rocelabImport("$1")')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  writeFileSync(outfile, code);
  await esbuild.build({
    entryPoints: [join(dist, CACHE_LOADER)],
    outfile: join(dist, "bundle", entry),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: false,
    legalComments: "none",
    logLevel: "warning",
  });
}

/**
 * Runs each cached entry once, as set-up's last step, on its `warmUp` arguments (the CLI on `args`: a small
 * scenario through the simulator, so that what V8 compiles covers start-up, the scenario and the
 * simulator's hot code), and keeps what V8 compiled beside its bundle. The cache is written into a fresh temporary directory by the process, then
 * copied as a new file next to its destination and renamed over it: no step follows a link. Returns what
 * went wrong, or null; without a cache the CLI compiles as before.
 */
export async function writeCodeCache(root, args) {
  const { spawnSync } = await import("node:child_process");
  const { mkdtempSync, readFileSync, renameSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const scratch = mkdtempSync(join(tmpdir(), "rocelab-code-cache-"));
  try {
    for (const [entry, { warmUp, status }] of Object.entries(CACHED)) {
      const made = join(scratch, "cache");
      const env = { ...process.env, ROCELAB_CODE_CACHE_OUT: made };
      delete env.NODE_OPTIONS;
      delete env.NODE_V8_COVERAGE;
      const file = join(root, "dist", "bundle", entry);
      const runArgs = warmUp ?? [...args, "--out", join(scratch, "out")];
      const r = spawnSync(process.execPath, [file, ...runArgs], {
        cwd: root,
        env,
        encoding: "utf8",
        // A device process's warm-up must not find the IPC channel it would wait on.
        stdio: ["ignore", "pipe", "pipe"],
      });
      if (r.status !== status)
        return `${entry} ${runArgs.join(" ")} exited ${r.status}: ${(r.stderr ?? "").slice(-500)}`;
      const dest = join(root, "dist", "bundle", `${entry.replace(/\.js$/, ".cjs")}.cache`);
      const temp = `${dest}.${process.pid}.new`;
      writeFileSync(temp, readFileSync(made), { flag: "wx", mode: 0o644 });
      renameSync(temp, dest);
      rmSync(made);
    }
    return null;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
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
