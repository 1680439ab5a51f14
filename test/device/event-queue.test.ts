import t from "tap";
import { EventQueue } from "../../src/device/event-queue.js";

t.test("events come out by time, then in the order they were pushed, across growth", (t) => {
  const q = new EventQueue<{ t: number; seq: number; id: number }>();
  const ref: { t: number; id: number }[] = [];
  let x = 7;
  const rnd = (n: number): number => {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    return x % n;
  };
  const out: number[] = [];
  const want: number[] = [];
  let id = 0;
  let now = 0;
  let peekWrong = 0;
  for (let step = 0; step < 20_000; step++) {
    if (rnd(3) !== 0 || q.size === 0) {
      // Few distinct times, so ties are common; never before the last popped time.
      const e = { t: now + rnd(50), seq: 0, id: id++ };
      q.push(e);
      ref.push(e);
    } else {
      if (q.peekTime() !== Math.min(...ref.map((e) => e.t))) peekWrong++;
      const e = q.pop()!;
      now = e.t;
      out.push(e.id);
      let best = 0;
      for (let i = 1; i < ref.length; i++) {
        if (ref[i]!.t < ref[best]!.t || (ref[i]!.t === ref[best]!.t && ref[i]!.id < ref[best]!.id)) best = i;
      }
      want.push(ref.splice(best, 1)[0]!.id);
    }
  }
  t.equal(peekWrong, 0, "peekTime is the earliest time");
  t.ok(id > 5000 && q.size > 1024, `more than 1024 queued at the end (${q.size})`);
  t.same(out, want, `${out.length} pops in (time, push order)`);
  t.equal(q.pop()?.id, ref.sort((a, b) => a.t - b.t || a.id - b.id)[0]!.id);
  t.end();
});

t.test("events of equal time come out by rank, then in push order; drain keeps that order", (t) => {
  const q = new EventQueue<{ t: number; seq: number; id: number; rank: number }>();
  const ref: { t: number; id: number; rank: number }[] = [];
  let x = 11;
  const rnd = (n: number): number => {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    return x % n;
  };
  const order = (a: (typeof ref)[number], b: (typeof ref)[number]): number =>
    a.t - b.t || a.rank - b.rank || a.id - b.id;
  const out: number[] = [];
  const want: number[] = [];
  let id = 0;
  let now = 0;
  for (let step = 0; step < 20_000; step++) {
    if (rnd(3) !== 0 || q.size === 0) {
      // Few distinct times and ranks (ranks as large as the simulator's), so both ties are common.
      const e = { t: now + rnd(20), seq: 0, id: id++, rank: rnd(4) * 2 ** 37 + rnd(3) };
      q.push(e, e.rank);
      ref.push(e);
    } else {
      const e = q.pop()!;
      now = e.t;
      out.push(e.id);
      ref.sort(order);
      want.push(ref.shift()!.id);
    }
  }
  t.same(out, want, `${out.length} pops in (time, rank, push order)`);
  const drained = q.drain().map((e) => e.id);
  t.same(
    drained,
    ref.sort(order).map((e) => e.id),
    `drain gives the ${drained.length} left in order`,
  );
  t.equal(q.size, 0);
  t.end();
});
