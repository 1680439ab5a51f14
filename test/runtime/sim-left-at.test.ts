// A frame handed to the simulator before its last bit leaves (DeviceEnv.transmit's `leftAt`, as TxPort
// hands frames over as their first bit leaves): it arrives at `leftAt` plus the link's delay and a frame
// tap sees it stamped with `leftAt`, in the order of the calls. Without `leftAt` a frame leaves at the time
// of the call.
import t from "tap";
import { type Device, type DeviceEnv, EventKind } from "../../src/device/contract.js";
import { Simulator } from "../../src/runtime/sim/simulator.js";

function device(name: string, env: DeviceEnv, send: [number | undefined, string][]): Device {
  return {
    name,
    start: () => {
      if (send.length > 0) env.arm(1, 100);
    },
    receive: (port, frame, now) =>
      env.emit({ kind: EventKind.Info, port, detail: `${now} ${new TextDecoder().decode(frame)}` }),
    fire: () => {
      for (const [leftAt, text] of send) env.transmit(1, new TextEncoder().encode(text), leftAt);
    },
    setLinkState: () => {},
    command: () => undefined,
    stats: () => ({ name, kind: "switch", ports: [], counters: {} }) as never,
  };
}

t.test("a frame arrives at leftAt + delay, stamped leftAt for a tap", (t) => {
  const sim = new Simulator();
  sim.addDevice("a", (env) =>
    device("a", env, [
      [180, "first"],
      [260, "second"],
      [undefined, "now"],
    ]),
  );
  sim.addDevice("b", (env) => device("b", env, []));
  sim.connect({ a: { device: "a", port: 1 }, b: { device: "b", port: 1 }, delayNs: 10 });
  const taps: string[] = [];
  sim.onFrame((at, from, _to, frame) => taps.push(`${at} ${from.device} ${new TextDecoder().decode(frame)}`));
  const got: string[] = [];
  sim.onEvent((e) => got.push(`${e.t} ${e.detail}`));
  sim.run(1_000);
  t.same(
    taps,
    ["180 a first", "260 a second", "100 a now"],
    "taps in the order of the calls, each at leftAt",
  );
  t.same(got, ["110 110 now", "190 190 first", "270 270 second"], "delivered at leftAt + 10");
  t.end();
});
