// `rocelab tui --runtime sim` in a real terminal of 80×24 (a detached tmux session of our own): after an
// incast and a PFC storm, every view and every page of the help is checked for a word cut in the middle
// (a character right before "…", the mark a cut leaves) and for the pieces that must show whole.
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { tempDir } from "../helpers/temp-dir.js";

const SOCKET = join(tempDir("rocelab-tmux-"), "tmux.sock");
const tmux = (args: readonly string[]) => execa("tmux", ["-S", SOCKET, ...args], { reject: false });
const screen = async () => (await tmux(["capture-pane", "-p", "-t", "n"])).stdout;
const keys = async (...k: string[]) => {
  for (const key of k) {
    await tmux(["send-keys", "-t", "n", key]);
    await new Promise((r) => setTimeout(r, 700));
  }
};

/** Lines with a word cut inside: a non-space character right before the cut mark. */
const cutWords = (s: string) => s.split("\n").filter((l) => /\S…/.test(l));

t.teardown(async () => {
  await tmux(["kill-server"]);
});
t.test("every view and help page at 80x24", async (t) => {
  const command = `env -u NODE_OPTIONS ${process.execPath} dist/bundle/main/cli.js tui --runtime sim; sleep 60`;
  const started = await tmux([
    "new-session",
    "-d",
    "-s",
    "n",
    "-x",
    "80",
    "-y",
    "24",
    "-c",
    process.cwd(),
    command,
  ]);
  t.equal(started.exitCode, 0, `tmux started: ${started.stderr}`);
  await new Promise((r) => setTimeout(r, 5000));
  await keys("i", "Enter", "x", "Enter");
  await new Promise((r) => setTimeout(r, 4000));

  const views: [string, string, RegExp][] = [
    ["fabric", "1", /\[D\] drops/],
    ["node", "2", /PFC watchdog .*\n.*stalled .*\/200ms, detection in .* real\)/],
    ["flows", "3", /QPs: .*v(:)? paths/],
    ["events", "4", /filter all \(f\)/],
  ];
  for (const [name, key, whole] of views) {
    await keys(key);
    const s = await screen();
    t.same(cutWords(s), [], `${name}: no word cut`);
    t.match(s, whole, `${name}: shows whole`);
    t.match(
      s.split("\n").at(-1),
      /t=\S+\s+dilation 10000 │ ok: h8: PFC storm on priority 3/,
      `${name}: status line`,
    );
  }
  await keys("2");
  t.match(await screen(), /◀ leaf2 ▶/, "the node view opened on the busiest node, leaf2");
  await keys("?");
  let help = "";
  for (let page = 0; page < 3; page++) {
    const s = await screen();
    help += `${s}\n`;
    t.same(cutWords(s), [], `help page ${page + 1}: no word cut`);
    await keys("PgDn");
  }
  t.match(help, /clock behind T .*busy machine/, "the help explains 'behind'");
});
