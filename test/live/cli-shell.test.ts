// `rocelab cli` on a live lab (#40): a script of Mininet-style lines on its stdin, then the prompt in a
// real terminal (tmux) for Tab completion, history across sessions and Ctrl-C reaching the command only.
import { lstatSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t, { type Test } from "tap";
import { labDir } from "../../src/lab/live/names.js";
import { requireRoot, rl, upLab } from "../helpers/live.js";
import { tempDir } from "../helpers/temp-dir.js";

const LAB = "lcli";

function cli(input: string, timeoutMs = 180_000) {
  return execa(
    "env",
    ["-u", "NODE_OPTIONS", process.execPath, "dist/bundle/main/cli.js", "cli", "--name", LAB],
    {
      input,
      reject: false,
      timeout: timeoutMs,
    },
  );
}

const SOCKET = join(tempDir("rocelab-cli-tmux-"), "tmux.sock");
const SESSION = "cli";
function tmux(args: readonly string[]) {
  return execa("tmux", ["-S", SOCKET, ...args], { reject: false });
}
async function waitScreen(t: Test, what: string, ok: (s: string) => boolean, ms = 60_000): Promise<string> {
  const deadline = Date.now() + ms;
  let last = "";
  while (Date.now() < deadline) {
    last = (await tmux(["capture-pane", "-p", "-t", SESSION, "-S", "-200"])).stdout;
    if (ok(last)) {
      t.pass(what);
      return last;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  t.fail(`${what}: not within ${ms / 1000} s`, { screen: last });
  return last;
}
async function keys(...list: string[]): Promise<void> {
  for (const k of list) {
    await tmux(["send-keys", "-t", SESSION, k]);
    await new Promise((r) => setTimeout(r, 400));
  }
}
async function startPrompt(t: Test): Promise<void> {
  await tmux(["kill-server"]);
  const command = `env -u NODE_OPTIONS ${process.execPath} dist/bundle/main/cli.js cli --name ${LAB}; echo cli-exit=$?; sleep 600`;
  const r = await tmux([
    "new-session",
    "-d",
    "-s",
    SESSION,
    "-x",
    "100",
    "-y",
    "40",
    "-c",
    process.cwd(),
    command,
  ]);
  t.equal(r.exitCode, 0, `tmux started: ${r.stderr}`);
  await waitScreen(t, "the prompt is shown", (s) => s.includes(`rocelab:${LAB}>`));
}

t.test("rocelab cli", async (t) => {
  requireRoot(t);
  t.teardown(async () => {
    await tmux(["kill-server"]);
    await rl(["down", "--name", LAB]);
  });
  await upLab(t, LAB);

  await t.test("a script on stdin: every command of the prompt", async (t) => {
    const r = await cli(
      [
        "nodes",
        "net",
        "h1 ping -c 2 h8",
        "h1 ip -br addr show host0",
        "pingall",
        "link leaf1 spine1 down",
        "links",
        "link leaf1 spine1 up",
        "stats leaf2",
        "incast --to h8 --from 2 --size 64KB --wait",
        "help",
        "exit",
        "nodes",
      ].join("\n"),
    );
    t.equal(r.exitCode, 0, r.stderr);
    t.match(r.stdout, /hosts: +h1 h2 h3 h4 h5 h6 h7 h8\nswitches: spine1 spine2 leaf1 leaf2/);
    t.match(r.stdout, /h1 +eth1->leaf1:eth3/, "net: h1's port and its far end");
    t.match(
      r.stdout,
      /icmp_seq=1 ttl=\d+ time=[\d.]+us emulated \([\d.]+ ms real\)/,
      "ping: emulated and real",
    );
    const emulated = /emulated rtt min\/avg\/max = ([\d.]+)us\/([\d.]+)us\/([\d.]+)us/.exec(r.stdout);
    t.ok(emulated, "ping's summary of emulated round trips");
    // h1 -> leaf1 -> spine -> leaf2 -> h8 and back: 8 links of 1 µs, serialisation and forwarding on top.
    t.ok(Number(emulated?.[2]) >= 8 && Number(emulated?.[2]) < 50, `emulated rtt ${emulated?.[2]} µs`);
    t.match(r.stdout, /host0@nic0 +UP +10\.1\.0\.1\/31/, "NODE CMD runs in the node's namespace");
    t.match(r.stdout, /h1 -> h2 h3 h4 h5 h6 h7 h8\n/, "pingall: h1 reaches every host");
    t.match(r.stdout, /\*\*\* Results: 0% dropped \(56\/56 received\)/);
    t.match(r.stdout, /leaf1:eth1 down\n/, "link down through inject link-down");
    t.match(r.stdout, /leaf1:eth1 +<-> spine1:eth1 +DOWN/, "links shows it down");
    t.match(r.stdout, /leaf1:eth1 up\n/);
    t.match(r.stdout, /leaf2 \(switch\) at [\d.]+\w+ emulated/, "stats leaf2");
    t.match(r.stdout, /h1 -> h8 qp \d+ 64KB: FCT [\d.]+\w+/, "incast --wait prints each flow's FCT");
    t.match(r.stdout, /incast-\d+: all 2 flows completed/);
    t.match(r.stdout, /link NODE1 NODE2 down\|up/, "help");
    t.equal((r.stdout.match(/^switches:/gm) ?? []).length, 1, "nothing runs after exit");
    const history = readFileSync(join(labDir(LAB), "cli-history"), "utf8");
    t.match(
      history,
      /^nodes\n.*\nincast --to h8 --from 2 --size 64KB --wait\nhelp\nexit\n$/s,
      "history kept",
    );
  });

  await t.test("a failing line sets the script's exit status; the prompt goes on", async (t) => {
    const r = await cli("bogus\nlink leaf1 h8 down\nstats nosuch\nnodes\n");
    t.match(r.stderr, /unknown command or node "bogus"/);
    t.match(r.stderr, /no link between leaf1 and h8/);
    t.match(r.stderr, /no node nosuch in lab lcli/);
    t.match(r.stdout, /switches: spine1/, "the line after the errors ran");
    t.equal(r.exitCode, 2);
  });

  await t.test("the history file is replaced, never written through a link", async (t) => {
    const target = join(tempDir("rocelab-cli-target-"), "victim");
    writeFileSync(target, "untouched\n");
    const path = join(labDir(LAB), "cli-history");
    rmSync(path, { force: true });
    symlinkSync(target, path);
    const r = await cli("nodes\n");
    t.equal(r.exitCode, 0, r.stderr);
    t.equal(readFileSync(target, "utf8"), "untouched\n", "the link's target is unchanged");
    t.notOk(lstatSync(path).isSymbolicLink(), `the link was replaced by a file (was -> ${target})`);
    t.equal(readFileSync(path, "utf8"), "nodes\n", "history without what the link pointed to");
    t.throws(() => readlinkSync(path));
  });

  await t.test(
    "in a terminal: Tab completion, history across sessions, Ctrl-C stops only the command",
    async (t) => {
      await startPrompt(t);
      await tmux(["send-keys", "-t", SESSION, "ping", "Tab"]);
      await waitScreen(t, "Tab completes pinga… to pingall", (s) => s.includes(`rocelab:${LAB}> pingall`));
      // One key at a time: readline completes asynchronously and drops a Tab that comes meanwhile.
      await keys("C-u", "link lea", "Tab", "Tab");
      await waitScreen(t, "Tab lists both leaves", (s) => /leaf1\s+leaf2/.test(s));
      await keys("C-u", "h7 pi", "Tab", "h", "Tab", "Tab");
      await waitScreen(
        t,
        "a host name after NODE ping",
        (s) => s.includes(`> h7 ping h`) && /h1\s+h2/.test(s),
      );
      await tmux(["send-keys", "-t", SESSION, "C-u", "h3 sleep 30", "Enter"]);
      await new Promise((r) => setTimeout(r, 1500));
      await tmux(["send-keys", "-t", SESSION, "C-c"]);
      await waitScreen(t, "Ctrl-C ends the command, the prompt stays", (s) =>
        new RegExp(`h3 sleep 30\\n(\\^C)?\\s*rocelab:${LAB}> *$`, "m").test(s.trimEnd()),
      );
      await tmux(["send-keys", "-t", SESSION, "C-d"]);
      await waitScreen(t, "Ctrl-D leaves with status 0", (s) => s.includes("cli-exit=0"));
      await startPrompt(t);
      await tmux(["send-keys", "-t", SESSION, "Up"]);
      await waitScreen(t, "Up recalls the last session's last line", (s) =>
        s.includes(`rocelab:${LAB}> h3 sleep 30`),
      );
      await tmux(["send-keys", "-t", SESSION, "C-u", "C-d"]);
    },
  );
});
