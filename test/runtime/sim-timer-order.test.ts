// Two ports of one device whose frames end in the same nanosecond pull in the order their end-of-frame
// timers were armed (docs/fidelity.md, "The tie rule"). Since a port hands a frame over as its first bit
// leaves (issue #42), it arms that timer when the frame starts only if something else already waits for
// it; a port whose next frame arrives while it sends arms it then, after the other port's. Which port pulls
// first matters when one pull queues a frame for the other (a switch's dequeue that sends XON out of the
// port the paused PG came in on): here port 1's pull puts a control frame at the head of port 2's queue.
// Before the hand-over change both timers were armed as the frames started, port 1 first, so port 1
// pulled first in both cases below; now the second case pulls port 2 first.
import t from "tap";
import { type Device, type DeviceEnv, EventKind } from "../../src/device/contract.js";
import { TxPort } from "../../src/device/tx-port.js";
import { Simulator } from "../../src/runtime/sim/simulator.js";

const LATE = 3;
const text = (s: string) => new TextEncoder().encode(s.padEnd(1000, "."));

/**
 * A device with two ports kicked at 0, each queue given its frames; at 10 ns `late` is queued on its port
 * and the port kicked. Pulling "A2" on port 1 queues "X" first on port 2 and kicks it.
 */
function twoPorts(env: DeviceEnv, queues: [string[], string[]], late: [number, string]): Device {
  const q = queues.map((names) => names.map(text));
  const ports: TxPort[] = [];
  for (const p of [1, 2]) {
    ports.push(
      new TxPort(p, 100e9, p, env, (now) => {
        const frame = q[p - 1]!.shift() ?? null;
        ports[p - 1]!.pulledMore = q[p - 1]!.length > 0;
        if (frame !== null && new TextDecoder().decode(frame).startsWith("A2")) {
          q[1]!.unshift(text("X"));
          ports[1]!.kick(now); // the same nanosecond: port 2 holds the wire until its timer
        }
        return frame;
      }),
    );
  }
  return {
    name: "sw",
    start: (now) => {
      ports[0]!.kick(now);
      ports[1]!.kick(now);
      env.arm(LATE, 10);
    },
    receive: () => {},
    fire: (id, now) => {
      if (id === LATE) {
        q[late[0] - 1]!.push(text(late[1]));
        ports[late[0] - 1]!.kick(now);
      } else ports[id - 1]!.onTimer(now);
    },
    setLinkState: () => {},
    command: () => undefined,
    stats: () => ({ name: "sw", kind: "switch", ports: [], counters: {} }) as never,
  };
}

function sink(name: string, env: DeviceEnv): Device {
  return {
    name,
    start: () => {},
    receive: (_port, frame, now) =>
      env.emit({
        kind: EventKind.Info,
        detail: `${now} ${new TextDecoder().decode(frame).replace(/\.+$/, "")}`,
      }),
    fire: () => {},
    setLinkState: () => {},
    command: () => undefined,
    stats: () => ({ name, kind: "switch", ports: [], counters: {} }) as never,
  };
}

/** What reaches port 2's peer, in order. */
function port2Sees(queues: [string[], string[]], late: [number, string]): string[] {
  const sim = new Simulator();
  sim.addDevice("sw", (env) => twoPorts(env, queues, late));
  sim.addDevice("s1", (env) => sink("s1", env));
  sim.addDevice("s2", (env) => sink("s2", env));
  sim.connect({ a: { device: "sw", port: 1 }, b: { device: "s1", port: 1 }, delayNs: 1 });
  sim.connect({ a: { device: "sw", port: 2 }, b: { device: "s2", port: 1 }, delayNs: 1 });
  const got: string[] = [];
  sim.onEvent((e) => {
    if (e.device === "s2") got.push(e.detail!.split(" ")[1]!);
  });
  sim.run(10_000);
  return got;
}

t.test("a port with a frame waiting as its frame starts pulls before one kicked later", (t) => {
  // Port 1 has A2 waiting as A1 starts (timer armed at 0); port 2's B2 comes at 10 ns (timer armed then).
  // Both first frames end in the same nanosecond: port 1 pulls A2 first, so X goes out before B2.
  t.same(port2Sees([["A1", "A2"], ["B1"]], [2, "B2"]), ["B1", "X", "B2"]);
  t.end();
});

t.test("a port whose next frame comes while it sends pulls after one that had its next waiting", (t) => {
  // Port 2 has B2 waiting as B1 starts; port 1's A2 comes at 10 ns. Port 2 pulls B2 at the shared end
  // before port 1 pulls A2 and queues X. (Both timers armed as the frames started — the rule before the
  // hand-over change — would pull port 1 first: B1, X, B2.)
  t.same(port2Sees([["A1"], ["B1", "B2"]], [1, "A2"]), ["B1", "B2", "X"]);
  t.end();
});
