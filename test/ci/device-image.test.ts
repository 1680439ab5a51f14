// Dockerfile.device, checked from the files alone (no Docker here): each stage installs exactly the Debian
// packages scripts/requirements.json says it needs, what it copies exists (or is what the build stage
// makes), the entrypoint is the device entrypoint script, and every command that script's device runs
// comes from a package of the device stage.
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import t from "tap";
import { aptPackages, copies, entrypoint, stages } from "../helpers/dockerfile.js";

interface Requirement {
  cmd?: string;
  file?: string;
  pkg: string;
  why: string;
  /** The package a running device container needs for this. */
  device?: string;
  /** Needed to build the device image. */
  deviceBuild?: boolean;
}

const REQUIREMENTS = JSON.parse(readFileSync("scripts/requirements.json", "utf8")) as Requirement[];
const dockerfile = readFileSync("Dockerfile.device", "utf8");
const [build, device] = stages(dockerfile);

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

t.test("two stages: build, then the device image", async (t) => {
  t.equal(stages(dockerfile).length, 2);
  t.equal(build!.name, "build");
  t.equal(device!.name, "");
});

t.test("the build stage installs exactly the packages marked deviceBuild", async (t) => {
  const wanted = sorted(REQUIREMENTS.filter((r) => r.deviceBuild).map((r) => r.pkg));
  t.same(wanted, ["g++", "libpcap-dev", "make", "python3"], "scripts/requirements.json marks them");
  t.same(sorted(aptPackages(build!)), wanted);
});

t.test("the device stage installs exactly the run-time packages marked device", async (t) => {
  const wanted = sorted(REQUIREMENTS.flatMap((r) => (r.device ? [r.device] : [])));
  t.ok(wanted.includes("libpcap0.8"), "the cap binding's run-time library, not its -dev package");
  t.same(sorted(aptPackages(device!)), wanted);
  t.equal(aptPackages(device!).length, wanted.length, "none twice");
  for (const pkg of ["g++", "make", "python3", "libpcap-dev"])
    t.notOk(aptPackages(device!).includes(pkg), `no compiler or headers in the device image: ${pkg}`);
});

t.test("what the stages copy exists in the checkout, or is what the build stage makes", async (t) => {
  const made = new Map<string, string>([
    // tsconfig.build.json's outDir, npm ci's output, native/binding.gyp's target.
    ["/rocelab/dist", "dist"],
    ["/rocelab/node_modules", "node_modules"],
    ["/rocelab/package.json", "package.json"],
    ["/rocelab/native/build/Release/rocelab_native.node", "native/build/Release/rocelab_native.node"],
  ]);
  t.match(JSON.parse(readFileSync("tsconfig.build.json", "utf8")), { compilerOptions: { outDir: "dist" } });
  t.match(readFileSync("native/binding.gyp", "utf8"), /"target_name": "rocelab_native"/);
  for (const stage of [build!, device!]) {
    for (const c of copies(stage)) {
      for (const src of c.sources) {
        if (c.from === null) t.ok(existsSync(src), `${src} is in the checkout (COPY ${src} ${c.dest})`);
        else t.ok(made.has(src), `${src} comes from the ${c.from} stage`);
      }
    }
  }
  t.ok(
    copies(device!).some((c) => c.from === "build" && c.sources.includes("/rocelab/dist")),
    "the device stage takes the built project",
  );
  const ignored = readFileSync(".dockerignore", "utf8").split("\n");
  for (const p of ["node_modules", "dist", "native/build"])
    t.ok(ignored.includes(p), `.dockerignore keeps the checkout's ${p} out: the image builds its own`);
});

t.test("the entrypoint is the device entrypoint script, executable, running the built entry", async (t) => {
  const ep = entrypoint(dockerfile);
  t.same(ep, ["/rocelab/bin/device-entrypoint"]);
  const script = "bin/device-entrypoint";
  t.ok(existsSync(script), `${script} exists`);
  if (!existsSync(script)) return;
  t.ok(statSync(script).mode & 0o100, `${script} is executable`);
  t.doesNotThrow(() => accessSync(script, constants.X_OK));
  const text = readFileSync(script, "utf8");
  t.match(text, /^#!\/usr\/bin\/env bash\n/);
  const entry = /dist\/bundle\/([\w/.-]+\.js)/.exec(text)?.[1];
  t.ok(entry, "it names a bundled entry point, a file of dist/bundle/");
  t.ok(existsSync(`src/${entry!.replace(/\.js$/, ".ts")}`), `whose source src/${entry} exists`);
  t.match(readFileSync("scripts/bundle.mjs", "utf8"), `"${entry}"`, "and that scripts/bundle.mjs bundles");
  t.match(dockerfile, /RUN node scripts\/bundle\.mjs/, "which the build stage runs");
  t.ok(existsSync("bin/rocelab.js"), "rocelab itself is in the image (bin/rocelab.js)");
});

t.test("every command the containerised device runs comes with the device stage", async (t) => {
  // What the device entrypoint runs around the device (interfaces, sysctls, offloads, a gateway ping).
  const sources = ["src/lab/live/device-entry.ts", "src/lab/live/device-prepare.ts"];
  for (const f of sources) t.ok(existsSync(f), `${f} (the device entrypoint's) exists`);
  const commands = new Set<string>();
  for (const f of sources.filter((s) => existsSync(s)))
    for (const m of readFileSync(f, "utf8").matchAll(/\bexeca\(\s*"([^"]+)"/g)) commands.add(m[1]!);
  for (const cmd of ["ip", "sysctl", "ethtool"]) t.ok(commands.has(cmd), `the scan finds ${cmd}`);
  const installed = aptPackages(device!);
  for (const cmd of commands) {
    const pkg = REQUIREMENTS.find((r) => r.cmd === cmd)?.device;
    t.ok(
      pkg !== undefined && installed.includes(pkg),
      `${cmd} (${pkg ?? "no device package"}) is in the image`,
    );
  }
});
