// The simulator stamps every telemetry event with its time and device as one object shape: listeners see
// the event's fields, and JSON (the event log) has its keys in TelemetryEvent's order with absent ones
// left out, whatever order the emitting code wrote them in.
import t from "tap";
import { type DeviceEnv, EventKind, type TelemetryEvent } from "../../src/device/contract.js";
import { type SimEvent, Simulator } from "../../src/runtime/sim/simulator.js";

function emitter(sim: Simulator, name: string): DeviceEnv {
  let env: DeviceEnv | undefined;
  sim.addDevice(name, (e) => {
    env = e;
    return {
      name,
      start: () => {},
      receive: () => {},
      fire: () => {},
      setLinkState: () => {},
      command: () => undefined,
      stats: () => ({ name, kind: "switch", ports: [], counters: {} }) as never,
    };
  });
  return env!;
}

t.test("stamped events: the fields, the time and the device, in one key order", (t) => {
  const sim = new Simulator();
  const env = emitter(sim, "sw1");
  const seen: SimEvent[] = [];
  sim.onEvent((e) => seen.push(e));
  sim.at(1_234, () => {
    env.emit({ kind: EventKind.Drop, port: 2, priority: 3, count: 4, detail: "headroom" });
    // Written in another order than TelemetryEvent declares: the log still has the declared order.
    env.emit({ detail: "x", value: 7, qp: 9, kind: EventKind.Info } as TelemetryEvent);
  });
  sim.run(10_000);
  t.equal(seen.length, 2);
  t.match(seen[0], {
    kind: "drop",
    port: 2,
    priority: 3,
    count: 4,
    detail: "headroom",
    t: 1_234,
    device: "sw1",
  });
  t.equal(
    JSON.stringify(seen[0]),
    '{"kind":"drop","port":2,"priority":3,"count":4,"detail":"headroom","t":1234,"device":"sw1"}',
  );
  t.equal(JSON.stringify(seen[1]), '{"kind":"info","qp":9,"value":7,"detail":"x","t":1234,"device":"sw1"}');
  t.equal(seen[1]!.port, undefined, "an absent field reads undefined");
  t.end();
});
