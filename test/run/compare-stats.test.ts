// compare's statistics and verdicts on figures whose answer is known by hand.
import t from "tap";
import { analyse, type RunResult } from "../../src/run/compare/analysis.js";
import { meanInterval, pairedDifference, sideOfZero, t975 } from "../../src/run/compare/stats.js";

t.test("Student t quantiles (NIST e-Handbook table 1.3.6.7.2)", async (t) => {
  t.equal(t975(1), 12.706);
  t.equal(t975(4), 2.776);
  t.equal(t975(9), 2.262);
  t.equal(t975(30), 2.042);
  t.equal(t975(1000), 1.96);
  t.throws(() => t975(0));
});

t.test("the t interval of a mean, by hand", async (t) => {
  // 1..5: mean 3, sd √2.5 = 1.5811; half-width 2.776 × 1.5811 / √5 = 1.9630.
  const i = meanInterval([5, 1, 4, 2, 3]);
  t.equal(i.mean, 3);
  t.equal(i.median, 3);
  t.ok(Math.abs(i.sd - 1.58114) < 1e-4);
  t.ok(Math.abs(i.lo - (3 - 1.963)) < 1e-3 && Math.abs(i.hi - (3 + 1.963)) < 1e-3, `${i.lo} … ${i.hi}`);
  const one = meanInterval([7]);
  t.same([one.lo, one.hi, one.sd], [7, 7, 0], "one value: no interval");
  t.equal(sideOfZero(one), 0, "one run never separates");
});

t.test("pairing by seed removes the scatter both variants share", async (t) => {
  // Seeds move both variants alike (10, 30, 20, 50, 40); b is always 5 higher.
  const a = [10, 30, 20, 50, 40];
  const b = a.map((v) => v + 5);
  t.equal(sideOfZero(meanInterval(a.map((v, i) => v - b[i]!))), -1);
  const unpairedOverlap = meanInterval(a).hi > meanInterval(b).lo;
  t.ok(unpairedOverlap, "the unpaired intervals overlap");
  const d = pairedDifference(a, b);
  t.equal(d.mean, 5);
  t.equal(sideOfZero(d), 1, "the paired difference is clearly above 0");
  t.throws(() => pairedDifference([1, 2], [1]));
});

function runs(variant: string, values: readonly number[], atLeast = false): RunResult[] {
  return values.map((v, i) => ({
    variant,
    seed: i + 1,
    values: { "fct-p99": { value: v, atLeast }, goodput: { value: 1e9, atLeast: false } },
  }));
}

t.test("verdicts: a direction only where the interval of the difference excludes 0", async (t) => {
  const fast = [100, 110, 105, 95, 102];
  const slow = [200, 190, 210, 205, 198];
  const [fct] = analyse(["slow", "fast"], [...runs("slow", slow), ...runs("fast", fast)]).filter(
    (m) => m.id === "fct-p99",
  );
  const p = fct!.pairs[0]!;
  t.equal(p.direction, -1, "fast − slow is negative");
  t.ok(p.beyondSeedScatter, "a gap of ~100 against a seed scatter of ~6");
  t.match(
    p.text,
    /FCT p99 \(all flows\): fast lower than slow by 98ns on average, paired 95 % CI of fast − slow: −112ns … −84ns/,
  );
  t.match(p.text, /larger than a change of seed/);

  const noisyA = [100, 300, 150, 250, 200];
  const noisyB = [260, 140, 210, 170, 230];
  const [same] = analyse(["a", "b"], [...runs("a", noisyA), ...runs("b", noisyB)]).filter(
    (m) => m.id === "fct-p99",
  );
  t.equal(same!.pairs[0]!.direction, 0);
  t.match(same!.pairs[0]!.text, /no difference at this N \(5 seeds/);
});

t.test("a variant whose values are lower bounds is never called lower", async (t) => {
  // "cut" left flows unfinished: its p99 values are only lower bounds, however low they look.
  const [m] = analyse(
    ["done", "cut"],
    [...runs("done", [500, 510, 490, 505, 495]), ...runs("cut", [100, 101, 99, 100, 100], true)],
  ).filter((x) => x.id === "fct-p99");
  t.equal(m!.pairs[0]!.direction, 0);
  t.match(m!.pairs[0]!.text, /undecided: cut's values are lower bounds/);
  // The other way round it holds: a lower bound above the other variant's exact values.
  const [m2] = analyse(
    ["done", "cut"],
    [...runs("done", [100, 101, 99, 100, 100]), ...runs("cut", [500, 510, 490, 505, 495], true)],
  ).filter((x) => x.id === "fct-p99");
  t.equal(m2!.pairs[0]!.direction, 1);
  t.match(m2!.pairs[0]!.text, /done lower than cut/);
});

t.test("metrics missing in some run are left out, not compared on partial data", async (t) => {
  const a = runs("a", [1, 2, 3]);
  const b = runs("b", [1, 2, 3]).map((r, i) =>
    i === 0 ? { ...r, values: { ...r.values, "fct-p99": null } } : r,
  );
  const ids = analyse(["a", "b"], [...a, ...b]).map((m) => m.id);
  t.notOk(ids.includes("fct-p99"));
  t.ok(ids.includes("goodput"));
});
