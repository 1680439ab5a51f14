import t from "tap";
import { QpSet } from "../../src/nic/transport/qp-set.js";

t.test("next finds members in slot order within a range, across words and growth", (t) => {
  const s = new QpSet();
  const members = [0, 3, 31, 32, 63, 64, 200, 1000];
  for (const m of members) s.add(m);
  const walk = (from: number, to: number): number[] => {
    const out: number[] = [];
    for (let i = s.next(from, to); i >= 0; i = s.next(i + 1, to)) out.push(i);
    return out;
  };
  t.same(walk(0, 2000), members, "every member, in order");
  t.same(walk(4, 64), [31, 32, 63], "from is inclusive, to exclusive");
  t.same(walk(1001, 5000), [], "nothing past the last member");
  t.equal(s.next(5, 5), -1, "an empty range");
  s.delete(32);
  s.delete(5000);
  t.same(walk(0, 100), [0, 3, 31, 63, 64], "a deleted member is gone; deleting a stranger is harmless");
  t.ok(s.has(1000) && !s.has(32) && !s.has(999_999), "has");
  t.end();
});

t.test("matches a plain array of flags on random operations", (t) => {
  const s = new QpSet();
  const ref = new Array<boolean>(300).fill(false);
  let x = 12345;
  const rnd = (n: number): number => {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    return x % n;
  };
  let wrong = 0;
  for (let step = 0; step < 5000; step++) {
    const slot = rnd(300);
    if (rnd(2) === 0) {
      s.add(slot);
      ref[slot] = true;
    } else {
      s.delete(slot);
      ref[slot] = false;
    }
    const from = rnd(300);
    const to = from + rnd(300 - from + 1);
    let want = -1;
    for (let i = from; i < to; i++) {
      if (ref[i]) {
        want = i;
        break;
      }
    }
    if (s.next(from, to) !== want) wrong++;
  }
  t.equal(wrong, 0, "next agrees with a linear scan");
  t.end();
});
