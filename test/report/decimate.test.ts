// Thinning series to the chart's pixel columns (src/report/decimate.ts, and plot-kit's thinLines that every
// line chart goes through): extremes and end points survive, order is kept, short series are untouched,
// and no series exceeds two points per column plus its two ends.
import t from "tap";
import { decimate, POINTS_PER_COLUMN } from "../../src/report/decimate.js";
import { thinLines, WIDTH } from "../../src/report/plot-kit.js";

/** A deterministic noisy series (no Math.random: a failure must reproduce). */
function noisy(n: number, seed = 7) {
  let x = seed;
  return Array.from({ length: n }, (_, i) => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return { t: i * 10, v: 50 + (x % 1000) / 100, i };
  });
}

/** The column a point falls in, as decimate computes it over the series' own range. */
const columnOf = (tt: number, from: number, to: number, columns: number) =>
  Math.min(columns - 1, Math.floor(((tt - from) / (to - from)) * columns));

t.test("a short series comes back untouched", (t) => {
  const pts = noisy(2 * 100 + 2);
  const out = decimate(pts, 100);
  t.same(out, pts, "every point, same order");
  t.not(out, pts, "a copy, not the caller's array");
  t.same(decimate([], 10), []);
  t.same(decimate([{ t: 5, v: 1 }], 10), [{ t: 5, v: 1 }]);
  t.end();
});

t.test("at most two points per column plus the two ends", (t) => {
  for (const [n, columns] of [
    [2 * 100 + 3, 100],
    [4 * 100, 100],
    [100_000, 720],
    [5_000, 100],
    [1_000, 1],
  ] as const) {
    const out = decimate(noisy(n), columns);
    t.ok(out.length <= POINTS_PER_COLUMN * columns + 2, `${n} points into ${columns} columns: ${out.length}`);
    t.ok(out.length >= columns, "a noisy series keeps points in every column");
  }
  t.end();
});

t.test("order is kept and the first and last points stay", (t) => {
  const pts = noisy(20_000);
  const out = decimate(pts, 300);
  t.same(out[0], pts[0]);
  t.same(out[out.length - 1], pts[pts.length - 1]);
  const idx = out.map((p) => p.i);
  t.ok(
    idx.every((x, k) => k === 0 || x > idx[k - 1]!),
    "a subsequence of the input, in its order",
  );
  t.end();
});

t.test("each column's lowest and highest points survive: a one-sample peak, pause and drop", (t) => {
  const pts = noisy(50_000).map((p) =>
    p.i === 12_345
      ? { ...p, v: 1e6 }
      : p.i === 33_333
        ? { ...p, v: 0 }
        : p.i === 40_000
          ? { ...p, v: -5 }
          : p,
  );
  const columns = 400;
  const out = decimate(pts, columns);
  for (const i of [12_345, 33_333, 40_000])
    t.ok(
      out.some((p) => p.i === i),
      `sample ${i} kept`,
    );
  // Per column, the extremes of the input are the extremes of the output.
  const from = pts[0]!.t;
  const to = pts[pts.length - 1]!.t;
  const range = (list: readonly { t: number; v: number }[]) => {
    const m = new Map<number, [number, number]>();
    for (const p of list) {
      const c = columnOf(p.t, from, to, columns);
      const [lo, hi] = m.get(c) ?? [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
      m.set(c, [Math.min(lo, p.v), Math.max(hi, p.v)]);
    }
    return m;
  };
  t.same(range(out), range(pts), "every column spans the same values");
  t.end();
});

t.test("a flat series collapses to one point per column", (t) => {
  const pts = Array.from({ length: 10_000 }, (_, i) => ({ t: i, v: 3 }));
  const out = decimate(pts, 50);
  t.ok(out.length <= 50 + 2, `${out.length} points`);
  t.end();
});

t.test("the chart's range and a log axis set the columns", (t) => {
  // 1 … 10^6 evenly in t: on a linear axis the first decade is a sliver of one column; on a log axis it
  // is a sixth of the chart and keeps its own points.
  const pts = Array.from({ length: 1_000_000 }, (_, i) => ({ t: i + 1, v: i % 2 }));
  const linear = decimate(pts, 60);
  const log = decimate(pts, 60, { axis: Math.log10 });
  t.ok(
    linear.filter((p) => p.t < 10).length <= 3,
    "linear: the first decade is the first point and column 0's two extremes",
  );
  t.ok(log.filter((p) => p.t < 10).length >= 8, "log: the first decade has ~10 columns of its own");
  t.ok(log.length <= 2 * 60 + 2);
  // A range wider than the series: the series is one tenth of the chart, so it gets one tenth of the points.
  const narrow = decimate(noisy(10_000), 100, { from: 0, to: 10 * 99_990 });
  t.ok(narrow.length <= 2 * 10 + 2, `${narrow.length} points over 10 columns`);
  t.end();
});

t.test("thinLines thins every series of a chart on its own, in t order", (t) => {
  const a = noisy(5_000, 1).map((p) => ({ t: p.t, v: p.v, series: "a" }));
  const b = noisy(3_000, 2).map((p) => ({ t: p.t, v: p.v, series: "b" }));
  const c = [{ t: 0, v: 1, series: "c" }];
  // Interleaved, as a chart may collect them.
  const values = [...a.slice(0, 100), ...b, ...c, ...a.slice(100)];
  const out = thinLines(values);
  for (const [name, list] of [
    ["a", a],
    ["b", b],
  ] as const) {
    const got = out.filter((x) => x.series === name);
    t.ok(got.length <= 2 * WIDTH + 2, `${name}: ${got.length} points`);
    t.ok(
      got.every((x, k) => k === 0 || x.t >= got[k - 1]!.t),
      `${name} in t order`,
    );
    t.equal(Math.max(...got.map((x) => x.v)), Math.max(...list.map((x) => x.v)), `${name}: highest kept`);
    t.equal(Math.min(...got.map((x) => x.v)), Math.min(...list.map((x) => x.v)), `${name}: lowest kept`);
  }
  t.same(
    out.filter((x) => x.series === "c"),
    c,
    "a one-point series stays",
  );
  const small = [...a.slice(0, 10), ...b.slice(0, 10)];
  t.same(thinLines(small), small, "a chart within its pixels is untouched");
  t.end();
});
