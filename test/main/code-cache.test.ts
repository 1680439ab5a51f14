// The CLI starts from V8's code cache (src/main/code-cache-entry.ts): set-up leaves a cache made from the
// very bytes of the CommonJS bundle, and a process that starts from it can still load the ES-only packages
// the bundle imports on demand — V8 drops Node's dynamic-import callback from a deserialised script, which
// once broke every chart (`rocelab plot`, `compare`) while `run` kept working.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
