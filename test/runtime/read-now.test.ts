// What time a live device reports its stats and metrics at (DeviceHost.readNow): a synced clock may pass
// the device's next own event by its catch-up bound before the timer has run, and a counter computed
// from time (a pause's duration, running until its expiry timer ends it) read at that clock would shrink
// once the timer ends the pause at its own, earlier time. Prometheus's rate() takes a shrinking counter
// for a reset and adds the whole counter: the live Grafana test once read a port paused 107 % of the time.
//
// One real device host over a real clock table and synced clock (no neighbours); the real clock is a
// counter the test moves (as in synced-clock.test.ts), so the clock passes the timer's time before the
// event loop has run it.

import { setTimeout as sleep } from "node:timers/promises";
import t from "tap";
import type { Device, DeviceStats, TimerId } from "../../src/device/contract.js";
import { createRandom } from "../../src/device/prng.js";
import { ClockTable, clockTableBytes } from "../../src/runtime/realtime/clock-table.js";
import { DeviceHost } from "../../src/runtime/realtime/device-host.js";
import { SyncedClock } from "../../src/runtime/realtime/synced-clock.js";

const D = 1000; // dilation: 1 real ms = 1 emulated µs
const MS = 1e6; // real ns
const PAUSE_NS = 1500; // emulated: the pause lasts 1.5 µs from the device's start

/** A device paused from its start until a timer ends the pause; `paused_ns` counts the time paused. */
class PausedOnce implements Device {
  readonly name = "p";
  since = -1;
  endedAt = -1;
  constructor(private readonly host: () => DeviceHost) {}
  start(now: number): void {
    this.since = now;
    this.host().env.arm(0 as TimerId, now + PAUSE_NS);
  }
  receive(): void {}
  fire(_timer: TimerId, now: number): void {
    this.endedAt = now;
  }
  setLinkState(): void {}
  command(): unknown {
    return null;
  }
  stats(now: number): DeviceStats {
    const pausedNs = (this.endedAt >= 0 ? this.endedAt : now) - this.since;
    return { kind: "test", name: this.name, now, counters: { paused_ns: pausedNs }, ports: [] };
  }
}

t.test("stats are read before any own event still to run: time counters never shrink", async (t) => {
  const table = ClockTable.format(new ArrayBuffer(clockTableBytes(1, 0)), 1, []);
  let real = 100 * MS;
  const clock = new SyncedClock(() => real, 0, D, table, 0, [], 0);
  const host = new DeviceHost(clock, new Map(), createRandom(1));
  t.teardown(() => host.close());
  const device = new PausedOnce(() => host);
  host.attach(device);
  const due = device.since + PAUSE_NS;

  // The real clock moves 2 emulated µs in one step, past the timer's time, before the event loop runs it.
  real += 2 * MS;
  t.ok(clock.now() > due, `the clock (${clock.now()}) has passed the timer's time (${due}) unrun`);
  t.equal(device.endedAt, -1, "the timer has not run yet");
  const first = device.stats(host.readNow());
  t.equal(first.now, due, "read at the timer's time, not at the clock");
  const firstPaused = first.counters.paused_ns!;

  for (let i = 0; i < 20 && device.endedAt < 0; i++) await sleep(2);
  t.equal(device.endedAt, due, "the timer ended the pause at its own time");
  const second = device.stats(host.readNow());
  t.ok(
    second.counters.paused_ns! >= firstPaused,
    `paused_ns ${firstPaused} then ${second.counters.paused_ns}`,
  );
  t.ok(second.now >= first.now, "the read time does not go backwards");

  // With nothing left to run, reads follow the clock again.
  real += 1 * MS;
  t.equal(host.readNow(), clock.now(), "an idle device reads at its clock");
});
