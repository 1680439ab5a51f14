// The simulator gives a frame's buffer back (wire/frame-alloc.ts) when no device of its own will receive
// it: a frame its link lost, and a frame for a device of another worker of a parallel run, whose bytes the
// exchange has copied (run/sim-partition-run.ts). The next frame of that length then reuses the buffer.
// Without it, each frame that crosses between workers left the sender one buffer short (#42).
import t from "tap";
import { type Device, type DeviceEnv, EventKind } from "../../src/device/contract.js";
import { Simulator } from "../../src/runtime/sim/simulator.js";
import { allocFrame } from "../../src/wire/frame-alloc.js";

/** Sends one frame of `length` bytes at 100 ns, remembering it in `sent`. */
function sender(env: DeviceEnv, length: number, sent: Uint8Array[]): Device {
  return {
    name: "a",
    start: () => env.arm(1, 100),
    receive: () => {},
    fire: () => {
      const frame = allocFrame(length);
      frame.fill(0xab);
      sent.push(frame);
      env.transmit(1, frame);
    },
    setLinkState: () => {},
    command: () => undefined,
    stats: () => ({ name: "a", kind: "switch", ports: [], counters: {} }) as never,
  };
}

function sink(env: DeviceEnv): Device {
  return {
    name: "b",
    start: () => {},
    receive: (port) => env.emit({ kind: EventKind.Info, port, detail: "received" }),
    fire: () => {},
    setLinkState: () => {},
    command: () => undefined,
    stats: () => ({ name: "b", kind: "switch", ports: [], counters: {} }) as never,
  };
}

const sameBuffer = (a: Uint8Array, b: Uint8Array) =>
  a.buffer === b.buffer && a.byteOffset === b.byteOffset && a.length === b.length;

t.test("a frame for another worker: its bytes go to the exchange, its buffer serves the next frame", (t) => {
  const length = 1_237; // a length no other test of this process allocates
  const sent: Uint8Array[] = [];
  const copies: number[][] = [];
  const sim = new Simulator();
  sim.addDevice("a", (env) => sender(env, length, sent));
  sim.addDevice("b", (env) => sink(env));
  sim.connect({ a: { device: "a", port: 1 }, b: { device: "b", port: 1 }, delayNs: 10 });
  sim.partition(
    (device) => device === "a",
    (_link, side, arrival, frame) =>
      copies.push([side, arrival, frame.length, frame[0]!, frame[length - 1]!]),
  );
  sim.run(1_000);
  t.same(copies, [[0, 110, length, 0xab, 0xab]], "the exchange got the frame's bytes, due at 110 ns");
  const next = allocFrame(length);
  t.ok(sameBuffer(next, sent[0]!), "the next frame of that length is the sent frame's buffer");
  t.equal(next.indexOf(0xab), -1, "zeroed");
  t.end();
});

t.test("a frame its link lost: its buffer serves the next frame", (t) => {
  const length = 1_239;
  const sent: Uint8Array[] = [];
  const got: string[] = [];
  const sim = new Simulator();
  sim.addDevice("a", (env) => sender(env, length, sent));
  sim.addDevice("b", (env) => sink(env));
  sim.connect({ a: { device: "a", port: 1 }, b: { device: "b", port: 1 }, delayNs: 10, lossRate: 1 });
  sim.onEvent((e) => got.push(e.detail ?? ""));
  sim.run(1_000);
  t.same(got, [], "nothing received");
  t.equal(sim.links[0]!.lost, 1, "the link counts it lost");
  t.ok(sameBuffer(allocFrame(length), sent[0]!), "the next frame of that length is the lost frame's buffer");
  t.end();
});

t.test("a frame delivered in this worker is the receiver's: the simulator keeps no claim on it", (t) => {
  const length = 1_241;
  const sent: Uint8Array[] = [];
  const sim = new Simulator();
  sim.addDevice("a", (env) => sender(env, length, sent));
  sim.addDevice("b", (env) => sink(env));
  sim.connect({ a: { device: "a", port: 1 }, b: { device: "b", port: 1 }, delayNs: 10 });
  sim.run(1_000);
  t.notOk(sameBuffer(allocFrame(length), sent[0]!), "a delivered frame is not taken back by the simulator");
  t.end();
});
