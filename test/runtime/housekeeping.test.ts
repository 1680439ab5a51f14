// The live device's housekeeping beat: fast while the device is busy, slow once it is idle, woken by the
// next frame or event, and its lateness samples are what the device reports as event-loop lag.
import { setTimeout as sleep } from "node:timers/promises";
import t from "tap";
import { Housekeeping } from "../../src/runtime/realtime/housekeeping.js";

/** Waits (up to 10 s) until `ok()` holds. */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await sleep(10);
}

t.test("an idle device sleeps after one quiet beat; a wake beats again at the active period", async (t) => {
  let beats = 0;
  let busy = true;
  // The idle period is far longer than the test: a beat after sleeping can only come from wake().
  const h = new Housekeeping(
    () => {
      beats++;
      return busy;
    },
    { activeMs: 5, idleMs: 600_000 },
  );
  t.teardown(() => h.stop());
  h.start();
  await until(() => beats >= 3);
  t.ok(beats >= 3, "busy: it keeps beating");
  t.notOk(h.isSleeping);
  busy = false;
  await until(() => h.isSleeping);
  t.ok(h.isSleeping, "one quiet beat and it sleeps");
  const asleep = beats;
  await sleep(50);
  t.equal(beats, asleep, "no beat while asleep (the idle period has not passed)");
  h.wake();
  t.notOk(h.isSleeping, "woken");
  await until(() => beats > asleep);
  t.equal(beats, asleep + 1, "a frame or an event brings the next beat at the active period");
  h.wake();
  h.wake();
  await sleep(30);
  t.ok(h.isSleeping, "that beat was quiet: asleep again; a wake while awake changes nothing");
});

t.test("each beat records how late it fired; stop() ends the beats", async (t) => {
  let real = 0;
  let beats = 0;
  const h = new Housekeeping(
    () => {
      beats++;
      return true;
    },
    { activeMs: 5, now: () => real },
  );
  h.start(); // the first beat is due at fake time 5 ms
  real = 8; // and fires at 8: 3 ms late
  await until(() => beats >= 1);
  h.stop();
  const seen = beats;
  t.ok(h.lag.count >= 1, "a lateness sample per beat");
  t.ok(h.lag.max >= 3e6, `the first beat's lateness (max ${h.lag.max} ns) is at least 3 ms`);
  await sleep(40);
  t.equal(beats, seen, "stopped: no more beats");
});

t.test("a wake from inside a beat does not start a second chain of beats", async (t) => {
  let beats = 0;
  let h: Housekeeping | null = null;
  h = new Housekeeping(
    () => {
      beats++;
      h?.wake(); // e.g. an event emitted while reporting, also during an idle beat
      return false;
    },
    { activeMs: 5, idleMs: 10 },
  );
  t.teardown(() => h?.stop());
  h.start();
  await sleep(100);
  h.stop();
  // One chain beats at most every 10 ms (fewer on a busy machine); chains that multiply at every idle
  // beat would make hundreds.
  t.ok(beats >= 1 && beats <= 15, `one chain of beats (${beats} in 100 ms)`);
});
