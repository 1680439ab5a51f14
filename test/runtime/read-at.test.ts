// DeviceHost.readAt: a live device's stats read at a given emulated time (a run's time 0, from which a
// report counts: lab/stats-since.ts), before anything of that time runs and after everything before it,
// however the process's clock and event loop move around it.
//
// One real device host over a real clock table and synced clock (no neighbours); the real clock is a
// counter the test moves (as in read-now.test.ts).

import { setTimeout as sleep } from "node:timers/promises";
import t from "tap";
import type { Device, DeviceStats, TimerId } from "../../src/device/contract.js";
import { createRandom } from "../../src/device/prng.js";
import { ClockTable, clockTableBytes } from "../../src/runtime/realtime/clock-table.js";
import { DeviceHost } from "../../src/runtime/realtime/device-host.js";
import { SyncedClock } from "../../src/runtime/realtime/synced-clock.js";

const D = 1000; // dilation: 1 real ms = 1 emulated µs
const MS = 1e6; // real ns

/** Counts its timers; arms one at each time of `at` from its start. */
class Ticker implements Device {
  readonly name = "tick";
  fired: number[] = [];
  constructor(
    private readonly host: () => DeviceHost,
    private readonly at: readonly number[],
  ) {}
  start(): void {
    for (const [i, t] of this.at.entries()) this.host().env.arm(i as TimerId, t);
  }
  receive(): void {}
  fire(_timer: TimerId, now: number): void {
    this.fired.push(now);
  }
  setLinkState(): void {}
  command(): unknown {
    return this.fired.length;
  }
  stats(now: number): DeviceStats {
    return { kind: "test", name: this.name, now, counters: { ticks: this.fired.length }, ports: [] };
  }
}

function lab(timers: readonly number[]) {
  const table = ClockTable.format(new ArrayBuffer(clockTableBytes(1, 0)), 1, []);
  const clock = { real: 100 * MS };
  const synced = new SyncedClock(() => clock.real, 0, D, table, 0, [], 0);
  const host = new DeviceHost(synced, new Map(), createRandom(1));
  const device = new Ticker(() => host, timers);
  host.attach(device);
  return { clock, synced, host, device };
}

t.test("read at a time: after every event before it, before any at it", async (t) => {
  const start = 100_000; // the clock's emulated now at 100 ms real
  const { clock, host, device } = lab([start + 1000, start + 2000, start + 2000, start + 3000]);
  t.teardown(() => host.close());
  const reads: { at: number; ticks: number }[] = [];
  t.ok(
    host.readAt(start + 2000, (at) => reads.push({ at, ticks: device.stats(at).counters.ticks! })),
    "armed ahead of its time",
  );
  // The clock jumps past all four timers before the event loop runs any of them.
  clock.real += 5 * MS;
  for (let i = 0; i < 50 && device.fired.length < 4; i++) await sleep(2);
  t.same(device.fired, [start + 1000, start + 2000, start + 2000, start + 3000], "every timer at its time");
  t.same(reads, [{ at: start + 2000, ticks: 1 }], "read once, at its time, with only the earlier timer run");
});

t.test("an idle device reads when its clock gets there; one already past says so", async (t) => {
  const { clock, synced, host, device } = lab([]);
  t.teardown(() => host.close());
  let read = -1;
  const at = synced.now() + 1500;
  t.ok(
    host.readAt(at, (t) => (read = t)),
    "armed",
  );
  clock.real += 1 * MS;
  await sleep(5);
  t.equal(read, -1, "not before its time");
  clock.real += 1 * MS;
  for (let i = 0; i < 50 && read < 0; i++) await sleep(2);
  t.equal(read, at, "taken at its time with nothing else to run");
  // A command gives the device the clock's time: a read for a time before it is refused, not taken late.
  host.control(() => device.command());
  t.notOk(
    host.readAt(synced.now() - 10, () => t.fail("never called")),
    "a time the device was already given is refused",
  );
});
