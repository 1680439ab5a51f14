// `--dilation auto`: when the supervisor raises the dilation, by how much, and when it comes back.
import t from "tap";
import {
  AutoDilation,
  LOWER_STEP,
  parseDilationOption,
  QUIET_WINDOWS,
} from "../../../src/lab/live/auto-dilation.js";
import { ClockMode } from "../../../src/lab/live/clock-plan.js";

const win = (mode: ClockMode, dilation: number, pace: number, worstLateNs = 0) => ({
  mode,
  dilation,
  emulatedNs: (pace * 1e9) / dilation,
  realNs: 1e9,
  worstLateNs,
});

t.test("synced clocks: raised by 1 / pace when the lab falls behind", async (t) => {
  const a = new AutoDilation(1000, 10_000);
  t.equal(a.decide(win(ClockMode.Synced, 1000, 0.9)), null, "pace 0.9 is close enough");
  const d = a.decide(win(ClockMode.Synced, 1000, 0.5))!;
  t.equal(d.dilation, 2200, "half speed: twice the dilation, plus 10 %");
  t.match(d.reason, /pace 0\.50/);
  t.equal(a.decide(win(ClockMode.Synced, 1000, 0.01))!.dilation, 8800, "one step raises at most 8x");
});

t.test("free clocks: raised when a timer fires later than the budget, never for pace", async (t) => {
  const a = new AutoDilation(1000, 10_000);
  t.equal(a.decide(win(ClockMode.Free, 1000, 0.5, 5_000)), null, "free clocks keep pace by definition");
  const d = a.decide(win(ClockMode.Free, 1000, 1, 40_000))!;
  t.equal(d.dilation, 5000, "40 us late against 10 us: 4x, plus 25 %");
  t.match(d.reason, /40000 ns late \(budget 10000 ns\)/);
});

t.test("lowered only after quiet windows in a row, never below the floor", async (t) => {
  const a = new AutoDilation(1000, 10_000);
  for (let i = 1; i < QUIET_WINDOWS; i++) t.equal(a.decide(win(ClockMode.Synced, 4000, 1)), null);
  t.equal(a.decide(win(ClockMode.Synced, 4000, 1))!.dilation, 4000 * LOWER_STEP);
  for (let i = 1; i < QUIET_WINDOWS; i++) a.decide(win(ClockMode.Synced, 4000, 1));
  a.decide(win(ClockMode.Synced, 4000, 0.9)); // one busy window restarts the count
  for (let i = 1; i < QUIET_WINDOWS; i++) t.equal(a.decide(win(ClockMode.Synced, 4000, 1)), null);
  t.ok(a.decide(win(ClockMode.Synced, 4000, 1)));
  for (let i = 0; i < 3 * QUIET_WINDOWS; i++)
    t.equal(a.decide(win(ClockMode.Synced, 1000, 1)), null, "at the floor");
});

t.test("--dilation as users write it", async (t) => {
  t.same(parseDilationOption("2000", 1000), { dilation: 2000, auto: false });
  t.same(parseDilationOption("auto", 1000), { dilation: 1000, auto: true });
  t.same(parseDilationOption("auto:500", 1000), { dilation: 500, auto: true });
  t.throws(() => parseDilationOption("fast", 1000), /or auto \/ auto:FLOOR/);
  t.throws(() => parseDilationOption("0", 1000), /between 1 and/);
  t.throws(() => parseDilationOption("auto:0", 1000), /floor between 1 and/);
});
