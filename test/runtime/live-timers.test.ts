// The live runtime's device timers (src/runtime/live/timers.ts): every armed timer fires once, in time order,
// and the Node timer behind them is not replaced every time the earliest event moves by nanoseconds (at
// high frame rates that churn was a tenth of a switch process's CPU).

import t from "tap";
import { LiveClock } from "../../src/runtime/live/clock.js";
import { LiveTimers } from "../../src/runtime/live/timers.js";

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
  let resolve = (): void => {};
  const done = new Promise<void>((r) => {
    resolve = r;
  });
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
