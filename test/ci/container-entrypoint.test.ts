// .ci/container-entrypoint, the entrypoint of Dockerfile.ci's image, run directly (no Docker): its
// privilege probe (a namespace with a veth pair, a sysctl inside it), its refusal when the probe fails —
// as it does in a container started without --privileged — and its closing line "N passed, N failed"
// with the command's exit status. Arguments replace `npm test` with a trivial command.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";

const ENTRYPOINT = ".ci/container-entrypoint";
/** The probe's namespace: ours alone, so the test can see it is gone afterwards. */
const PROBE = `rocelab-ci-test-${process.pid}`;
/**
 * Runs that reach the leaked-lab check get their own /run/netns and /run/rocelab, as in a fresh container,
 * so that a lab someone else brings up on this machine meanwhile is not counted as the command's.
 */
const PRIVATE = ["test/ci/private-run"];

function entrypoint(
  args: readonly string[],
  probe = PROBE,
  wrapper: readonly string[] = [],
  script = ENTRYPOINT,
) {
  const command = [...wrapper, script, ...args];
  return execa(command[0]!, command.slice(1), {
    reject: false,
    env: { ROCELAB_CI_PROBE_NETNS: probe },
  });
}

/** The last line of stdout: the one CI reads. */
const lastLine = (out: string) => out.trimEnd().split("\n").at(-1);

/** The host's namespaces (not those of a private run). */
async function namespaces(): Promise<string[]> {
  const { stdout } = await execa("ip", ["netns", "list"]);
  return stdout.split("\n").map((l) => l.split(" ")[0]!);
}

/** Node without the test runner's hooks, printing `line` and exiting with `status`. */
function node(line: string, status: number): string[] {
  const code = `console.log(${JSON.stringify(line)}); process.exit(${status})`;
  return ["env", "-u", "NODE_OPTIONS", process.execPath, "-e", code];
}

if (process.getuid?.() !== 0) {
  t.fail("the container entrypoint's test needs root (it creates a network namespace): run `sudo npm test`");
} else {
  t.test(
    "privileged: the probe passes, the command runs in the project, its status is the exit",
    async (t) => {
      const r = await entrypoint(["pwd"], PROBE, PRIVATE);
      t.equal(r.exitCode, 0, r.stderr);
      t.equal(r.stdout.split("\n")[0], process.cwd(), "the command runs at the project's root");
      t.equal(lastLine(r.stdout), "0 passed, 0 failed", "no tap totals, no failure");

      // The command sees the namespaces the probe worked in: its own is gone.
      const list = await entrypoint(["ip", "netns", "list"], PROBE, PRIVATE);
      t.equal(list.exitCode, 0, list.stderr);
      t.notMatch(list.stdout, PROBE, "the probe's namespace is gone");

      const failing = await entrypoint(["false"], PROBE, PRIVATE);
      t.equal(failing.exitCode, 1);
      t.equal(lastLine(failing.stdout), "0 passed, 1 failed", "a failure outside tap's totals counts");
      t.match(failing.stderr, /false exited with status 1 before or outside tap's totals/);
    },
  );

  t.test("tap's totals become the closing line, and the command's status the exit", async (t) => {
    const r = await entrypoint(node("# { total: 7, pass: 5, fail: 2 }", 1), PROBE, PRIVATE);
    t.equal(r.exitCode, 1);
    t.match(r.stdout, /# \{ total: 7, pass: 5, fail: 2 \}\n/, "the command's output passes through");
    t.equal(lastLine(r.stdout), "5 passed, 2 failed");

    const green = await entrypoint(node("# { total: 3, pass: 3 }", 0), PROBE, PRIVATE);
    t.equal(green.exitCode, 0, green.stderr);
    t.equal(lastLine(green.stdout), "3 passed, 0 failed");
    t.notMatch(green.stdout, /^failed:$/m, "nothing is listed when nothing failed");
  });

  t.test("the failed assertions are named just above the closing line", async (t) => {
    const log = [
      "ok 1 - a.test.ts",
      "    not ok 2 - zero lossless drops (leaf2: 3 dropped)",
      "not ok 2 - b.test.ts",
    ];
    const r = await entrypoint(
      node([...log, "# { total: 3, pass: 1, fail: 2 }"].join("\n"), 1),
      PROBE,
      PRIVATE,
    );
    const tail = r.stdout.trimEnd().split("\n").slice(-4);
    t.same(
      tail,
      [
        "failed:",
        "2:    not ok 2 - zero lossless drops (leaf2: 3 dropped)",
        "3:not ok 2 - b.test.ts",
        "1 passed, 2 failed",
      ],
      "the end of the log says what failed, not only how many",
    );
  });

  t.test("lab state the command leaves behind is a failure", async (t) => {
    const lab = `cileak${process.pid}`;
    const dir = `/run/rocelab/${lab}`;
    const r = await entrypoint(["mkdir", "-p", dir], PROBE, PRIVATE);
    t.equal(r.exitCode, 1);
    t.match(r.stderr, new RegExp(`left lab state behind \\(labs: ${lab}\\)`));
    t.equal(lastLine(r.stdout), "0 passed, 1 failed");
    t.notOk(existsSync(dir), "the private run's state went with it");
  });

  t.test(
    "the probe fails: a refusal naming docker run --privileged, and the command never runs",
    async (t) => {
      const marker = join(t.testdir({}), "ran");
      const r = await entrypoint(["touch", marker], "bad/name");
      t.equal(r.exitCode, 1);
      t.match(r.stderr, /cannot create a network namespace \(ip netns add bad\/name: .*Invalid netns name/);
      t.match(r.stderr, /docker run --rm --privileged rocelab-ci/);
      t.equal(lastLine(r.stdout), "0 passed, 1 failed");
      t.notOk(existsSync(marker), "the command did not run");
    },
  );

  t.test("root without the host's capabilities, as in a container run without --privileged", async (t) => {
    // A user namespace keeps uid 0 but loses CAP_SYS_ADMIN over the host's mounts, which `ip netns add`
    // needs: the same failure Docker's default capability set gives.
    const r = await entrypoint(["true"], PROBE, ["unshare", "--user", "--map-root-user"]);
    t.equal(r.exitCode, 1, r.stderr);
    t.match(r.stderr, /rocelab CI container: it cannot create a network namespace/);
    t.match(r.stderr, /Operation not permitted|Permission denied/);
    t.match(r.stderr, /docker run --rm --privileged rocelab-ci/);
    t.equal(lastLine(r.stdout), "0 passed, 1 failed");
    t.notOk((await namespaces()).includes(PROBE), "no namespace was left");
  });

  t.test("not root: refused before anything else", async (t) => {
    // A copy the other user can reach (.ci/run's clone sits in a directory only root may enter).
    const dir = mkdtempSync(join(tmpdir(), "rocelab-entrypoint-"));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, ".ci"), { mode: 0o755 });
    for (const f of ["container-entrypoint", "lib.sh"]) copyFileSync(join(".ci", f), join(dir, ".ci", f));
    const nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
    const r = await entrypoint(["true"], PROBE, nobody, join(dir, ".ci", "container-entrypoint"));
    t.equal(r.exitCode, 1, r.stderr);
    t.match(r.stderr, /it must run as root, not as uid 65534/);
    t.equal(lastLine(r.stdout), "0 passed, 1 failed");
  });
}
