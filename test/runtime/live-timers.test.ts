// The live runtime's device timers (src/runtime/live/timers.ts): every armed timer fires once, in time order,
// and the Node timer behind them is not replaced every time the earliest event moves by nanoseconds (at
// high frame rates that churn was a tenth of a switch process's CPU).

import { setTimeout as sleep } from "node:timers/promises";
import t from "tap";
import { LiveClock } from "../../src/runtime/live/clock.js";
import { DilationTimeline } from "../../src/runtime/live/dilation.js";
import { LiveTimers } from "../../src/runtime/live/timers.js";

/** A promise and the function that resolves it (Node 20 has no Promise.withResolvers). */
function signal(): { done: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  return { done, resolve };
}

t.test("a transmit-like pattern keeps one Node timer instead of replacing it per frame", async (t) => {
  const clock = new LiveClock(process.hrtime.bigint(), 1);
  const fired: number[] = [];
  const timers = new LiveTimers(clock, (id) => fired.push(id));
  const realSetTimeout = globalThis.setTimeout;
  let created = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    created++;
    return realSetTimeout(...args);
  }) as typeof setTimeout;
  t.teardown(() => {
    globalThis.setTimeout = realSetTimeout;
    timers.stop();
  });
  // A far periodic timer (a watchdog poll), then 500 frames: each arms its serialisation end 83 ns ahead
  // and is run once that time has passed, as the device host does after each received frame.
  timers.arm(1, clock.now() + 200_000_000);
  const cycles = 500;
  for (let i = 0; i < cycles; i++) {
    const at = clock.now() + 83;
    timers.arm(100 + i, at);
    while (clock.now() < at) {
      // wait for 83 emulated ns (83 real ns at dilation 1)
    }
    timers.runDue();
  }
  t.same(
    fired,
    Array.from({ length: cycles }, (_, i) => 100 + i),
    "every frame timer fired once, in order; the far one not yet",
  );
  t.ok(created < 20, `Node timers created: ${created} for ${cycles} frames (was one or two per frame)`);
});

t.test("an earlier timer armed behind a far one still fires", async (t) => {
  const clock = new LiveClock(process.hrtime.bigint(), 1);
  const fired: number[] = [];
  const { done, resolve } = signal();
  const timers = new LiveTimers(clock, (id) => {
    fired.push(id);
    if (id === 2) resolve();
  });
  t.teardown(() => timers.stop());
  timers.arm(1, clock.now() + 60_000_000_000); // a minute away
  timers.arm(2, clock.now() + 5_000_000); // 5 ms away: must replace the pending Node timer
  await done;
  t.same(fired, [2]);
});

t.test(
  "timers armed while a run is sure to follow do not read the clock; the run schedules them",
  async (t) => {
    const clock = new LiveClock(process.hrtime.bigint(), 1);
    let reads = 0;
    const counting = Object.create(clock) as LiveClock;
    counting.realMsUntil = (at: number) => {
      reads++;
      return clock.realMsUntil(at);
    };
    const fired: number[] = [];
    const { done, resolve } = signal();
    const timers = new LiveTimers(counting, (id) => {
      fired.push(id);
      // A timer armed from inside a run (a port starting its next frame) is scheduled by that run.
      if (id < 10) timers.arm(10 + id, clock.now() + 2_000_000);
      if (id === 12) resolve();
    });
    t.teardown(() => timers.stop());
    timers.defer();
    for (let i = 0; i < 3; i++) timers.arm(i, clock.now() + 1_000_000 * (i + 1));
    t.equal(reads, 0, "arming after defer() reads no clock");
    t.ok(timers.nextAt < Number.POSITIVE_INFINITY, "the earliest armed time is known at once");
    timers.runDue();
    t.equal(reads, 1, "the run that follows sets the Node timer once");
    await done;
    t.same(fired.slice(0, 3), [0, 1, 2], "the deferred ones fire in time order");
    t.same(
      fired.filter((id) => id >= 10),
      [10, 11, 12],
      "and so do the ones armed inside a run (scheduled by it)",
    );
  },
);

t.test("the free-running clock's dilation is the one in force at its last now()", async (t) => {
  const epoch = process.hrtime.bigint() - 10_000_000_000n;
  const timeline = DilationTimeline.fixed(1000);
  const clock = new LiveClock(epoch, timeline);
  clock.now();
  t.equal(clock.dilation, 1000);
  // From 1 ms after this instant on, dilation 2000.
  timeline.change(Number(process.hrtime.bigint() - epoch) + 1_000_000, 2000);
  await sleep(5);
  t.equal(clock.dilation, 1000, "the change had not started at the last now()");
  const before = clock.now();
  t.equal(clock.dilation, 2000, "it has at this one");
  t.equal(clock.realNs(5), 10_000, "real time of an emulated duration at the new dilation");
  t.ok(clock.now() >= before, "emulated time goes on across the change");
});
