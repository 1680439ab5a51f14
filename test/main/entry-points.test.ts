// The bundled entry points (scripts/bundle.mjs) and the paths the lab starts its processes from: every
// entryPath(...) the sources use is an entry the bundle builds, set-up built it, and the bundle starts
// without the ~500 modules of the compiled tree.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { execa } from "execa";
import t from "tap";
import { distPath, entryPath } from "../../src/lab/live/paths.js";
import { projectRoot } from "../../src/runtime/realtime/project-root.js";
import { restoreEnvAfter } from "../helpers/env.js";

const ENTRIES: readonly string[] = (
  (await import(join(projectRoot(), "scripts", "bundle.mjs"))) as { ENTRIES: string[] }
).ENTRIES;

t.test("entryPath is under dist/bundle/, and the compiled tree with ROCELAB_BUNDLE=0", async (t) => {
  restoreEnvAfter(t, "ROCELAB_BUNDLE");
  delete process.env.ROCELAB_BUNDLE;
  t.equal(relative(projectRoot(), entryPath("main/cli.js")), join("dist", "bundle", "main", "cli.js"));
  process.env.ROCELAB_BUNDLE = "0";
  t.equal(entryPath("main/device-main.js"), distPath("main/device-main.js"));
  t.ok(existsSync(join(projectRoot(), "package.json")), "the project root holds package.json");
});

t.test("every entry point the sources start is bundled, and set-up built it", async (t) => {
  const used = new Set<string>();
  const src = join(projectRoot(), "src");
  const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f));
  for (const f of files)
    for (const m of readFileSync(join(src, f), "utf8").matchAll(/entryPath\("([^"]+)"\)/g)) used.add(m[1]!);
  t.ok(used.has("main/device-main.js"), "the scan finds the device processes' entry");
  t.ok(used.has("main/supervisor-main.js"), "and the supervisor's");
  for (const e of used) t.ok(ENTRIES.includes(e), `${e} is one of scripts/bundle.mjs's ENTRIES`);
  for (const e of ENTRIES) {
    t.ok(existsSync(distPath(e)), `dist/${e} (its input) exists`);
    t.ok(existsSync(join(projectRoot(), "dist", "bundle", e)), `dist/bundle/${e} exists`);
  }
  const bin = readFileSync(join(projectRoot(), "bin", "rocelab.js"), "utf8");
  t.match(bin, /dist\/bundle\/main\/cli\.js/, "bin/rocelab.js runs the bundled CLI");
});

t.test("the bundled CLI runs, and loads a handful of modules where the tree loads hundreds", async (t) => {
  // A module-load hook that prints each file: URL it loads (Node's module.register, Node 20.6+).
  const dir = mkdtempSync(join(tmpdir(), "rocelab-entry-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, "hooks.mjs"),
    'export async function load(u, c, next) { if (u.startsWith("file:")) process.stderr.write("LOAD " + u + "\\n"); return next(u, c); }\n',
  );
  writeFileSync(
    join(dir, "register.mjs"),
    'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
  );
  const hook = join(dir, "register.mjs");
  const count = async (file: string) => {
    // Outside the suite's coverage: these processes measure loading, and every module they load would
    // count as covered-or-not without any of it being exercised.
    const r = await execa(
      "env",
      ["-u", "NODE_OPTIONS", "-u", "NODE_V8_COVERAGE", process.execPath, "--import", hook, file, "--help"],
      {
        reject: false,
      },
    );
    t.equal(r.exitCode, 0, `${file} --help exits 0`, { stderr: r.stderr.slice(-2000) });
    t.match(r.stdout, /Usage: rocelab/);
    return r.stderr.split("\n").filter((l) => l.startsWith("LOAD ")).length;
  };
  const bundled = await count(entryPath("main/cli.js"));
  const tree = await count(distPath("main/cli.js"));
  t.ok(bundled > 0 && bundled < 60, `the bundle loads ${bundled} files (< 60)`);
  t.ok(tree > 5 * bundled, `the tree loads ${tree}, more than 5x as many`);
});
