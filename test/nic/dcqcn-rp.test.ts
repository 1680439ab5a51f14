// The reaction point against trajectories worked out by hand from the published rules (the expected values
// below are written as the arithmetic of those rules, step by step, never by calling the code under test).

import t from "tap";
import { DCQCN_PROFILES, dcqcnProfile } from "../../src/nic/cc/dcqcn-params.js";
import { DcqcnRp, RpTimer } from "../../src/nic/cc/dcqcn-rp.js";

const LINE = 100e9;
const G = 1e9;

/** Fires the increase timer at the time the RP asks for, and returns that time. */
function tick(rp: DcqcnRp): number {
  const at = rp.timerAt(RpTimer.Increase);
  if (at < 0) throw new Error("increase timer not armed");
  rp.onTimer(RpTimer.Increase, at);
  return at;
}

/** Equal up to floating-point rounding. */
function near(got: number, want: number): boolean {
  return Math.abs(got - want) <= Math.abs(want) * 1e-12 + 1e-6;
}

t.test("paper: one CNP, five fast-recovery steps, then additive increase", (t) => {
  const rp = new DcqcnRp(DCQCN_PROFILES.paper, LINE);
  t.equal(rp.rate, LINE, "flows start at line rate");
  t.ok(rp.onCnp(0), "the CNP changes the rate");
  // Cut first with α = 1 (CoNEXT'16 order): RT = RC = 100G, RC = 100G (1 − 1/2).
  t.equal(rp.rate, 50 * G);
  t.equal(rp.target, 100 * G);
  // α = (1 − 1/256)·1 + 1/256 = 1.
  t.equal(rp.alpha(0), 1);
  t.equal(rp.timerAt(RpTimer.Increase), 55_000, "T = 55 µs");
  const expected = [75, 87.5, 93.75, 96.875, 98.4375].map((x) => x * G);
  for (let i = 0; i < 5; i++) {
    const at = tick(rp);
    t.equal(at, 55_000 * (i + 1));
    t.equal(rp.rate, expected[i], `fast recovery ${i + 1}: RC = (RC + RT)/2`);
    t.equal(rp.target, 100 * G, "RT untouched in fast recovery");
  }
  // Sixth event: additive increase; RT + 40 Mb/s is capped at the line rate.
  tick(rp);
  t.equal(rp.target, LINE);
  t.equal(rp.rate, (98.4375 * G + LINE) / 2);
  t.end();
});

t.test("paper: a second CNP clamps RT; additive then hyper increase", (t) => {
  const rp = new DcqcnRp(DCQCN_PROFILES.paper, LINE);
  rp.onCnp(0);
  rp.onCnp(10_000);
  // Clamp RT = 50G, RC = 50G·(1 − 1/2) = 25G (α still 1: no decay before 55 µs).
  t.equal(rp.target, 50 * G);
  t.equal(rp.rate, 25 * G);
  t.equal(rp.timerAt(RpTimer.Increase), 65_000, "the timer restarts at the cut");
  let rc = 25 * G;
  let rt = 50 * G;
  for (let i = 0; i < 5; i++) {
    tick(rp);
    rc = (rc + rt) / 2;
  }
  t.equal(rp.rate, 49.21875 * G, "five fast-recovery steps: 37.5, 43.75, 46.875, 48.4375, 49.21875");
  // Timer stage 5 (≥ F) and byte stage 0 (≤ F): additive, +40 Mb/s.
  t.equal(tick(rp), 340_000);
  rt += 40e6;
  rc = (rc + rt) / 2;
  t.equal(rp.target, 50.04 * G);
  t.ok(near(rp.rate, 49.629375 * G), `RC after AI: ${rp.rate} vs ${49.629375 * G}`);
  tick(rp);
  rt += 40e6;
  rc = (rc + rt) / 2;
  t.equal(rp.target, 50.08 * G);
  t.ok(near(rp.rate, rc), `RC after the second AI: ${rp.rate} vs ${rc}`);
  // Byte-counter events (10 MB each): stages 0..5 are additive, the 7th (both stages past F) is hyper.
  for (let b = 0; b <= 5; b++) {
    t.ok(rp.onBytesSent(10_000_000, 400_000), `byte event ${b + 1}`);
    rt += 40e6;
    rc = (rc + rt) / 2;
  }
  t.ok(near(rp.target, 50.32 * G), `six additive steps from the byte counter: ${rp.target} vs ${50.32 * G}`);
  t.equal(rp.byteStage, 6);
  t.ok(rp.onBytesSent(10_000_000, 400_000));
  rt += 200e6;
  rc = (rc + rt) / 2;
  t.ok(near(rp.target, 50.52 * G), `hyper increase: + R_HAI (200 Mb/s): ${rp.target} vs ${50.52 * G}`);
  t.ok(near(rp.rate, rc), `RC after the hyper increase: ${rp.rate} vs ${rc}`);
  t.equal(rp.cnpHandled, 2);
  t.end();
});

t.test("paper: α decays by (1 − g) every 55 µs without CNP; the cut uses the α from before the CNP", (t) => {
  const rp = new DcqcnRp(DCQCN_PROFILES.paper, LINE);
  rp.onCnp(0);
  const k = 1 - 1 / 256;
  t.equal(rp.alpha(54_999), 1);
  t.equal(rp.alpha(55_000), k);
  t.equal(rp.alpha(110_000), k * k);
  t.equal(rp.alpha(164_999), k * k);
  const rcBefore = rp.rate;
  rp.onCnp(165_000);
  const a = k * k * k;
  t.ok(
    near(rp.rate, rcBefore * (1 - a / 2)),
    `cut with α = (1−g)^3: ${rp.rate} vs ${rcBefore * (1 - a / 2)}`,
  );
  t.ok(
    near(rp.alpha(165_000), a * k + 1 / 256),
    `then α = (1−g)α + g: ${rp.alpha(165_000)} vs ${a * k + 1 / 256}`,
  );
  t.ok(
    near(rp.alpha(219_999), a * k + 1 / 256),
    `decay counts from the last CNP: ${rp.alpha(219_999)} vs ${a * k + 1 / 256}`,
  );
  t.end();
});

t.test("paper with α updated before the cut (the first author's ns-3 order)", (t) => {
  const rp = new DcqcnRp(dcqcnProfile("paper", { alphaBeforeCut: true, initialAlpha: 0.5 }), LINE);
  rp.onCnp(0);
  const a = 0.5 * (1 - 1 / 256) + 1 / 256;
  t.ok(
    near(rp.rate, LINE * (1 - a / 2)),
    `RC = RC (1 − α'/2) with the updated α': ${rp.rate} vs ${LINE * (1 - a / 2)}`,
  );
  t.end();
});

t.test("paper: the rate never falls below the minimum rate", (t) => {
  const rp = new DcqcnRp(DCQCN_PROFILES.paper, LINE);
  for (let i = 0; i < 40; i++) rp.onCnp(i * 1000);
  t.equal(rp.rate, 100e6, "floored at 100 Mb/s");
  t.equal(rp.cuts, 40);
  t.end();
});

t.test("nvidia: two CNPs within 4 µs cause one cut, with α updated every 1 µs", (t) => {
  const rp = new DcqcnRp(DCQCN_PROFILES.nvidia, LINE);
  t.notOk(rp.onCnp(0), "no immediate cut: the monitor period decides");
  t.equal(rp.timerAt(RpTimer.Cut), 4000);
  t.equal(rp.alpha(0), 1023 / 1024, "initial_alpha_value 1023");
  t.notOk(rp.onCnp(2000));
  t.equal(rp.timerAt(RpTimer.Cut), 4000, "the second CNP does not move the monitor");
  t.ok(rp.onTimer(RpTimer.Cut, 4000));
  // α: 1 µs and 2 µs down (the first CNP does not count), 3 µs up (CNP at 2 µs), 4 µs down.
  const k = 1019 / 1024;
  const g = 5 / 1024;
  const a4 = ((1023 / 1024) * k * k * k + g) * k;
  t.ok(near(rp.alpha(4000), a4), `α after four periods: ${rp.alpha(4000)} vs ${a4}`);
  t.ok(
    near(rp.rate, LINE * (1 - a4 / 2)),
    `one cut of α/2 (rpg_gd 11): ${rp.rate} vs ${LINE * (1 - a4 / 2)}`,
  );
  t.equal(rp.target, LINE, "no clamp: no increase happened since the last cut");
  t.equal(rp.cuts, 1);
  t.equal(rp.timerAt(RpTimer.Cut), 8000);
  const rc = rp.rate;
  t.notOk(rp.onTimer(RpTimer.Cut, 8000), "no CNP in the next period: no cut");
  t.equal(rp.rate, rc);
  t.equal(rp.timerAt(RpTimer.Cut), -1, "the monitor goes idle");
  t.equal(rp.cuts, 1);
  t.ok(
    near(rp.alpha(10_000), a4 * k ** 6),
    `α keeps decaying every microsecond: ${rp.alpha(10_000)} vs ${a4 * k ** 6}`,
  );
  t.end();
});

t.test("nvidia: rpg_min_dec_fac caps one cut at 50 %", (t) => {
  // With rpg_gd 10 the cut would be RC·α ≈ 98 %; min_dec_fac 50 keeps half.
  const rp = new DcqcnRp(dcqcnProfile("nvidia", { cutFactor: 1 }), LINE);
  rp.onCnp(0);
  rp.onTimer(RpTimer.Cut, 4000);
  t.equal(rp.rate, 50 * G);
  // With the default rpg_gd 11 the α/2 cut is always below the cap.
  const def = new DcqcnRp(DCQCN_PROFILES.nvidia, LINE);
  def.onCnp(0);
  def.onTimer(RpTimer.Cut, 4000);
  t.ok(
    near(def.rate, LINE * (1 - ((1023 / 1024) * (1019 / 1024) ** 4) / 2)),
    `default: α/2: ${def.rate} vs ${LINE * (1 - ((1023 / 1024) * (1019 / 1024) ** 4) / 2)}`,
  );
  t.ok(def.rate > 50 * G);
  t.end();
});

t.test("nvidia: byte-counter events drive fast recovery, additive and hyper increase", (t) => {
  const rp = new DcqcnRp(DCQCN_PROFILES.nvidia, LINE);
  const B = 32_767 * 64;
  rp.onCnp(0);
  rp.onTimer(RpTimer.Cut, 4000);
  let rc = rp.rate;
  let rt = LINE;
  t.notOk(rp.onBytesSent(B - 1, 5000), "one byte short of rpg_byte_reset × 64");
  t.ok(rp.onBytesSent(1, 5001));
  rc = (rc + rt) / 2;
  t.equal(rp.rate, rc, "byte stage 0 < F = 1: fast recovery");
  t.equal(rp.byteStage, 1);
  // A CNP now: the cut at the next monitor tick clamps RT (byte stage > 0).
  rp.onCnp(6000);
  rp.onTimer(RpTimer.Cut, 8000);
  t.equal(rp.target, rc, "RT = RC at the cut");
  rt = rc;
  rc = rp.rate;
  t.ok(rc < rt);
  t.equal(rp.timerAt(RpTimer.Increase), 308_000, "T = 300 µs from the cut");
  rp.onBytesSent(B, 9000);
  rc = (rc + rt) / 2;
  t.equal(rp.rate, rc, "fast recovery");
  rp.onBytesSent(B, 9001);
  rt += 5e6;
  rc = (rc + rt) / 2;
  t.equal(rp.target, rt, "byte stage 1 = F: additive, + 5 Mb/s");
  t.equal(rp.rate, rc);
  tick(rp);
  rt += 5e6;
  rc = (rc + rt) / 2;
  t.equal(rp.target, rt, "timer stage 0, byte stage 2: still additive");
  tick(rp);
  rt += 5e6;
  rc = (rc + rt) / 2;
  t.equal(rp.target, rt, "timer stage 1: additive");
  rp.onBytesSent(B, 700_000);
  rt += 50e6;
  rc = (rc + rt) / 2;
  t.equal(rp.target, rt, "both stages past F: hyper, + 50 Mb/s");
  t.equal(rp.rate, rc);
  t.end();
});

t.test("hpcc-ns3: timer-only increases; F = 1; clamp after a timer increase", (t) => {
  const rp = new DcqcnRp(DCQCN_PROFILES["hpcc-ns3"], LINE);
  rp.onCnp(0);
  // HPCC schedules the first rate-decrease check 4 µs + 1 ns after the first CNP (after α's update).
  t.equal(rp.timerAt(RpTimer.Cut), 4001);
  rp.onTimer(RpTimer.Cut, 4001);
  const k = 1 - 1 / 256;
  t.ok(
    near(rp.rate, LINE * (1 - k ** 4 / 2)),
    `first cut after one period, α = 1 decayed 4 times: ${rp.rate}`,
  );
  t.equal(rp.target, LINE);
  t.notOk(rp.onBytesSent(100_000_000, 5000), "no byte counter");
  t.notOk(rp.onTimer(RpTimer.Cut, 8001), "no CNP since the cut");
  t.equal(rp.timerAt(RpTimer.Cut), -1, "monitor idle (no events while idle)");
  let rc = rp.rate;
  let rt = LINE;
  t.equal(tick(rp), 304_001);
  rc = (rc + rt) / 2;
  t.equal(rp.rate, rc, "stage 0 < F: fast recovery");
  rp.onCnp(305_000);
  t.equal(rp.timerAt(RpTimer.Cut), 308_001, "the grid's next point (1 + 77 × 4000), not 4 µs after the CNP");
  rp.onTimer(RpTimer.Cut, 308_001);
  // α: decays at 5..305 µs (301 periods), up at 306 µs (CNP at 305 µs), down at 307 and 308 µs.
  const a = (k ** 4 * k ** 301 * k + 1 / 256) * k ** 2;
  t.ok(near(rp.alpha(308_001), a), `α at the second cut: ${rp.alpha(308_001)} vs ${a}`);
  t.equal(rp.target, rc, "timer stage 1 > 0: RT = RC");
  rt = rc;
  rc *= 1 - a / 2;
  t.ok(near(rp.rate, rc), `second cut: ${rp.rate} vs ${rc}`);
  tick(rp);
  rc = (rc + rt) / 2;
  t.ok(near(rp.rate, rc), `fast recovery: ${rp.rate} vs ${rc}`);
  tick(rp);
  rt += 20e6;
  rc = (rc + rt) / 2;
  t.ok(near(rp.target, rt), `stage 1 = F: + R_AI (20 Mb/s): ${rp.target} vs ${rt}`);
  tick(rp);
  rt += 200e6;
  rc = (rc + rt) / 2;
  t.ok(near(rp.target, rt), `stage 2 > F: + R_HAI (200 Mb/s): ${rp.target} vs ${rt}`);
  t.ok(near(rp.rate, rc), `RC after hyper increase: ${rp.rate} vs ${rc}`);
  t.end();
});

t.test("the cut monitor: woken by a CNP (nvidia) or on HPCC's fixed grid", (t) => {
  const woken = new DcqcnRp(DCQCN_PROFILES.nvidia, LINE);
  const grid = new DcqcnRp(DCQCN_PROFILES["hpcc-ns3"], LINE);
  for (const rp of [woken, grid]) rp.onCnp(1000);
  t.same([woken.timerAt(RpTimer.Cut), grid.timerAt(RpTimer.Cut)], [5000, 5001], "first look a period later");
  woken.onTimer(RpTimer.Cut, 5000);
  grid.onTimer(RpTimer.Cut, 5001);
  woken.onTimer(RpTimer.Cut, 9000);
  grid.onTimer(RpTimer.Cut, 9001);
  t.same([woken.timerAt(RpTimer.Cut), grid.timerAt(RpTimer.Cut)], [-1, -1], "both idle after a quiet period");
  // A CNP 10.5 µs later: the woken monitor looks 4 µs after it, the grid at its next point.
  woken.onCnp(20_500);
  grid.onCnp(20_500);
  t.same([woken.timerAt(RpTimer.Cut), grid.timerAt(RpTimer.Cut)], [24_500, 21_001]);
  t.equal(grid.cuts, 1);
  grid.onTimer(RpTimer.Cut, 21_001);
  t.equal(grid.cuts, 2, "cut 0.5 µs after the CNP");
  t.end();
});

t.test("hpcc-ns3: the minimum rate is 1 Gb/s; recovery stops the timer at line rate", (t) => {
  const rp = new DcqcnRp(DCQCN_PROFILES["hpcc-ns3"], LINE);
  for (let i = 0; i < 100; i++) {
    rp.onCnp(i * 4000);
    const at = rp.timerAt(RpTimer.Cut);
    if (at >= 0 && at <= (i + 1) * 4000) rp.onTimer(RpTimer.Cut, at);
  }
  t.equal(rp.rate, 1e9, "floored at MIN_RATE");
  let n = 0;
  while (rp.timerAt(RpTimer.Increase) >= 0 && n < 10_000) {
    tick(rp);
    n++;
  }
  t.equal(rp.rate, LINE, "back at line rate");
  t.equal(rp.timerAt(RpTimer.Increase), -1, "nothing left to increase: the timer stops");
  t.end();
});

t.test("rate on first CNP and the linear hyper increase option", (t) => {
  const rp = new DcqcnRp(
    dcqcnProfile("nvidia", { rateOnFirstCnpBps: 10e9, hyperIncrease: "linear", rpByteCounter: null }),
    LINE,
  );
  rp.onCnp(0);
  t.equal(rp.rate, 10e9);
  t.equal(rp.target, 10e9);
  // Timer-only: stage 0 FR, 1 AI, 2 hyper × (2 − 1), 3 hyper × (3 − 1).
  tick(rp);
  tick(rp);
  const rt1 = 10e9 + 5e6;
  t.equal(rp.target, rt1);
  tick(rp);
  t.equal(rp.target, rt1 + 50e6);
  tick(rp);
  t.equal(rp.target, rt1 + 50e6 + 100e6);
  t.end();
});
