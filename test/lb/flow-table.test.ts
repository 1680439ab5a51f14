import t from "tap";
import { FlowTable } from "../../src/lb/flow-table.js";

const key = (a: number, b = 0, c = 0) => [a, b, c];

t.test("exact match: a key finds its own slot, a different key misses", (t) => {
  const ft = new FlowTable(8, 3, 1_000_000);
  const s1 = ft.insert(key(1, 2, 3), 0);
  const s2 = ft.insert(key(1, 2, 4), 0);
  t.ok(s1 >= 0 && s2 >= 0 && s1 !== s2);
  t.equal(ft.lookup(key(1, 2, 3), 10), s1);
  t.equal(ft.lookup(key(1, 2, 4), 10), s2);
  t.equal(ft.lookup(key(1, 2, 5), 10), -1);
  t.equal(ft.insert(key(1, 2, 3), 20), s1, "inserting an existing key returns its slot");
  t.equal(ft.size, 2);
  t.same(ft.counters, { hits: 3, misses: 3, inserts: 2, aged: 0, full: 0 });
  t.end();
});

t.test("32-bit keys compare unsigned (addresses above 2^31)", (t) => {
  const ft = new FlowTable(4, 1, 1000);
  const s = ft.insert([0xc0a8_0001], 0);
  t.equal(ft.lookup([0xc0a8_0001 | 0], 1), s, "a signed view of the same bits matches");
  t.end();
});

t.test("entries age out: lazily on lookup and in bulk on sweep", (t) => {
  const ft = new FlowTable(4, 1, 100);
  ft.insert([1], 0);
  ft.insert([2], 0);
  t.ok(ft.lookup([1], 100) >= 0, "seen at 100 (age 100 is not over 100)");
  t.equal(ft.lookup([2], 101), -1, "not seen for 101 ns: gone");
  t.equal(ft.size, 1);
  t.equal(ft.sweep(150), 0, "1 was refreshed at 100");
  t.equal(ft.sweep(201), 1);
  t.equal(ft.size, 0);
  t.equal(ft.counters.aged, 2);
  t.end();
});

t.test("bounded: a full table refuses new keys until something ages out", (t) => {
  const ft = new FlowTable(3, 1, 1000);
  for (let i = 0; i < 3; i++) t.ok(ft.insert([i], 0) >= 0);
  t.equal(ft.insert([99], 10), -1, "full");
  t.equal(ft.counters.full, 1);
  t.ok(ft.insert([99], 2000) >= 0, "after aging, room again");
  t.equal(ft.size, 1, "the aged entries were swept");
  t.end();
});

t.test("deleting a slot frees it; many keys in few buckets stay correct", (t) => {
  const ft = new FlowTable(64, 2, 1e9);
  const slots = new Map<number, number>();
  for (let i = 0; i < 64; i++) slots.set(i, ft.insert([i, i * 7], 0));
  for (let i = 0; i < 64; i += 2) ft.delete(slots.get(i)!);
  let ok = true;
  for (let i = 0; i < 64; i++) {
    const found = ft.lookup([i, i * 7], 1);
    ok &&= i % 2 === 0 ? found === -1 : found === slots.get(i);
  }
  t.ok(ok, "odd keys found in their slots, even keys gone");
  t.equal(ft.size, 32);
  t.ok(ft.insert([1000, 1], 2) >= 0, "freed slots are reused");
  t.end();
});

t.test(
  "a full table of live flows refuses without scanning itself per packet; aged entries still go",
  (t) => {
    class Counting extends FlowTable {
      sweeps = 0;
      override sweep(now: number): number {
        this.sweeps++;
        return super.sweep(now);
      }
    }
    const ft = new Counting(4, 1, 1000);
    for (let i = 0; i < 4; i++) ft.insert([i], i * 100); // seen at 0, 100, 200, 300
    let refused = 0;
    for (let now = 400; now <= 1000; now++) if (ft.insert([99], now) === -1) refused++;
    t.equal(refused, 601, "a packet a nanosecond from 400 to 1000 ns: every one refused");
    t.equal(ft.counters.full, 601);
    t.equal(ft.sweeps, 1, "one sweep: it found nothing could age out before 1000 ns");
    t.ok(ft.insert([99], 1001) >= 0, "at 1001 ns the entry seen at 0 has aged out: room again");
    t.equal(ft.sweeps, 2, "found by a second sweep");
    t.equal(ft.counters.aged, 1);
    ft.lookup([1], 1050); // 100 -> 1050: the oldest is now 200
    t.equal(ft.insert([98], 1150), -1, "full again; the entry seen at 200 lives until 1200");
    t.equal(ft.insert([98], 1201), 2, "at 1201 ns it goes, and its slot is taken");
    t.end();
  },
);
