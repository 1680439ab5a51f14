import t from "tap";
import { type FidelityResult, inSeedRange, METRICS, renderComparison } from "../../scripts/bench/fidelity.js";

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
