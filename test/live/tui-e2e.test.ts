// The testbed end to end, in a real terminal: `rocelab tui` in a detached tmux session (120×40) brings up a
// live lab, shows the fabric, takes an incast from the keyboard, shows the pause/ECN counters move, and on
// q tears everything down. Needs root and tmux; without them it fails (CI has both) and says what to do.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t, { type Test } from "tap";
import { labDir } from "../../src/lab/live/names.js";
import { labNamespaces, labProcesses, rl } from "../helpers/live.js";
import { tempDir } from "../helpers/temp-dir.js";

const LAB = "tuitest";
/**
 * A tmux server of our own, so the test never touches a user's sessions; its socket in a scratch directory
 * removed when the file ends (`-L` left a socket file in /tmp/tmux-UID after every run).
 */
const SOCKET = join(tempDir("rocelab-tmux-"), "tmux.sock");
const SESSION = "testbed";
const EXIT_MARK = "rocelab-exit=";

function tmux(args: readonly string[]) {
  return execa("tmux", ["-S", SOCKET, ...args], { reject: false });
}

async function screen(): Promise<string> {
  return (await tmux(["capture-pane", "-p", "-t", SESSION])).stdout;
}

/** Polls the screen until `ok` holds; fails the test with the last screen when it does not in time. */
async function waitFor(
  t: Test,
  what: string,
  ok: (s: string) => boolean,
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    last = await screen();
    if (ok(last)) {
      t.pass(what);
      return last;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  t.fail(`${what}: not within ${timeoutMs / 1000} s`, { screen: last });
  throw new Error(`gave up waiting: ${what}`);
}

/** The fabric view's totals: PFC XOFF frames sent and CE marks. */
function totals(s: string): { xoff: number; ecn: number } | null {
  const m = /XOFF sent (\d+)\s+ECN marked (\d+)/.exec(s);
  return m ? { xoff: Number(m[1]), ecn: Number(m[2]) } : null;
}

/**
 * Starts `rocelab tui` in a fresh detached 120×40 tmux session (after removing leftovers of an earlier
 * run), and makes the test tear both down. The shell prints the exit status and keeps the pane open.
 */
async function startTestbed(t: Test): Promise<void> {
  t.teardown(async () => {
    await tmux(["kill-server"]);
    await rl(["down", "--name", LAB]);
  });
  // Current dist (device processes run it), and no leftovers of an earlier run.
  await rl(["down", "--name", LAB]);
  await tmux(["kill-server"]);
  // env(1) drops the test runner's NODE_OPTIONS (its loader and coverage hooks would follow the
  // compiled command and every device process it starts).
  const command = `env -u NODE_OPTIONS ${process.execPath} dist/bundle/main/cli.js tui --name ${LAB}; echo "${EXIT_MARK}$?"; sleep 300`;
  const size = ["-x", "120", "-y", "40"];
  const r = await tmux(["new-session", "-d", "-s", SESSION, ...size, "-c", process.cwd(), command]);
  t.equal(r.exitCode, 0, `tmux started: ${r.stderr}`);
}

const tmuxInstalled =
  (await execa("tmux", ["-V"], { reject: false }).catch(() => ({ exitCode: 1 }))).exitCode === 0;

if (process.getuid?.() !== 0) {
  t.fail("the testbed end-to-end test needs root (it brings up a live lab): run `sudo npm test`");
} else if (!tmuxInstalled) {
  t.fail("the testbed end-to-end test needs tmux: run `sudo node scripts/setup` (or apt-get install tmux)");
} else {
  t.test(
    "sudo npm run testbed: fabric, incast from the keyboard, counters move, q tears the lab down",
    async (t) => {
      const started = Date.now();
      await startTestbed(t);

      const fabric = await waitFor(
        t,
        "the fabric view appears",
        // The whole frame: tmux can capture Ink half-way through a repaint (seen once: the link table drawn
        // to h8's row, the status line not yet), so wait for the status line too.
        (s) =>
          s.includes("[1 Fabric]") &&
          /spines\s+spine1/.test(s) &&
          /h8:eth1 ↔ leaf2:eth6/.test(s) &&
          /t=\S+\s+dilation \d+/.test(s),
        60_000,
      );
      t.match(
        fabric,
        /live\s+tuitest\s+t=\S+\s+dilation 1000/,
        "status line: live lab, emulated time, dilation",
      );
      t.ok((await labNamespaces(LAB)).length === 12, "the lab is up: 12 namespaces");
      const before = totals(fabric);
      t.ok(before, "fabric totals are on screen");

      // Someone else's `rocelab tui` with the same name must not take this lab over (or tear it down).
      const other = await rl(["tui", "--name", LAB]);
      t.equal(other.exitCode, 1);
      t.match(other.stderr, /a lab "tuitest" is already running/);
      t.equal((await labNamespaces(LAB)).length, 12, "and the lab is still there");

      await tmux(["send-keys", "-t", SESSION, "i"]);
      await waitFor(
        t,
        "the incast prompt, with its defaults",
        (s) => s.includes("Incast: N senders write into one host") && /receiver\s+\[h8_/.test(s),
        10_000,
      );
      await tmux(["send-keys", "-t", SESSION, "Enter"]);
      await waitFor(
        t,
        "the lab started the incast",
        (s) => /ok: incast-1: 4 senders x 4MB -> h8/.test(s),
        15_000,
      );
      const during = await waitFor(
        t,
        "pause or ECN counters move",
        (s) => {
          const now = totals(s);
          return now !== null && before !== null && (now.xoff > before.xoff || now.ecn > before.ecn);
        },
        30_000,
      );
      t.comment(`fabric after the incast: ${JSON.stringify(totals(during))}`);

      // The node view of the receiver's leaf: its port towards h8 shows the marks.
      // The node view opens on the busiest device (the incast's leaf, as a rule); n walks on to leaf2.
      await tmux(["send-keys", "-t", SESSION, "2"]);
      for (let i = 0; i < 12 && !/◀ leaf2 ▶/.test(await screen()); i++) {
        await tmux(["send-keys", "-t", SESSION, "n"]);
        await new Promise((r) => setTimeout(r, 300));
      }
      const node = await waitFor(
        t,
        "the node view of leaf2",
        (s) => /◀ leaf2 ▶ switch\s+running/.test(s),
        10_000,
      );
      t.match(node, /eth6\s+h8:eth1/, "its port towards h8");

      await tmux(["send-keys", "-t", SESSION, "q"]);
      const end = await waitFor(t, "the testbed exits", (s) => s.includes(EXIT_MARK), 45_000);
      t.match(end, /tearing down lab tuitest/);
      t.match(end, /lab tuitest is down: its namespaces, links and processes are gone/);
      t.match(end, new RegExp(`${EXIT_MARK}0`), "exit status 0");
      t.same(await labNamespaces(LAB), [], "no rl-tuitest- namespaces");
      t.notOk(existsSync(labDir(LAB)), "no /run/rocelab/tuitest");
      t.same(labProcesses(LAB), [], "no processes of the lab");
      t.comment(`end to end in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  );

  t.test("a lab stopped from elsewhere ends the testbed at once, which cleans up and says why", async (t) => {
    await startTestbed(t);
    await waitFor(t, "the fabric view appears", (s) => s.includes("[1 Fabric]"), 60_000);
    const down = await rl(["down", "--name", LAB]);
    t.equal(down.exitCode, 0, `rocelab down from another terminal: ${down.stderr}`);
    const end = await waitFor(t, "the testbed exits", (s) => s.includes(EXIT_MARK), 20_000);
    t.match(end, /lab "tuitest" went away|supervisor is gone/, "it says the lab went away");
    t.match(end, new RegExp(`${EXIT_MARK}1`), "exit status 1");
    t.same(await labNamespaces(LAB), [], "no rl-tuitest- namespaces");
    t.same(labProcesses(LAB), [], "no processes of the lab");
  });
}
