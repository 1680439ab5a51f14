// The frame painter: only changed rows are rewritten, at most so often, and a resize starts over.
import { EventEmitter } from "node:events";
import t from "tap";
import { FramePainter, frameDiff } from "../../src/tui/painter.js";
import { tick } from "./fixtures/render.js";

class FakeTerminal extends EventEmitter {
  columns = 20;
  rows = 3;
  written: string[] = [];
  write(data: string): boolean {
    this.written.push(data);
    return true;
  }
}

t.test("frameDiff rewrites changed rows at their positions and clears vanished ones", async (t) => {
  t.equal(frameDiff(["a", "b"], ["a", "c"]), "\u001b[2;1Hc\u001b[K");
  t.equal(frameDiff([], ["x"]), "\u001b[1;1Hx\u001b[K");
  t.equal(frameDiff(["x", "y"], ["x"]), "\u001b[2;1H\u001b[K");
  t.equal(frameDiff(["same"], ["same"]), "");
});

t.test(
  "the painter paints at most fps times a second, the latest frame, inside a synchronized update",
  async (t) => {
    const term = new FakeTerminal();
    const painter = new FramePainter(term, 20);
    t.equal(painter.columns, 20);
    t.equal(painter.rows, 3);
    t.ok(term.written[0]!.includes("\u001b[?25l"), "hides the cursor");
    painter.write("one\ntwo");
    t.equal(term.written.length, 2, "the first frame at once");
    const first = term.written[1]!;
    t.ok(first.startsWith("\u001b[?2026h") && first.endsWith("\u001b[?2026l"), "a synchronized update");
    t.match(first, /one.*two/s);
    painter.write("one\n2");
    painter.write("one\nthree\nfour\nfive");
    t.equal(term.written.length, 2, "the next waits for its slot");
    await tick(80);
    t.equal(term.written.length, 3, "one paint for both frames");
    t.notMatch(term.written[2]!, /one/, "unchanged rows are left alone");
    t.match(term.written[2]!, /three/);
    t.notMatch(term.written[2]!, /five/, "rows beyond the terminal are not painted");
    let resized = 0;
    painter.on("resize", () => resized++);
    term.emit("resize");
    t.equal(resized, 1, "a resize reaches Ink");
    t.equal(term.written.at(-1), "\u001b[2J", "and clears the screen");
    painter.write("one\nthree");
    await tick(80);
    t.match(term.written.at(-1)!, /one.*three/s, "everything is painted again");
    painter.close();
    painter.close();
    t.equal(term.written.at(-1), "\u001b[?25h", "the cursor shows again");
    painter.write("late");
    await tick(80);
    t.equal(term.written.at(-1), "\u001b[?25h", "nothing after close");
    t.equal(term.listenerCount("resize"), 0);
  },
);
