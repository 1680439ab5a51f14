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
    ["node", "2", /◀ \S+ ▶ switch\s+running.*\n.*headroom .* drops/],
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
  // Which leaf holds the most bytes depends on how far the paced sim got on this machine (the exact choice
  // is tested on a fixed fixture in keys.test.tsx); the storm's leaf, leaf2, is a few n away.
  t.match(await screen(), /◀ leaf[12] ▶/, "the node view opened on the busiest node, a leaf");
  for (let i = 0; i < 12 && !/◀ leaf2 ▶/.test(await screen()); i++) await keys("n");
  const leaf2 = await screen();
  t.match(
    leaf2,
    /PFC watchdog .*\n.*eth6 +3 +stalled .*\/200ms, detection in .* real\)/,
    "leaf2: the queue towards the storming h8 counts towards detection",
  );
  t.same(cutWords(leaf2), [], "leaf2: no word cut");
  await keys("?");
  // Every page, until the footer says the last line is on screen; the help cuts nothing at all.
  let help = "";
  for (let page = 1; page <= 20; page++) {
    const s = await screen();
    help += `${s}\n`;
    t.same(
      s.split("\n").filter((l) => l.includes("…")),
      [],
      `help page ${page}: nothing cut`,
    );
    const footer = /lines \d+-(\d+) of (\d+)/.exec(s);
    if (footer === null || footer[1] === footer[2]) break;
    await keys("PgDn");
  }
  t.match(help, /lines \d+-(\d+) of \1 /, "read to the help's last line");
  t.match(help, /elephant mice/, "down to the last abbreviation");
  t.match(help, /clock behind T .*busy machine/, "the help explains 'behind'");
});
