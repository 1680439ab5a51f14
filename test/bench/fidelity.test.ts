import t from "tap";
import {
  type FidelityResult,
  inSeedRange,
  METRICS,
  renderComparison,
  renderExact,
  sameTables,
  tableValues,
} from "../../scripts/bench/fidelity.js";
import type { Report } from "../../src/report/report.js";

/** Figures for every metric: `value` for the one named, 1 for the rest. */
function figures(name: string, value: number): Record<string, number> {
  return Object.fromEntries(METRICS.map((m) => [m.name, m.name === name ? value : 1]));
}

const P50 = "packet latency p50 µs";

t.test("the simulator's seed range is printed, and whether the live mean lies inside it", (t) => {
  const res: FidelityResult = {
    scenario: "s",
    dilation: 1000,
    sim: figures(P50, 34.3),
    live: [figures(P50, 24.3), figures(P50, 42.5)],
    liveWallMs: [1, 1],
    simSeeds: [figures(P50, 34.3), figures(P50, 24.3), figures(P50, 52.7)],
  };
  const text = renderComparison(res);
  const row = text.split("\n").find((l) => l.startsWith(P50))!;
  t.match(text, /sim, 3 seeds/);
  t.match(row, /0\.97×/, "live mean 33.4 against the one run's 34.3");
  t.match(row, /24\.3–52\.7/, "the range across seeds");
  t.match(row, /yes\s*$/, "33.4 lies inside 24.3–52.7");
  const outside = renderComparison({ ...res, live: [figures(P50, 60), figures(P50, 61)] });
  t.match(outside.split("\n").find((l) => l.startsWith(P50))!, /no\s*$/, "60.5 lies outside");
  t.end();
});

t.test("results saved before the seed range existed print as before", (t) => {
  const { simSeeds: _, ...old } = {
    scenario: "s",
    dilation: 1000,
    sim: figures(P50, 2),
    live: [figures(P50, 2)],
    liveWallMs: [1],
    simSeeds: undefined,
  };
  const text = renderComparison(old);
  t.notMatch(text, /seeds/);
  t.match(text.split("\n").find((l) => l.startsWith(P50))!, /1\.00×\s*$/);
  t.end();
});

t.test("a live mean equal to every seed's value is inside their range, whatever its last bit", (t) => {
  const v = 974.8475;
  const mean = [v, v, v, v, v].reduce((a, b) => a + b, 0) / 5;
  t.not(mean, v, "the mean of five equal values is not bit-equal to them");
  t.equal(inSeedRange(mean, [v, v, v]), "yes");
  t.equal(inSeedRange(v * 1.001, [v, v, v]), "no", "a real difference is still outside");
  t.end();
});

t.test("live runs are judged value by value on every device table", (t) => {
  const report = (tx: number, peak: number) =>
    ({
      devices: {
        leaf1: { counters: { arp_sent: 0 }, ports: { eth1: { tx_packets: tx, watermark_bytes: peak } } },
        h1: { counters: { rx_packets: 5 }, lag: "not a number" },
      },
    }) as unknown as Report;
  t.same(
    [...tableValues(report(3, 60)).keys()],
    [
      "leaf1.counters.arp_sent",
      "leaf1.ports.eth1.tx_packets",
      "leaf1.ports.eth1.watermark_bytes",
      "h1.counters.rx_packets",
    ],
    "every number, by path; strings are not counters",
  );
  t.same(sameTables(report(3, 60), report(3, 60)), { equal: 4, total: 4 });
  t.same(sameTables(report(3, 60), report(3, 98)), { equal: 3, total: 4 }, "a watermark that differs");
  const res: FidelityResult = {
    scenario: "x",
    dilation: 1000,
    sim: Object.fromEntries(METRICS.map((m) => [m.name, 1])),
    live: [Object.fromEntries(METRICS.map((m) => [m.name, 1]))],
    liveWallMs: [1],
    simFct: [10],
    liveFct: [[10]],
    liveTables: [{ equal: 3, total: 4 }],
  };
  t.match(renderExact(res), `1/1 flows, ${METRICS.length}/${METRICS.length} metrics, 3/4 counter values`);
  t.end();
});
