// Progress of long work off a terminal: plain lines (the first, then at most one every few seconds, and
// the last), with the done/total, the pace and the elapsed time.
import t from "tap";
import { emulatedProgress, startProgress } from "../../src/cli/progress.js";

function fakeStream(): { stream: NodeJS.WriteStream; lines: string[] } {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (s: string) => lines.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, lines };
}

t.test("plain lines when not a TTY", async (t) => {
  const { stream, lines } = fakeStream();
  const p = startProgress("tune x", 10, (v) => `${v}`, stream);
  p.update(1, "0.5 trials/s");
  p.update(2, "0.5 trials/s"); // within the interval: not printed
  p.update(10, "0.6 trials/s"); // the last one always is
  p.stop();
  t.equal(lines.length, 2);
  t.match(lines[0], /^tune x: 1 of 10 \(10%\), 0\.5 trials\/s, \d+ s\n$/);
  t.match(lines[1], /^tune x: 10 of 10 \(100%\)/);
});

t.test("emulated time progress names durations and the pace", async (t) => {
  const { stream, lines } = fakeStream();
  const p = emulatedProgress("incast", 8_000_000, stream);
  p.at(1_000_000);
  p.at(8_000_000);
  p.stop();
  t.match(lines[0], /^incast: 1ms of 8ms \(13%\), .* emulated per real s, \d+ s\n$/);
  t.match(lines[1], /^incast: 8ms of 8ms \(100%\)/);
});
