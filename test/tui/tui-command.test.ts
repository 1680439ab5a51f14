// `rocelab tui`: what it refuses before creating anything, and a run without a terminal ending on SIGTERM.
import { Command } from "commander";
import { execa } from "execa";
import t from "tap";
import { registerTuiCommand } from "../../src/cli/tui-command.js";
import { DashboardStore } from "../../src/tui/store.js";
import { summaryLine } from "../../src/tui/summary.js";
import { rl } from "../helpers/live.js";
import { incastFixture } from "./fixtures/fixtures.js";

/** Runs `rocelab tui ARGS` in this process; returns what it wrote to stderr and its exit status. */
async function tui(args: string[], uid?: number): Promise<{ stderr: string; exitCode: number }> {
  const program = new Command().exitOverride();
  registerTuiCommand(program);
  let stderr = "";
  const write = process.stderr.write;
  const getuid = process.getuid;
  process.stderr.write = ((chunk: string) => {
    stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  if (uid !== undefined) process.getuid = () => uid;
  try {
    await program.parseAsync(["node", "rocelab", "tui", ...args]);
  } finally {
    process.stderr.write = write;
    process.getuid = getuid;
  }
  const exitCode = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { stderr, exitCode };
}

t.test("refusals come before anything is created", async (t) => {
  let r = await tui(["--runtime", "docker"]);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /--runtime must be live or sim, not "docker"/);
  r = await tui(["no-such-topology.yaml", "--runtime", "sim"]);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /no-such-topology\.yaml.*cannot read the file/s);
  r = await tui(["--name", "Not A Name"]);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /lab name "Not A Name" must be/);
  r = await tui(["--dilation", "0"]);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /--dilation takes a number between 1 and 1000000, or auto/);
  r = await tui([], 1000);
  t.equal(r.exitCode, 1);
  t.match(r.stderr, /needs root for a live lab.*run it with sudo.*--runtime sim/s, "says what to do instead");
});

t.test("without a terminal: a summary line now and then, and SIGTERM ends it cleanly", async (t) => {
  // Builds dist if needed; then the compiled command, as `npm run testbed` runs it.
  await rl(["--help"]);
  const child = execa(
    "env",
    ["-u", "NODE_OPTIONS", process.execPath, "dist/bundle/main/cli.js", "tui", "--runtime", "sim"],
    {
      reject: false,
      all: true,
    },
  );
  let out = "";
  child.all?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const deadline = Date.now() + 20_000;
  while (!out.includes("no terminal") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.match(out, /rocelab testbed: simulated fabric \(default: 4 switches, 8 hosts, 12 links\)/);
  t.match(out, /pacing virtual time at dilation 10000/);
  child.kill("SIGTERM");
  const r = await child;
  t.equal(r.exitCode, 143, "the status of a SIGTERM");
  t.match(r.all, /received SIGTERM\nsimulation sim-default stopped at \S+ emulated/);
});

t.test("the summary line says what the dashboard would highlight", async (t) => {
  const fx = await incastFixture();
  const store = new DashboardStore(
    { lab: "x", runtime: "sim", topology: fx.topology },
    { notifyMs: 0, peerName: fx.peerName },
  );
  t.equal(summaryLine(store.getState()), "x: waiting for counters");
  store.ingestSnapshot(fx.during[0]);
  store.ingestSnapshot(fx.during[1]);
  t.match(
    summaryLine(store.getState()),
    /^t=40\.000us {2}busiest (9\d|100)% leaf2:eth6->h8 {2}paused directions \d+ {2}XOFF \d+ {2}ECN \d+ {2}CNP \d+ {2}drops 0\/0$/,
  );
  store.ingestSnapshot({
    ...fx.during[1],
    now: 50_000,
    links: fx.during[1].links.map((l) => (l.id === 0 ? { ...l, up: false } : l)),
    devices: fx.during[1].devices.map((d) => (d.node === "h7" ? { ...d, status: "killed" } : d)),
  });
  t.match(summaryLine(store.getState()), /links down 1 {2}not running: h7$/);
});
