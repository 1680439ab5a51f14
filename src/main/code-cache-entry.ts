// A bundled entry point started from V8's code cache. scripts/bundle.mjs copies this file to the entry's
// place (dist/bundle/main/cli.js, dist/bundle/main/device-main.js) and bundles the program beside it as one
// CommonJS file (cli.cjs); set-up runs it once (the CLI on a small scenario, a device process up to where
// it would wait for its supervisor) and keeps what V8 compiled in cli.cjs.cache. A process then
// deserialises the bytecode instead of parsing and compiling ~2.6 MB of JavaScript, module by module,
// function by function as each is first called: measured in docs/performance.md ("Start-up"). Node 20 has
// no compile cache for ES modules (module.enableCompileCache is Node 22), hence `vm.Script` with
// `cachedData` over a CommonJS bundle, which is what the cache API takes.
//
// The cache is used only when it was made from these very bytes (its first 32 bytes are the SHA-256 of the
// bundle): V8 itself checks only the source's length, its own version and its flags. Without a cache, with
// one for other bytes, or one V8 rejects (other flags), the bundle is compiled as usual: slower, never
// different. With ROCELAB_CODE_CACHE_REPORT=1 the process says on stderr which of these it was (tests).
// Only node: built-ins here; this file is not bundled.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { constants, Script } from "node:vm";

/** Bytes of the SHA-256 of the bundle at the start of a cache file. */
const HASH_BYTES = 32;

/**
 * Set-up's request (scripts/setup): write what V8 compiled during this run, prefixed with the bundle's
 * hash, to this new file when the process exits. Never an existing file or a link: `wx` fails on both.
 */
const WRITE_TO = process.env.ROCELAB_CODE_CACHE_OUT;

/**
 * Commands of the CLI that load ES-only packages (`tui`: ink and react, which `require` cannot load) run
 * the entry's ES-module build (`cli-esm.js`, the same program in chunks) instead: the CommonJS bundle
 * leaves them out.
 */
const ESM_COMMANDS = ["tui"];

/** Set to "1" to have the process say whether it started from the cache (`reportCache`). */
const REPORT = process.env.ROCELAB_CODE_CACHE_REPORT === "1";

/**
 * The bundle's `import()` of packages (see scripts/bundle.mjs): made here, in a real ES module, because a
 * script deserialised from a code cache has lost Node's dynamic-import callback (Node 20).
 */
(globalThis as Record<symbol, unknown>)[Symbol.for("rocelab.import")] = (specifier: string) =>
  import(specifier);

const self = fileURLToPath(import.meta.url);
if (basename(self) === "cli.js" && process.argv.slice(2).some((a) => ESM_COMMANDS.includes(a))) {
  await import(pathToFileURL(self.replace(/\.js$/, "-esm.js")).href);
} else {
  runCached(self.replace(/\.js$/, ".cjs"));
}

/** Compiles (or deserialises) the CommonJS bundle `file` and runs it as Node's CommonJS loader would. */
function runCached(file: string): void {
  const bytes = readFileSync(file);
  const hash = createHash("sha256").update(bytes).digest();
  let cachedData: Buffer | undefined;
  let state = "none";
  try {
    const cache = readFileSync(`${file}.cache`);
    if (cache.length > HASH_BYTES && hash.equals(cache.subarray(0, HASH_BYTES))) {
      cachedData = cache.subarray(HASH_BYTES);
    } else {
      state = "stale (made from other bytes)";
    }
  } catch {
    // No cache: compile.
  }

  // CommonJS's wrapper, on the bundle's first line so that line numbers in stack traces stay the bundle's.
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${bytes.toString("utf8")}\n})`,
    {
      filename: file,
      ...(cachedData !== undefined ? { cachedData } : {}),
      // `import()` of the packages the bundle leaves out (vega, vega-lite, prom-client) resolves as from an
      // ES module.
      importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    },
  );
  if (cachedData !== undefined) state = script.cachedDataRejected === true ? "rejected by V8" : "used";
  if (REPORT) process.stderr.write(`code cache: ${basename(file)}: ${state}\n`);
  if (WRITE_TO !== undefined && WRITE_TO !== "") {
    process.once("exit", () => {
      writeFileSync(WRITE_TO, Buffer.concat([hash, script.createCachedData()]), { flag: "wx", mode: 0o644 });
    });
  }
  const cjsModule = { exports: {}, filename: file, id: file };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    cjsModule.exports,
    cjsModule.exports,
    createRequire(file),
    cjsModule,
    file,
    dirname(file),
  );
}
