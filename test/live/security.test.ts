// A live lab probed as a hostile local user would (docs/reliability.md, "Security model"): a squatted
// metrics port, the capabilities and user of the device processes, a user who is not root asking for the
// lab, a capture file replaced by a link, a supervisor killed mid-run. Every probe must end in a refusal
// or a clear error, with nothing overwritten, slowed or impersonated.

import {
  chmodSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { execa } from "execa";
import t from "tap";
import { LiveLab } from "../../src/lab/live/live-lab.js";
import { keptLogDir } from "../../src/lab/live/names.js";
import { readState } from "../../src/lab/live/state.js";
import type { LabStatus } from "../../src/lab/live/supervisor.js";
import { checkCapture } from "../../src/verify/pcap-check.js";
import { guardLab, labNamespaces, labProcesses, pollUntil, requireRoot, rl } from "../helpers/live.js";
import { tempDir } from "../helpers/temp-dir.js";

requireRoot(t);

const SQUAT = "secsq";
const LAB = "sec";
t.teardown(async () => {
  for (const lab of [SQUAT, LAB]) await rl(["down", "--name", lab, "--purge"]);
});

const statusOf = (pid: number): string => readFileSync(`/proc/${pid}/status`, "utf8");
const field = (status: string, name: string): string =>
  new RegExp(`^${name}:\\s+(.*)$`, "m").exec(status)?.[1] ?? "";

/** Whether the unprivileged user can read every one of `files` (what `up` probes before it drops to it). */
async function readableByNobody(files: readonly string[]): Promise<boolean> {
  const test = files.flatMap((f, i) => [...(i > 0 ? ["-a"] : []), "-r", f]);
  const args = ["--reuid=65534", "--regid=65534", "--clear-groups", "test", ...test];
  return (await execa("setpriv", args, { reject: false })).exitCode === 0;
}

t.test("a squatted metrics port fails `up` with a clear error; the lab's logs are kept", async (t) => {
  guardLab(SQUAT);
  const squatter = createServer((_req, res) => res.end('rx_prio_pause{lab="secsq"} 0\n'));
  await new Promise<void>((r) => squatter.listen(0, "127.0.0.1", r));
  t.teardown(() => squatter.close());
  const port = (squatter.address() as AddressInfo).port;
  const r = await rl(["up", "--name", SQUAT, "--metrics-port", String(port)]);
  t.equal(r.exitCode, 1, "up fails");
  t.match(
    r.stderr,
    `127.0.0.1:${port} is already in use (another lab, or another program: a scraper would read its series as this lab's); choose another --metrics-port, 0 for any free one, or --no-metrics`,
  );
  t.match(r.stderr, `its log is kept: ${keptLogDir(SQUAT)}/supervisor.log`);
  t.ok(
    await pollUntil(
      () => labProcesses(SQUAT).length === 0,
      (v) => v,
    ),
    "no process of the lab left",
  );
  t.same(await labNamespaces(SQUAT), [], "no namespace left");
  t.ok(
    await pollUntil(
      () => existsSync(join(keptLogDir(SQUAT), "supervisor.log")),
      (v) => v,
    ),
    "supervisor.log kept",
  );
  t.match(readFileSync(join(keptLogDir(SQUAT), "supervisor.log"), "utf8"), /already in use/);
  const purge = await rl(["down", "--name", SQUAT, "--purge"]);
  t.equal(purge.exitCode, 0, purge.stderr);
  t.match(purge.stdout, `removed the kept logs of lab ${SQUAT}`);
  t.notOk(existsSync(keptLogDir(SQUAT)));
});

t.test(
  "a running lab: least privilege, authenticated metrics, root's alone, captures never through a link",
  async (t) => {
    guardLab(LAB);
    const dir = tempDir("rl-sec-");
    const auth = join(dir, "metrics.token");
    writeFileSync(auth, `${"c3".repeat(24)}\n`, { mode: 0o600 });
    const up = await rl(["up", "--name", LAB, "--metrics-port", "0", "--metrics-auth-file", auth]);
    t.equal(up.exitCode, 0, up.stderr);
    const url = /curl (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(up.stdout)?.[1];
    t.ok(url, "up prints the port it took");
    const s = JSON.parse((await rl(["status", "--json", "--name", LAB])).stdout) as LabStatus;
    t.equal(s.metrics, url, "status shows it");
    t.equal((await fetch(url!)).status, 401, "no credentials: refused");
    const scrape = await fetch(url!, { headers: { authorization: `Bearer ${"c3".repeat(24)}` } });
    t.equal(scrape.status, 200);
    t.match(await scrape.text(), `lab="${LAB}"`);

    // Every device: CAP_NET_RAW alone, no way to gain more, as the user `up` said.
    const asNobody = /device processes run as nobody \(uid (\d+)/.exec(up.stderr);
    const uid = asNobody ? asNobody[1]! : "0";
    t.ok(s.devices.length > 0);
    for (const d of s.devices) {
      const st = statusOf(d.pid!);
      t.equal(field(st, "CapEff"), "0000000000002000", `${d.node}: CapEff is CAP_NET_RAW alone`);
      t.equal(field(st, "CapPrm"), "0000000000002000", `${d.node}: CapPrm`);
      t.equal(field(st, "CapBnd"), "0000000000002000", `${d.node}: nothing else in the bounding set`);
      t.equal(field(st, "NoNewPrivs"), "1", `${d.node}: no_new_privs`);
      t.equal(field(st, "Uid").split(/\s+/)[0], uid, `${d.node}: runs as uid ${uid}`);
    }
    // Who they run as depends on the checkout: nobody when nobody can read the node binary, the device's
    // bundle and the addon (probed here independently of `up`), else root with the same single capability
    // and a note saying why (a clone under a private home or a 0700 temporary directory).
    if (await readableByNobody([process.execPath, resolve("dist/bundle/main/device-main.js")]))
      t.equal(uid, "65534", "this checkout is readable by others: the devices run as nobody");
    else {
      t.equal(uid, "0", "this checkout is private: the devices run as root, CAP_NET_RAW alone");
      t.match(up.stderr, /nobody cannot read the project's files .*: make them readable by others/);
    }

    // UDP helpers need no capability at all.
    t.equal(
      (await rl(["inject", "udp", "--from", "h1", "--to", "h2", "--seconds", "5", "--name", LAB])).exitCode,
      0,
    );
    const helpers = readState(LAB)?.helpers ?? [];
    t.ok(helpers.length >= 2);
    for (const h of helpers) {
      // The registered pid is `ip netns exec`'s, which execs the privilege wrapper, which execs node with
      // the helper: read it once it is node (until then it is root's own `ip` or the wrapper, whose
      // command lines name the helper too, holding root's capabilities until they drop them).
      const program = () => readFileSync(`/proc/${h.pid}/cmdline`, "utf8").split("\0")[0];
      t.equal(
        await pollUntil(program, (p) => p === process.execPath),
        process.execPath,
        `${h.name}: is node`,
      );
      t.equal(field(statusOf(h.pid!), "CapEff"), "0000000000000000", `${h.name}: no capability`);
    }

    // A user who is not root is told why, not that there is no lab. They run their own copy of the CLI (a
    // private checkout is not theirs to read).
    const theirs = tempDir("rl-sec-other-");
    cpSync("package.json", join(theirs, "package.json"));
    cpSync("dist/bundle", join(theirs, "dist", "bundle"), { recursive: true });
    for (const f of ["", ...readdirSync(theirs, { recursive: true, encoding: "utf8" })])
      chmodSync(join(theirs, f), statSync(join(theirs, f)).isDirectory() ? 0o755 : 0o644);
    const other = await execa(
      "setpriv",
      [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        process.execPath,
        join(theirs, "dist", "bundle", "main", "cli.js"),
        "status",
        "--name",
        LAB,
      ],
      { reject: false, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
    t.equal(other.exitCode, 1);
    t.match(other.stderr, /live labs are root's: their state \(\/run\/rocelab, 0700\) .*run this with sudo/);
    t.notMatch(other.stderr, /no lab/);

    // capture -w: a planted link is refused, the target unchanged; a new file is rocelab's, 0600.
    const victim = join(dir, "shadow");
    writeFileSync(victim, "root's secret\n", { mode: 0o600 });
    const link = join(dir, "x.pcap");
    symlinkSync(victim, link);
    const refused = await rl(["capture", "leaf1:eth1", "-w", link, "--seconds", "1", "--name", LAB]);
    t.equal(refused.exitCode, 2);
    t.match(refused.stderr, /-w .*x\.pcap is a symbolic link: rocelab does not write through links/);
    t.equal(readFileSync(victim, "utf8"), "root's secret\n", "the link's target is unchanged");
    const file = join(dir, "leaf1.pcap");
    // Frames on h1's port (leaf1:eth3) while the capture runs (it starts listening within a second).
    const capturing = rl(["capture", "leaf1:eth3", "-w", file, "--seconds", "3", "--name", LAB]);
    await new Promise((r) => setTimeout(r, 1000));
    await execa("ip", ["netns", "exec", `rl-${LAB}-h1`, "ping", "-c", "4", "-i", "0.2", "10.1.0.15"], {
      reject: false,
    });
    const cap = await capturing;
    t.equal(cap.exitCode, 0, cap.stderr);
    t.equal(statSync(file).mode & 0o777, 0o600, "the pcap is 0600");
    t.equal(statSync(file).uid, 0, "and root's, not tcpdump's");
    t.ok(checkCapture(readFileSync(file)).frames > 0, "tcpdump wrote a valid capture through the descriptor");
    const again = await rl(["capture", "leaf1:eth1", "-w", file, "--seconds", "1", "--name", LAB]);
    t.equal(again.exitCode, 2, "an existing file is not replaced without --force");

    // The supervisor killed: whoever watches is told where its log is kept; `down` keeps the logs, the next
    // `up` of the lab removes them.
    const watcher = await LiveLab.connect(LAB);
    const gone = new Promise<string>((r) => watcher.onClose(r));
    process.kill(readState(LAB)!.supervisorPid!, "SIGKILL");
    t.match(
      await gone,
      `its logs are kept in ${keptLogDir(LAB)}/ (supervisor.log first) until the next \`rocelab up --name ${LAB}\` or \`rocelab down --purge\``,
    );
    const down = await rl(["down", "--name", LAB]);
    t.equal(down.exitCode, 0, down.stderr);
    t.match(down.stderr, `the lab's logs are kept in ${keptLogDir(LAB)}/`);
    t.ok(existsSync(join(keptLogDir(LAB), "supervisor.log")), "supervisor.log kept");
    t.ok(existsSync(join(keptLogDir(LAB), "leaf1.log")), "and the devices' logs");
    t.same(await labNamespaces(LAB), [], "the rest is gone");
    const upAgain = await rl(["up", "--name", LAB, "--no-metrics"]);
    t.equal(upAgain.exitCode, 0, upAgain.stderr);
    t.notOk(existsSync(keptLogDir(LAB)), "the next up removes them");
  },
);
