// The simulator's tie rule (simulator.ts; docs/fidelity.md, "The tie rule"): events of one emulated
// nanosecond run actions first, then frames by device name and arrival port, then timers by device name
// and arming order; never in the order they were scheduled. Three senders fire in the same nanosecond
// and their frames reach one sink in the same nanosecond, on ports 1-3, when the sink's own timer is due
// too. Creating the devices and links in other orders changes the order in which all of that is
// scheduled (each device arms its first timer when it starts, in creation order) and must change nothing
// the devices see or the event log shows.
import t from "tap";
import { type Device, type DeviceEnv, EventKind } from "../../src/device/contract.js";
import { Simulator } from "../../src/runtime/sim/simulator.js";

const FIRE_AT = 100;
const DELAY = 10;

/** Transmits a frame carrying its name at FIRE_AT on port 1; the sink logs what it gets, and its timer. */
function device(name: string, env: DeviceEnv, sink: boolean): Device {
  return {
    name,
    start: () => env.arm(1, sink ? FIRE_AT + DELAY : FIRE_AT),
    receive: (port, frame) =>
      env.emit({ kind: EventKind.Info, port, detail: new TextDecoder().decode(frame) }),
    fire: () => {
      if (sink) env.emit({ kind: EventKind.Info, detail: "timer" });
      else {
        env.emit({ kind: EventKind.Info, detail: "sent" });
        env.transmit(1, new TextEncoder().encode(name));
      }
    },
    setLinkState: () => {},
    command: () => undefined,
    stats: () => ({ name, kind: "switch", ports: [], counters: {} }) as never,
  };
}

/** The sink's port of each sender. */
const PORT: Record<string, number> = { a: 2, b: 3, c: 1 };

function run(order: readonly string[], linkOrder: readonly string[]): string[] {
  const sim = new Simulator();
  for (const name of order) sim.addDevice(name, (env) => device(name, env, name === "sink"));
  for (const s of linkOrder)
    sim.connect({ a: { device: s, port: 1 }, b: { device: "sink", port: PORT[s]! }, delayNs: DELAY });
  const log: string[] = [];
  sim.onEvent((e) =>
    log.push(`${e.t} ${e.device} ${e.detail}${e.port !== undefined ? ` on ${e.port}` : ""}`),
  );
  sim.run(1_000);
  return log;
}

t.test("one nanosecond's events in the tie rule's order, whatever the creation order", (t) => {
  const want = [
    "100 a sent",
    "100 b sent",
    "100 c sent",
    "110 sink c on 1",
    "110 sink a on 2",
    "110 sink b on 3",
    "110 sink timer",
  ];
  t.same(run(["a", "b", "c", "sink"], ["a", "b", "c"]), want, "frames by port, then the timer");
  t.same(run(["sink", "c", "b", "a"], ["c", "a", "b"]), want, "devices and links created in another order");
  t.same(run(["b", "sink", "a", "c"], ["b", "c", "a"]), want, "and in a third");
  t.end();
});

t.test("a device added while events are queued takes its place in the name order", (t) => {
  const sim = new Simulator();
  const log: string[] = [];
  sim.onEvent((e) => log.push(`${e.t} ${e.device} ${e.detail}`));
  sim.addDevice("b", (env) => device("b", env, false));
  sim.run(0);
  // "a" arms its timer for the same nanosecond as "b"'s, which was queued before "a" existed.
  sim.addDevice("a", (env) => device("a", env, false));
  sim.device("a").start(0); // a device added to a running simulator is started by its caller
  sim.run(1_000);
  t.same(log, ["100 a sent", "100 b sent"], "timers of one nanosecond by device name");
  t.end();
});
