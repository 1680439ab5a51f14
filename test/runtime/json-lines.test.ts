// Splitting a byte stream into lines: the same lines whatever the chunks (a UTF-8 character cut between
// two of them included), a line of exactly the limit taken and one byte more refused, nothing taken after
// a stop. (That the work is linear in the input is measured by `npm run bench -- control-flood`.)
import t from "tap";
import { LineSplitter } from "../../src/runtime/realtime/json-lines.js";

const TEXT = '{"a":"ä→😀"}\n\n{"b":[1,2,3]}\nlast line without newline';

function split(chunks: readonly Buffer[], max = 1000): { lines: string[]; ok: boolean; buffered: number } {
  const lines: string[] = [];
  const s = new LineSplitter({ maxLineBytes: max }, (l) => {
    lines.push(l);
    return true;
  });
  let ok = true;
  for (const c of chunks) ok &&= s.push(c);
  return { lines, ok, buffered: s.buffered };
}

t.test("the same lines whatever the chunks", (t) => {
  const bytes = Buffer.from(TEXT);
  const whole = split([bytes]);
  t.same(whole.lines, ['{"a":"ä→😀"}', "", '{"b":[1,2,3]}']);
  t.equal(whole.buffered, Buffer.byteLength("last line without newline"));
  for (let i = 0; i <= bytes.length; i++) {
    const two = split([bytes.subarray(0, i), bytes.subarray(i)]);
    t.same(two.lines, whole.lines, `cut at byte ${i}`);
  }
  const single = split([...bytes].map((b) => Buffer.from([b])));
  t.same(single.lines, whole.lines, "one byte at a time");
  t.end();
});

t.test("the limit", (t) => {
  const exact = split([Buffer.from(`${"x".repeat(10)}\n`)], 10);
  t.same(exact.lines, ["x".repeat(10)], "a line of exactly the limit");
  t.ok(exact.ok);
  const over = split([Buffer.from("x".repeat(6)), Buffer.from("x".repeat(5))], 10);
  t.notOk(over.ok, "one byte more, with no newline yet: refused at once");
  t.equal(over.buffered, 0, "and nothing kept");
  const later = split([Buffer.from("ok\n"), Buffer.from(`${"y".repeat(11)}\nafter\n`)], 10);
  t.same(later.lines, ["ok"], "nothing after the refusal");
  t.notOk(later.ok);
  t.end();
});

t.test("a stop from the reader ends the stream", (t) => {
  const lines: string[] = [];
  const s = new LineSplitter({ maxLineBytes: 100 }, (l) => {
    lines.push(l);
    return l !== "stop";
  });
  t.notOk(s.push(Buffer.from("a\nstop\nb\n")));
  t.notOk(s.push(Buffer.from("c\n")));
  t.same(lines, ["a", "stop"]);
  s.setLimits({ maxLineBytes: 5 });
  t.equal(s.limit, 5);
  t.end();
});
