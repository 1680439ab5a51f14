import t from "tap";
import { createRandom } from "../../src/device/prng.js";
import { EcnAction, ecnDecision, markProbability } from "../../src/switch/ecn.js";
import { Ecn } from "../../src/wire/ipv4.js";

const cfg = { kmin: 100_000, kmax: 400_000, pmax: 0.2 };

t.test("the probability line: 0 up to Kmin, linear to Pmax at Kmax, 1 beyond", (t) => {
  t.equal(markProbability(0, cfg), 0);
  t.equal(markProbability(100_000, cfg), 0);
  t.equal(markProbability(250_000, cfg), 0.1);
  t.equal(markProbability(400_000, cfg), 0.2);
  t.equal(markProbability(400_001, cfg), 1);
  t.end();
});

t.test("marking frequency matches the line within statistical bounds", (t) => {
  const random = createRandom(42, "wred");
  const n = 40_000;
  for (const q of [50_000, 130_000, 250_000, 370_000, 400_000, 500_000]) {
    const p = markProbability(q, cfg);
    let marked = 0;
    for (let i = 0; i < n; i++) if (ecnDecision(q, Ecn.Ect0, cfg, random.next) === EcnAction.Mark) marked++;
    // Four standard deviations of a binomial proportion (and exact at p = 0 or 1).
    const tolerance = 4 * Math.sqrt((p * (1 - p)) / n);
    t.ok(
      Math.abs(marked / n - p) <= tolerance,
      `q=${q}: marked ${(marked / n).toFixed(4)}, expected ${p}±${tolerance.toFixed(4)}`,
    );
  }
  t.end();
});

t.test("ECT(1) marks like ECT(0); Not-ECT is dropped instead; CE passes untouched", (t) => {
  const random = createRandom(7, "wred");
  const n = 20_000;
  const q = 250_000; // p = 0.1
  let mark1 = 0;
  let drop = 0;
  let markNot = 0;
  for (let i = 0; i < n; i++) {
    if (ecnDecision(q, Ecn.Ect1, cfg, random.next) === EcnAction.Mark) mark1++;
    const a = ecnDecision(q, Ecn.NotEct, cfg, random.next);
    if (a === EcnAction.Drop) drop++;
    if (a === EcnAction.Mark) markNot++;
  }
  t.ok(Math.abs(mark1 / n - 0.1) < 0.01, `ECT(1) marked ${mark1 / n}`);
  t.ok(Math.abs(drop / n - 0.1) < 0.01, `Not-ECT dropped ${drop / n}`);
  t.equal(markNot, 0, "Not-ECT is never marked");
  for (const depth of [0, 250_000, 10_000_000]) {
    t.equal(ecnDecision(depth, Ecn.Ce, cfg, random.next), EcnAction.Pass, `CE passes at ${depth}`);
  }
  t.equal(
    ecnDecision(10_000_000, Ecn.NotEct, cfg, random.next),
    EcnAction.Drop,
    "Not-ECT always dropped above Kmax",
  );
  t.end();
});
