// Two live device hosts with synced clocks (src/runtime/realtime/device-host.ts, synced-clock.ts), each
// holding a frame for the other due in the same emulated nanosecond (the link's delay is long enough to
// be held, not sent at once). A synced clock stops one nanosecond short of the earliest time a frame may
// arrive (the tie rule, docs/fidelity.md), so each clock waits at due − 1 for the other's frame; a host
// that sent its held frames only once its clock reached `due` would wait for ever. The host sends them
// one nanosecond early, and each device still receives the other's frame at exactly `due`.
//
// The hosts and clocks are the real ones over a real clock table; the real clock is a counter the test
// moves (as in synced-clock.test.ts), and the two ports are joined in memory, as a veth pair joins them
// in a lab (a frame sent on one is read on the other in a later turn of the event loop).

import { setTimeout as sleep } from "node:timers/promises";
import t from "tap";
import type { Device, DeviceStats, TimerId } from "../../src/device/contract.js";
import { createRandom } from "../../src/device/prng.js";
import { ClockTable, clockTableBytes } from "../../src/runtime/realtime/clock-table.js";
import { DeviceHost } from "../../src/runtime/realtime/device-host.js";
import type { FrameHandler, PortIo } from "../../src/runtime/realtime/port.js";
import { SyncedClock } from "../../src/runtime/realtime/synced-clock.js";

const D = 1000; // dilation: 1 real ms = 1 emulated µs
const DELAY = 1000; // emulated ns on the link: 1 real ms, so the host holds the frame (not sent at once)
const GRACE = 2e6; // real ns
const MS = 1e6; // real ns
const PORT = 1;

/** One end of an in-memory veth pair. */
class MemoryPort implements PortIo {
  readonly sendErrors = 0;
  peer: MemoryPort | null = null;
  private handler: FrameHandler = () => {};
  constructor(readonly ifname: string) {}
  send(frame: Uint8Array): void {
    const to = this.peer;
    setImmediate(() => to?.handler(frame, 0));
  }
  flush(): void {}
  onFrame(handler: FrameHandler): void {
    this.handler = handler;
  }
  close(): void {}
}

/** A device that sends one frame on its port when it starts, and records what it receives and when. */
class OneFrame implements Device {
  readonly received: { port: number; at: number; first: number }[] = [];
  sentAt = -1;
  constructor(
    readonly name: string,
    private readonly host: () => DeviceHost,
    private readonly mark: number,
  ) {}
  start(now: number): void {
    this.sentAt = now;
    this.host().env.transmit(PORT, new Uint8Array(64).fill(this.mark), undefined);
  }
  receive(port: number, frame: Uint8Array, now: number): void {
    this.received.push({ port, at: now, first: frame[0]! });
  }
  fire(_timer: TimerId, _now: number): void {}
  setLinkState(): void {}
  command(): unknown {
    return null;
  }
  stats(now: number): DeviceStats {
    return { kind: "test", name: this.name, now, counters: {}, ports: [] };
  }
}

t.test("two devices holding frames for each other due in one nanosecond both send them", async (t) => {
  const table = ClockTable.format(new ArrayBuffer(clockTableBytes(2, 2)), 2, [
    { from: 0, to: 1, delayNs: DELAY },
    { from: 1, to: 0, delayNs: DELAY },
  ]);
  let real = 100 * MS;
  const now = () => real;
  const clockA = new SyncedClock(
    now,
    0,
    D,
    table,
    0,
    [{ port: PORT, rxLink: 1, txLink: 0, peer: 1, delayNs: DELAY }],
    GRACE,
  );
  const clockB = new SyncedClock(
    now,
    0,
    D,
    table,
    1,
    [{ port: PORT, rxLink: 0, txLink: 1, peer: 0, delayNs: DELAY }],
    GRACE,
  );
  t.equal(clockA.now(), clockB.now(), "both clocks start at the same emulated time");
  const portA = new MemoryPort("a-eth1");
  const portB = new MemoryPort("b-eth1");
  portA.peer = portB;
  portB.peer = portA;
  const hostA = new DeviceHost(clockA, new Map([[PORT, { io: portA, delayNs: DELAY }]]), createRandom(1));
  const hostB = new DeviceHost(clockB, new Map([[PORT, { io: portB, delayNs: DELAY }]]), createRandom(2));
  t.teardown(() => {
    hostA.close();
    hostB.close();
  });
  const a = new OneFrame("a", () => hostA, 0xa);
  const b = new OneFrame("b", () => hostB, 0xb);
  hostA.attach(a);
  hostB.attach(b);
  t.equal(a.sentAt, b.sentAt, "both frames left in the same nanosecond");
  const due = a.sentAt + DELAY;

  // Real time moves on, a real millisecond (an emulated µs) per turn, well past the frames' time (after
  // two turns); the clocks may only follow as far as the frames allow.
  for (let i = 0; i < 50 && (a.received.length === 0 || b.received.length === 0); i++) {
    real += MS;
    await sleep(2);
  }

  t.same(a.received, [{ port: PORT, at: due, first: 0xb }], "A received B's frame at its due time");
  t.same(b.received, [{ port: PORT, at: due, first: 0xa }], "B received A's frame at its due time");
  t.ok(clockA.now() >= due && clockB.now() >= due, "neither clock stayed short of the frames' time");
  t.equal(hostA.health().framesLate, 0, "A took no frame after its arrival time");
  t.equal(hostB.health().framesLate, 0, "nor did B");

  // A frame nobody stamped (a host kernel's, read with the kernel's arrival time, here long past): handed
  // over at once and counted as unstamped, not as a frame in A's past (that count is the sync's errors).
  const before = a.received.length;
  portB.send(new Uint8Array(64).fill(0xee));
  for (let i = 0; i < 20 && a.received.length === before; i++) {
    real += MS;
    await sleep(2);
  }
  t.equal(a.received.at(-1)?.first, 0xee, "A got the kernel's frame");
  t.equal(clockA.syncStats().unstamped, 1, "counted as unstamped");
  t.equal(hostA.health().framesLate, 0, "not as late");
});
