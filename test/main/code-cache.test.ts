// The CLI and the live device process start from V8's code cache (src/main/code-cache-entry.ts): set-up
// leaves a cache made from the very bytes of each CommonJS bundle, and a process that starts from it can
// still load the ES-only packages the bundle imports on demand — V8 drops Node's dynamic-import callback
// from a deserialised script, which once broke every chart (`rocelab plot`, `compare`) while `run` kept
// working. A cache made from other bytes, or one V8 refuses, is never used, and the program runs anyway.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { ensureBuilt } from "../helpers/built.js";
import { rocelab } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const BUNDLE = "dist/bundle/main/cli.cjs";

t.test("set-up leaves a cache for the bundle's exact bytes", async (t) => {
  await ensureBuilt();
  t.ok(existsSync(`${BUNDLE}.cache`), "cli.cjs.cache exists");
  const cache = readFileSync(`${BUNDLE}.cache`);
  const hash = createHash("sha256").update(readFileSync(BUNDLE)).digest();
  t.ok(hash.equals(cache.subarray(0, 32)), "its first 32 bytes are the SHA-256 of cli.cjs");
  t.ok(cache.length > 100_000, `V8's data follows (${cache.length} bytes)`);
});

t.test("the device process has its cache too, and both bundles are plain ASCII", async (t) => {
  await ensureBuilt();
  const device = "dist/bundle/main/device-main.cjs";
  const cache = readFileSync(`${device}.cache`);
  t.ok(createHash("sha256").update(readFileSync(device)).digest().equals(cache.subarray(0, 32)));
  for (const file of [BUNDLE, device]) {
    const bytes = readFileSync(file);
    t.equal(
      bytes.findIndex((b) => b > 0x7f),
      -1,
      `${file}: no byte outside ASCII (decoded at every start)`,
    );
  }
});

/**
 * Runs a cached entry (`loader`, the bundle's entry file) with the cache report on, outside the test
 * runner's coverage: the bundle's source map names every package it bundles (zod, yaml, execa …), and their
 * code would count as this project's uncovered statements (the suite's figure fell from 91.9 to 68.7 %). The
 * program's own code is covered by the tests that import it.
 */
function start(loader: string, args: readonly string[]) {
  // Through env(1): the runner's child_process hooks would put the coverage variables back.
  return execa("env", ["-u", "NODE_OPTIONS", "-u", "NODE_V8_COVERAGE", process.execPath, loader, ...args], {
    reject: false,
    env: { ROCELAB_CODE_CACHE_REPORT: "1" },
    extendEnv: true,
  });
}

t.test("a device process and a lab's supervisor start from their caches", async (t) => {
  await ensureBuilt();
  const r = await start("dist/bundle/main/device-main.js", []);
  t.equal(r.exitCode, 2, "no supervisor: usage, status 2");
  t.match(r.stderr, /code cache: device-main\.cjs: used/);
  t.match(r.stderr, /started by the rocelab supervisor/);
  const s = await start("dist/bundle/main/supervisor-main.js", []);
  t.equal(s.exitCode, 2, "no lab: usage, status 2");
  t.match(s.stderr, /code cache: supervisor-main\.cjs: used/);
  t.match(s.stderr, /started by `rocelab up`/);
});

t.test("a stale cache is rejected and the program still runs", async (t) => {
  await ensureBuilt();
  const dir = tempDir("rocelab-stale-cache-");
  for (const name of ["device-main.js", "device-main.cjs", "cli.js", "cli.cjs"])
    copyFileSync(join("dist/bundle/main", name), join(dir, name));
  // The CLI finds its checkout by the nearest package.json above it.
  copyFileSync("package.json", join(dir, "package.json"));
  // The CLI's cache beside the device bundle: V8 would take it (it checks only the length), the hash not.
  copyFileSync(`${BUNDLE}.cache`, join(dir, "device-main.cjs.cache"));
  const stale = await start(join(dir, "device-main.js"), []);
  t.match(stale.stderr, /code cache: device-main\.cjs: stale/);
  t.match(stale.stderr, /started by the rocelab supervisor/, "the program ran all the same");
  t.equal(stale.exitCode, 2);
  // The right hash over data V8 refuses (another V8 or other flags would look the same to the loader).
  const hash = createHash("sha256").update(readFileSync(BUNDLE)).digest();
  writeFileSync(join(dir, "cli.cjs.cache"), Buffer.concat([hash, Buffer.alloc(4096, 0x5a)]));
  const refused = await start(join(dir, "cli.js"), ["--help"]);
  t.match(refused.stderr, /code cache: cli\.cjs: rejected by V8/);
  t.equal(refused.exitCode, 0, refused.stderr);
  t.match(refused.stdout, /Usage: rocelab/);
  // No cache at all.
  rmSync(join(dir, "cli.cjs.cache"));
  const none = await start(join(dir, "cli.js"), ["--help"]);
  t.match(none.stderr, /code cache: cli\.cjs: none/);
  t.equal(none.exitCode, 0, none.stderr);
});

t.test("a cached start still imports ES-only packages on demand: plot draws with vega", async (t) => {
  const dir = tempDir("rocelab-code-cache-");
  const out = join(dir, "run");
  const run = await rocelab([
    "run",
    "docs/experiments/default-incast.yaml",
    "--runtime",
    "sim",
    "--out",
    out,
  ]);
  t.equal(run.exitCode, 0, run.stderr);
  const plot = await rocelab(["plot", out]);
  t.equal(plot.exitCode, 0, plot.stderr);
  t.notMatch(plot.stderr, /DYNAMIC_IMPORT/);
  t.match(readFileSync(join(out, "plots", "goodput.svg"), "utf8"), /<svg/, "goodput.svg is an SVG");
});
