// `sim-vs-ns3 --pooled`: the fat tree's quantiles over every seed's flows at once, with a cluster
// bootstrap over seeds; and the per-flow slowdowns `metricsOf` keeps for it.
import t from "tap";
import { metricsOf, pairedRatioCell } from "../../scripts/bench/ns3-fidelity.js";
import { pooledQuantile, pooledRatio, pooledRatioCell, pooledRows } from "../../scripts/bench/ns3-pooled.js";

/** Nearest-rank quantile of one list, as the per-seed table takes it. */
function nearestRank(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** Deterministic test data: seed i's n slowdowns. */
function seedFlows(i: number, n: number, scale = 1): number[] {
  return Array.from({ length: n }, (_, k) => scale * (1 + ((k * 7919 + i * 104729) % 1000) / 37));
}

t.test("the pooled quantile is the nearest-rank quantile of all seeds' flows in one list", async (t) => {
  const perSeed = [seedFlows(1, 150), seedFlows(2, 90), seedFlows(3, 301)];
  const all = perSeed.flat();
  for (const q of [0.5, 0.99, 0.01, 1]) t.equal(pooledQuantile(perSeed, q), nearestRank(all, q), `q ${q}`);
  t.equal(pooledQuantile([[1, 2], [3]], 0.5), 2, "three flows: the second");
  t.ok(Number.isNaN(pooledQuantile([[], []], 0.99)), "no flow: NaN");
  t.equal(
    pooledQuantile([[1, 2, Number.POSITIVE_INFINITY]], 0.99),
    Number.POSITIVE_INFINITY,
    "unfinished counts",
  );
});

t.test("pooledRatio: the pooled quantiles' ratio, with a cluster bootstrap over seeds", async (t) => {
  const theirs = Array.from({ length: 8 }, (_, i) => seedFlows(i, 200));
  const same = pooledRatio(theirs, theirs, 0.99);
  t.same([same.ratio, same.lo, same.hi], [1, 1, 1], "the same flows: 1 and a point interval");
  const slower = pooledRatio(
    theirs.map((xs) => xs.map((x) => 1.1 * x)),
    theirs,
    0.99,
  );
  t.ok(Math.abs(slower.ratio - 1.1) < 1e-12 && Math.abs(slower.lo - 1.1) < 1e-12, "every flow 1.1×: 1.1");
  t.ok(Math.abs(slower.hi - 1.1) < 1e-12);
  // Ours: one seed (its flow list) much slower than HPCC's on it; the bootstrap sees that seed come and go.
  const ours = theirs.map((xs, i) => (i === 3 ? xs.map((x) => 3 * x) : xs));
  const r = pooledRatio(ours, theirs, 0.99);
  t.ok(r.ratio > 1 && r.lo <= r.ratio && r.ratio <= r.hi, `${r.lo} ≤ ${r.ratio} ≤ ${r.hi}`);
  t.equal(r.lo, 1, "resamples without seed 3: 1");
  t.same(pooledRatio(ours, theirs, 0.99), r, "deterministic: the same interval every time");
  t.equal(r.ours, pooledQuantile(ours, 0.99));
});

t.test("pooledRatioCell: the interval, unfinished pools, empty buckets", async (t) => {
  const theirs = Array.from({ length: 5 }, (_, i) => seedFlows(i, 100));
  t.equal(pooledRatioCell(theirs, theirs, 0.5), "1.00 (1.00–1.00)");
  t.equal(
    pooledRatioCell(
      theirs.map((xs) => xs.map((x) => 1.2 * x)),
      theirs,
      0.5,
    ),
    "1.20 (1.20–1.20)*",
    "the interval leaves out 1",
  );
  // Two of HPCC's 500 flows unfinished: its pooled p99 is finite; ten: unfinished.
  const inf = Number.POSITIVE_INFINITY;
  const two = theirs.map((xs, i) => (i < 2 ? [...xs.slice(1), inf] : xs));
  t.match(pooledRatioCell(theirs, two, 0.99), /^\d\.\d\d \(/);
  const ten = theirs.map((xs) => [...xs.slice(2), inf, inf]);
  t.match(pooledRatioCell(theirs, ten, 0.99), / \/ unfinished$/);
  t.equal(pooledRatioCell([[], []], [[], []], 0.99), "no flow");
});

t.test("pooledRows: one row per case and accounting; runs saved without flows say so", async (t) => {
  const m = (k: number) => ({ slowdowns: [seedFlows(k, 50), seedFlows(k, 20), [], [2]] });
  const rows = pooledRows(
    [
      { name: "fat tree", ns3: [m(1), m(2)], ours: { "hpcc-ns3": [m(1), m(2)] } },
      { name: "old run", ns3: [{}, {}], ours: { "hpcc-ns3": [{}, {}] } },
    ],
    4,
  );
  t.equal(rows.length, 2);
  t.same(rows[0]!.slice(0, 4), ["fat tree", "mmu hpcc-ns3", "1.00 (1.00–1.00)", "1.00 (1.00–1.00)"]);
  t.equal(rows[0]![6], "no flow");
  t.same(rows[1]!.slice(2), Array(8).fill("not saved"));
});

t.test("metricsOf keeps every flow's slowdown per bucket, ascending, for pooling", async (t) => {
  const m = metricsOf({
    flows: [
      { bytes: 50_000, fctNs: 3_000, idealNs: 1_000 },
      { bytes: 2_000, fctNs: 1_500, idealNs: 1_000 },
      { bytes: 200_000, fctNs: null, idealNs: 1_000 },
      { bytes: 20_000_000, fctNs: 500, idealNs: 1_000 },
    ],
    queuePeakBytes: 0,
    pauses: 0,
    cnps: 0,
    drops: 0,
    dataPackets: 0,
    cpuMs: 0,
  });
  t.same(m.slowdowns, [[1.5, 3], [Number.POSITIVE_INFINITY], [], [1]], "slowdowns at least 1");
});

t.test("the paired interval uses Student's t for the seeds' count (20 seeds: 2.09)", async (t) => {
  // Ratios alternating 1.2 and 0.8 over 20 seeds: mean 1, sd 0.205; half-width 2.09 × sd / √20 = 0.096
  // (with 2.0 it would be 0.092: 0.91–1.09).
  const ours = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 12 : 8));
  t.equal(pairedRatioCell(ours, Array(20).fill(10)), "1.00 (0.90–1.10)");
});
