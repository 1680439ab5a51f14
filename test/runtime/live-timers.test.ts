// The live runtime's device timers (src/runtime/realtime/timers.ts): every armed timer fires once, in time order,
// and the Node timer behind them is not replaced every time the earliest event moves by nanoseconds (at
// high frame rates that churn was a tenth of a switch process's CPU).

import { setTimeout as sleep } from "node:timers/promises";
import t, { type Test } from "tap";
import { LiveClock } from "../../src/runtime/realtime/clock.js";
import { DilationTimeline } from "../../src/runtime/realtime/dilation.js";
import { LiveTimers } from "../../src/runtime/realtime/timers.js";

/** A promise and the function that resolves it (Node 20 has no Promise.withResolvers). */
function signal(): { done: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  return { done, resolve };
}

/**
 * A clock at dilation 1 and a view of it that counts the timers' real-time questions (realMsUntil);
 * `exact` makes the view a synced-like clock.
 */
function countingClock(exact: boolean): { clock: LiveClock; counting: LiveClock; reads: () => number } {
  const clock = new LiveClock(process.hrtime.bigint(), 1);
  let reads = 0;
  const counting = Object.create(clock) as LiveClock;
  if (exact) Object.defineProperty(counting, "exact", { value: true });
  counting.realMsUntil = (at: number) => {
    reads++;
    return clock.realMsUntil(at);
  };
  return { clock, counting, reads: () => reads };
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
    const { clock, counting, reads } = countingClock(false);
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
    t.equal(reads(), 0, "arming after defer() reads no clock");
    t.ok(timers.nextAt < Number.POSITIVE_INFINITY, "the earliest armed time is known at once");
    timers.runDue();
    t.equal(reads(), 1, "the run that follows sets the Node timer once");
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

/**
 * A port forwarding back to back, as the device host drives it: each run of due timers fires the port's
 * serialisation end, which arms the next one 83 ns later (deferred: inside the run). Returns how often the
 * timers asked the clock for real time, and what fired.
 */
function forwardLoop(
  t: Test,
  exact: boolean,
  cycles: number,
): { reads: () => number; fired: number[]; timers: LiveTimers; clock: LiveClock } {
  const { clock, counting, reads } = countingClock(exact);
  const fired: number[] = [];
  const timers = new LiveTimers(counting, (id) => {
    fired.push(id);
    if (id < cycles) timers.arm(id + 1, clock.now() + 83);
  });
  t.teardown(() => timers.stop());
  timers.defer();
  timers.arm(0, clock.now() + 83);
  timers.runDue();
  while (fired.length <= cycles) {
    while (clock.now() < timers.nextAt) {
      // 83 emulated ns are 83 real ns at dilation 1
    }
    timers.defer();
    timers.runDue();
  }
  return { reads, fired, timers, clock };
}

t.test("a wake-up later than the pending Node timer's reads no clock (free-running clock)", async (t) => {
  const { reads, fired, timers, clock } = forwardLoop(t, false, 100);
  t.same(
    fired,
    Array.from({ length: 101 }, (_, i) => i),
    "every serialisation end fired, in order",
  );
  t.equal(reads(), 1, "one real-time question for the first wake-up, none for the 100 later ones");
  // A wake-up earlier than the pending Node timer's (here: a timer due since the epoch) is asked.
  const { done, resolve } = signal();
  const late = new LiveTimers(clock, () => resolve());
  t.teardown(() => late.stop());
  timers.arm(1000, 0);
  t.equal(reads(), 2, "a wake-up earlier than the pending Node timer's is asked for its real time");
  late.arm(1, clock.now() + 2_000_000);
  await done;
  t.equal(fired.at(-1), 1000, "and fires");
});

t.test("an exact (synced) clock is asked for every new wake-up", async (t) => {
  const { reads, fired } = forwardLoop(t, true, 100);
  t.equal(fired.length, 101);
  // A held synced clock polls: the same emulated time may come sooner in real time than it did.
  // One per run that ends with a wake-up pending (the first run may already fire the first timer).
  t.ok(reads() >= 100, `one real-time question per run: ${reads()} for 101 timers`);
});

t.test("the free-running clock stamps an arrival without a clock read when it is already past", async (t) => {
  const epoch = process.hrtime.bigint() - 1_000_000_000n;
  const clock = new LiveClock(epoch, 1000);
  const realBigint = process.hrtime.bigint;
  let reads = 0;
  process.hrtime.bigint = () => {
    reads++;
    return realBigint();
  };
  t.teardown(() => {
    process.hrtime.bigint = realBigint;
  });
  const arrival = Number(realBigint());
  const now = clock.now();
  t.equal(reads, 1);
  const at = clock.emulatedAt(arrival);
  t.equal(reads, 1, "an arrival before the last now() needs no read");
  t.ok(at <= now, "and is not later than it");
  t.equal(at, Math.floor((arrival - Number(epoch)) / 1000), "it is the arrival's own emulated time");
  const future = clock.emulatedAt(arrival + 60e9);
  t.equal(reads, 2, "one after it is checked against a fresh reading");
  t.ok(future <= clock.now(), "and never later than now");
});

t.test("re-armed, disarmed and fired over and over, a timer fires only at its last arming", async (t) => {
  // The timers' own bookkeeping is reused (map entries overwritten, heap entries recycled): a stale entry
  // of an earlier arming must never fire, and a recycled one must carry its new timer and time.
  const clock = new LiveClock(process.hrtime.bigint(), 1);
  const fired: [number, number][] = [];
  const timers = new LiveTimers(clock, (id, now) => fired.push([id, now]));
  t.teardown(() => timers.stop());
  const want: number[] = [];
  timers.disarm(7); // never armed: nothing to forget
  for (let i = 0; i < 2000; i++) {
    const base = clock.now();
    timers.defer();
    timers.arm(1, base + 1_000_000_000); // re-armed below before it is due
    timers.arm(2, base - 5); // cancelled below
    timers.arm(3, base - 10);
    timers.arm(1, base - 1);
    timers.disarm(2);
    if (i % 3 === 0) timers.arm(2, base - 3); // armed again after the disarm: fires
    timers.runDue();
    want.push(3, ...(i % 3 === 0 ? [2] : []), 1);
  }
  t.same(
    fired.map(([id]) => id),
    want,
    "each round: 3, then 2 when re-armed after its disarm, then 1 at its last arming; nothing stale",
  );
  t.ok(
    fired.every(([, now], i) => i === 0 || now >= fired[i - 1]![1]),
    "times never go backwards",
  );
});
