// A live device host with an exact (synced) clock counts a frame as late (health.framesLate) when it is
// handed over in its own nanosecond but after an event that the simulator's tie rule puts after it: a
// timer of that nanosecond, or a frame of that nanosecond from a higher port (simulator.ts, inbox.ts;
// docs/fidelity.md, "The tie rule"). Such a frame is not in the device's past, yet the device saw the
// nanosecond in another order than the simulator does — a port that had already found nothing to send
// restarts at a whole nanosecond instead of going on from its fractional busy-until time, and every frame
// after it leaves a nanosecond apart. Counted, a run that meets such a tie no longer reads as exact.
//
// The device host is the real one; the clock is a small exact clock the test sets, and each frame carries
// its own stamp (its first four bytes), as the clock table would give it.

import { setTimeout as sleep, setImmediate as turn } from "node:timers/promises";
import t from "tap";
import type { Device, DeviceStats, TimerId } from "../../src/device/contract.js";
import { createRandom } from "../../src/device/prng.js";
import type { DeviceClock } from "../../src/runtime/realtime/clock.js";
import { DeviceHost } from "../../src/runtime/realtime/device-host.js";
import type { FrameHandler, PortIo } from "../../src/runtime/realtime/port.js";

/** An exact clock at a time the test sets; a frame's stamp is its first four bytes. */
class SetClock implements DeviceClock {
  readonly dilation = 1000;
  readonly exact = true;
  readonly heartbeatMs = null;
  at = 0;
  now(): number {
    return this.at;
  }
  emulatedAt(): number {
    return this.at;
  }
  /** Not yet there: look again in a millisecond (the test moves the clock between turns). */
  realMsUntil(at: number): number {
    return at <= this.at ? 0 : 1;
  }
  realNs(emulatedNs: number): number {
    return emulatedNs * this.dilation;
  }
  sent(): void {}
  holding(): void {}
  read(_port: number, frame: Uint8Array): number {
    return new DataView(frame.buffer, frame.byteOffset).getUint32(0);
  }
  publish(): void {}
  followOwnEvents(): void {}
  tick(): void {}
  settled(): boolean {
    return true;
  }
  syncStats(): null {
    return null;
  }
  close(): void {}
}

/** A port whose frames the test hands in, one at a time. */
class HandPort implements PortIo {
  readonly sendErrors = 0;
  constructor(readonly ifname: string) {}
  handler: FrameHandler = () => {};
  send(): void {}
  flush(): void {}
  onFrame(handler: FrameHandler): void {
    this.handler = handler;
  }
  close(): void {}
}

/** Records what it is given, in order; arms one timer at `timerAt` when it starts (if any). */
class Recorder implements Device {
  readonly name = "r";
  readonly seen: string[] = [];
  constructor(
    private readonly host: () => DeviceHost,
    private readonly timerAt: number | null,
  ) {}
  start(): void {
    if (this.timerAt !== null) this.host().env.arm(7 as TimerId, this.timerAt);
  }
  receive(port: number, _frame: Uint8Array, now: number): void {
    this.seen.push(`frame port ${port} at ${now}`);
  }
  fire(_timer: TimerId, now: number): void {
    this.seen.push(`timer at ${now}`);
  }
  setLinkState(): void {}
  command(): unknown {
    return null;
  }
  stats(now: number): DeviceStats {
    return { kind: "test", name: this.name, now, counters: {}, ports: [] };
  }
}

function frameAt(due: number): Uint8Array {
  const f = new Uint8Array(64);
  new DataView(f.buffer).setUint32(0, due);
  return f;
}

function setUp(timerAt: number | null) {
  const clock = new SetClock();
  const hand = new Map([1, 2].map((p) => [p, new HandPort(`eth${p}`)]));
  const ports = new Map<number, { io: PortIo; delayNs: number }>();
  for (const [p, io] of hand) ports.set(p, { io, delayNs: 0 });
  const host = new DeviceHost(clock, ports, createRandom(1));
  const device = new Recorder(() => host, timerAt);
  host.attach(device);
  /** Hands a frame stamped `due` in on `port` and lets the host take it (it runs due work after a turn). */
  const arrive = async (port: number, due: number): Promise<void> => {
    hand.get(port)!.handler(frameAt(due), 0);
    await turn();
    await turn();
  };
  return { clock, host, device, arrive };
}

t.test("a frame of one nanosecond after a higher port's frame of it counts as late", async (t) => {
  const { clock, host, device, arrive } = setUp(null);
  t.teardown(() => host.close());
  clock.at = 1000;
  await arrive(2, 1000);
  await arrive(1, 1000);
  t.same(device.seen, ["frame port 2 at 1000", "frame port 1 at 1000"], "taken in the order read");
  t.equal(host.health().framesLate, 1, "port 1's frame came after port 2's of the same nanosecond");
  t.equal(host.health().framesLateMaxNs, 0, "in its own nanosecond, not in the device's past");
});

t.test("a frame of one nanosecond after a timer of it counts as late", async (t) => {
  const { clock, host, device, arrive } = setUp(1000);
  t.teardown(() => host.close());
  clock.at = 1000;
  for (let i = 0; i < 50 && device.seen.length === 0; i++) await sleep(2);
  t.same(device.seen, ["timer at 1000"], "the timer ran at its time");
  await arrive(1, 1000);
  t.same(device.seen, ["timer at 1000", "frame port 1 at 1000"]);
  t.equal(host.health().framesLate, 1, "the frame came after the timer of its nanosecond");
});

t.test("frames and timers of one nanosecond in the tie rule's order are not late", async (t) => {
  const { clock, host, device, arrive } = setUp(1000);
  t.teardown(() => host.close());
  // Both frames are read before the clock reaches their time: the inbox hands them over lowest port first,
  // before the timer of the same nanosecond.
  clock.at = 999;
  await arrive(2, 1000);
  await arrive(1, 1000);
  t.same(device.seen, [], "nothing before its time");
  clock.at = 1000;
  for (let i = 0; i < 50 && device.seen.length < 3; i++) await sleep(2);
  t.same(device.seen, ["frame port 1 at 1000", "frame port 2 at 1000", "timer at 1000"]);
  // Read one after another in port order, and a second frame on the same port: in order too.
  clock.at = 2000;
  await arrive(1, 2000);
  await arrive(1, 2000);
  await arrive(2, 2000);
  t.equal(host.health().framesLate, 0, "no frame counted as late");
  // A frame in the device's past is late as before, by how much.
  await arrive(1, 1990);
  t.equal(host.health().framesLate, 1);
  t.equal(host.health().framesLateMaxNs, 10);
});
