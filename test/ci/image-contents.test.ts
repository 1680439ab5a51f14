// Dockerfile.ci's image must hold everything the suite runs: the Debian packages scripts/setup requires
// (so that set-up inside the container finds them present) and a package for every external command the
// code and the tests start. Checked here from the files alone, without Docker.
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { execa } from "execa";
import t from "tap";

interface Requirement {
  cmd?: string;
  file?: string;
  pkg: string;
  why: string;
}

const REQUIREMENTS = JSON.parse(readFileSync("scripts/requirements.json", "utf8")) as Requirement[];

/** Commands the code runs that scripts/setup does not probe, and the Debian package that ships each. */
const OTHER_COMMANDS: Readonly<Record<string, string>> = {
  sysctl: "procps",
  env: "coreutils",
  cat: "coreutils",
  sha256sum: "coreutils",
  setpriv: "util-linux",
  unshare: "util-linux",
  nsenter: "util-linux",
  bash: "bash",
};
/** Debian's Essential packages that those commands come from: in every Debian image, slim ones too. */
const ESSENTIAL = new Set(["bash", "coreutils", "util-linux"]);

/** The packages the Dockerfile's `apt-get install` lines name (options and other commands left out). */
function aptPackages(dockerfile: string): string[] {
  const joined = dockerfile.replace(/\\\n/g, " ");
  const packages: string[] = [];
  for (const line of joined.split("\n")) {
    if (!/^\s*RUN\s/.test(line)) continue;
    for (const command of line.split(/&&|;|\|\|/)) {
      const m = /\bapt-get\s+install\s+(.*)$/.exec(command);
      if (!m) continue;
      packages.push(
        ...m[1]!
          .trim()
          .split(/\s+/)
          .filter((w) => w !== "" && !w.startsWith("-")),
      );
    }
  }
  return packages;
}

/** Every file under `dir` ending in .ts or .tsx. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/**
 * The external commands a source starts: a literal first argument of execa/spawn, and the literal command
 * after `ip netns exec NAMESPACE` (the namespace an identifier, a template or a one-level call).
 */
function commandsStarted(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(
    /\b(?:execa|execaSync|spawn|spawnSync|execFile|execFileSync)\(\s*"([^"]+)"/g,
  ))
    found.push(m[1]!);
  // `rocelab exec NODE [--name LAB] -- CMD`: the command after the node (an option is not one).
  for (const m of source.matchAll(/"exec",\s*(?:[^,()"]|\([^()]*\))+,\s*"([^"]+)"/g))
    if (!m[1]!.startsWith("-")) found.push(m[1]!);
  return found;
}

const dockerfile = readFileSync("Dockerfile.ci", "utf8");
const installed = aptPackages(dockerfile);

t.test("Dockerfile.ci installs exactly the Debian packages scripts/setup requires", async (t) => {
  const required = [...new Set(REQUIREMENTS.map((r) => r.pkg))].sort();
  t.ok(required.length >= 10, `scripts/requirements.json lists the packages (${required.join(" ")})`);
  for (const pkg of required) t.ok(installed.includes(pkg), `the image installs ${pkg}`);
  for (const pkg of installed)
    t.ok(
      required.includes(pkg),
      `${pkg} is one scripts/setup requires (add it to scripts/requirements.json)`,
    );
  t.equal(new Set(installed).size, installed.length, "no package named twice");
});

t.test("the Dockerfile parser reads continued RUN lines and skips options and other commands", async (t) => {
  const sample = [
    "FROM debian",
    "RUN apt-get update -q \\",
    "  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\",
    "    iproute2 tmux \\",
    "  && rm -rf /var/lib/apt/lists/*",
    "# RUN apt-get install commented",
    "RUN apt-get install -q ethtool; echo done",
  ].join("\n");
  t.same(aptPackages(sample), ["iproute2", "tmux", "ethtool"]);
});

t.test("every external command the code and the tests start comes with the image", async (t) => {
  const started = new Map<string, string>();
  // This file's own samples (below) are not commands anyone runs. The Docker test (npm run test:docker)
  // runs on a Docker host, not in this image, and is the only code that starts docker.
  const dockerHost = (f: string) => f.startsWith("test/docker/") || f === "test/helpers/clab-docker.ts";
  const files = [...sources("src"), ...sources("test")].filter(
    (f) => f !== "test/ci/image-contents.test.ts" && !dockerHost(f),
  );
  for (const file of files) {
    // A command started by its absolute path (a test that narrows PATH) is still the package's command.
    for (const cmd of commandsStarted(readFileSync(file, "utf8")).map((c) =>
      c.startsWith("/") ? basename(c) : c,
    ))
      if (!started.has(cmd)) started.set(cmd, file);
  }
  // The scan must see what the live lab and its tests are known to run, or it is not looking.
  for (const cmd of ["ip", "ethtool", "sysctl", "tcpdump", "tshark", "tmux", "ping"])
    t.ok(started.has(cmd), `the scan finds ${cmd}`);
  t.notOk(started.has("docker"), "nothing npm test runs starts docker");
  t.ok(
    sources("test").some((f) => dockerHost(f) && commandsStarted(readFileSync(f, "utf8")).includes("docker")),
    "the Docker test's helper is where docker is started (the exclusion above is not stale)",
  );
  for (const [cmd, file] of started) {
    const pkg = REQUIREMENTS.find((r) => r.cmd === cmd)?.pkg ?? OTHER_COMMANDS[cmd];
    if (pkg === undefined) {
      t.fail(`${file} runs ${cmd}: add its Debian package to scripts/requirements.json and Dockerfile.ci`);
      continue;
    }
    t.ok(installed.includes(pkg) || ESSENTIAL.has(pkg), `${cmd} (${pkg}, run by ${file}) is in the image`);
  }
});

t.test("the command scan reads literal commands, also after ip netns exec", async (t) => {
  const sample = [
    'execa("tshark", ["-r", f]);',
    'execa(\n  "ip",\n  ["netns", "exec", nsName(lab, node), "tcpdump", "-i", "eth1"],\n);',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a sample of source text
    'execa("ip", ["netns", "exec", `rl-${LAB}-h1`, "ping", "-c", "3"]);',
    'execa("ip", ["netns", "exec", ns, process.execPath, TOOL]);',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a sample of source text
    "execa(`netns/${name}`, args);",
  ].join("\n");
  t.same(commandsStarted(sample).sort(), ["ip", "ip", "ip", "ping", "tcpdump", "tshark"]);
});

t.test("scripts/setup takes its Debian packages from scripts/requirements.json", async (t) => {
  // A copy of set-up beside a list with one package nobody has: run as an ordinary user it must name that
  // package and stop, before npm or the build (step 2 of 5). Becoming that user takes root, as CI has.
  if (process.getuid?.() !== 0) {
    t.fail("this test needs root (it runs set-up as another user): run `sudo npm test`");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "rocelab-setup-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "scripts"), { mode: 0o755 });
  copyFileSync("scripts/setup", join(dir, "scripts", "setup"));
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  const probe = { cmd: "rocelab-no-such-tool", pkg: "rocelab-no-such-package", why: "the test" };
  const list = join(dir, "scripts", "requirements.json");
  writeFileSync(list, JSON.stringify([...REQUIREMENTS, probe]));
  const asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups"];
  // env(1) drops the test runner's NODE_OPTIONS (its hooks would follow the child).
  const setup = ["env", "-u", "NODE_OPTIONS", process.execPath, join(dir, "scripts", "setup")];
  const r = await execa("setpriv", [...asNobody, ...setup], { reject: false });
  t.equal(r.exitCode, 1, r.stderr);
  t.match(r.stderr, /missing Debian packages: rocelab-no-such-package\n/);
  t.match(r.stderr, /apt-get install -y --no-install-recommends rocelab-no-such-package/);
});
