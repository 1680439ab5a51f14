// The lab's dilation over time: continuous emulated time across a change, the inverse, a shared table
// read by another view of the same memory, and the ring of segments.
import t from "tap";
import { DilationTimeline, dilationTableBytes, SEGMENTS } from "../../src/runtime/realtime/dilation.js";

t.test("one segment: emulated = real / dilation", async (t) => {
  const d = DilationTimeline.fixed(1000);
  t.equal(d.emulated(5_000_000), 5_000);
  t.equal(d.emulated(5_000_999), 5_000, "floored");
  t.equal(d.realAt(5_000), 5_000_000);
  t.equal(d.factor(123), 1000);
  t.throws(() => DilationTimeline.fixed(0), /between 1 and/);
});

t.test("a change keeps emulated time continuous and runs at the new rate after it", async (t) => {
  const d = DilationTimeline.fixed(1000);
  d.change(10_000_000, 4000); // at 10 ms real: emulated 10 us
  t.equal(d.emulated(9_999_999), 9_999);
  t.equal(d.emulated(10_000_000), 10_000, "no jump at the change");
  t.equal(d.emulated(14_000_000), 11_000, "4 ms real at D = 4000 is 1 us");
  t.equal(d.factor(9_000_000), 1000, "before the change: the old dilation");
  t.equal(d.factor(10_000_000), 4000);
  t.equal(d.realAt(11_000), 14_000_000, "the inverse uses the segment that emulated time falls in");
  t.equal(d.realAt(5_000), 5_000_000);
  t.throws(() => d.change(9_000_000, 2000), /cannot start before/);
});

t.test("a second view of the same memory sees the writer's changes (the device side)", async (t) => {
  const buffer = new ArrayBuffer(dilationTableBytes());
  const writer = DilationTimeline.format(buffer, 1000);
  const reader = new DilationTimeline(new Float64Array(buffer));
  t.equal(reader.emulated(3_000_000), 3_000);
  writer.change(4_000_000, 500);
  t.equal(reader.emulated(5_000_000), 6_000, "1 ms at D = 500 is 2 us after the 4 us of the change");
  t.equal(reader.emulated(3_000_000), 3_000, "a look into the past still uses the old dilation");
  t.throws(
    () => new DilationTimeline(new Float64Array(new ArrayBuffer(dilationTableBytes()))),
    /not initialised/,
  );
});

t.test("the ring keeps the last SEGMENTS changes", async (t) => {
  const d = DilationTimeline.fixed(1000);
  for (let i = 1; i <= SEGMENTS + 10; i++) d.change(i * 1_000_000, 1000 + (i % 2));
  t.equal(d.count, SEGMENTS + 11);
  t.equal(d.segments().length, SEGMENTS);
  const last = d.segments().at(-1)!;
  t.equal(d.emulated(last.startReal + 2_000_000), last.startEmu + Math.floor(2_000_000 / last.factor));
});

t.test("the segment kept for the per-frame path gives way to a new one and to another time", async (t) => {
  const buffer = new ArrayBuffer(dilationTableBytes());
  const writer = DilationTimeline.format(buffer, 1000);
  const reader = new DilationTimeline(new Float64Array(buffer));
  t.equal(reader.emulated(1_000_000), 1_000, "the first segment, now kept");
  writer.change(2_000_000, 2000);
  t.equal(reader.emulated(1_500_000), 1_500, "a change written since: looked up again, still before it");
  t.equal(reader.emulated(4_000_000), 3_000, "after the change, from the segment kept before it");
  t.equal(reader.factor(4_000_000), 2000);
  t.equal(reader.factor(1_000_000), 1000, "a look back leaves the kept segment");
  t.equal(reader.emulated(6_000_000), 4_000, "and the next look forward finds the new one again");
  t.equal(
    reader.emulated(-1_000_000),
    -1_000,
    "before the oldest segment: its dilation, as the search has it",
  );
});
