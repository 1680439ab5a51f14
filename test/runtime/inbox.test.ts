// A live device host's received frames (src/runtime/realtime/inbox.ts) merged with its timers
// (timers.ts) under an exact clock: the simulator's tie rule (docs/fidelity.md, "The tie rule"). Frames of
// one emulated nanosecond go to the device lowest port first, whichever port was read first; frames
// before timers of the same nanosecond; each port's frames in the order they came.

import t from "tap";
import { LiveClock } from "../../src/runtime/realtime/clock.js";
import { Inbox } from "../../src/runtime/realtime/inbox.js";
import { LiveTimers } from "../../src/runtime/realtime/timers.js";

t.test("one nanosecond: frames by port, then timers in arming order; earlier times first", (t) => {
  // An exact clock at dilation 1 whose epoch is now: the times below (a few µs) are past by the run.
  const clock = Object.create(new LiveClock(process.hrtime.bigint() - 1_000_000n, 1)) as LiveClock;
  Object.defineProperty(clock, "exact", { value: true });
  const seen: string[] = [];
  const inbox = new Inbox((port, at, frame) => seen.push(`${at} port ${port} ${frame[0]}`));
  const timers = new LiveTimers(
    clock,
    (timer, now) => seen.push(`${now} timer ${timer}`),
    () => {},
    inbox,
  );
  t.teardown(() => timers.stop());
  // Read in this order: port 3 first, port 1 last, timers armed before any frame came.
  timers.arm(7, 500);
  timers.arm(5, 500);
  inbox.add(3, 500, Uint8Array.of(1));
  inbox.add(2, 400, Uint8Array.of(4));
  inbox.add(2, 500, Uint8Array.of(2));
  inbox.add(3, 500, Uint8Array.of(3));
  inbox.add(1, 500, Uint8Array.of(5));
  timers.runDue();
  t.same(seen, [
    "400 port 2 4",
    "500 port 1 5",
    "500 port 2 2",
    "500 port 3 1",
    "500 port 3 3",
    "500 timer 7",
    "500 timer 5",
  ]);
  t.end();
});
