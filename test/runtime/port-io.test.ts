// Choosing the port backend, and turning a frame's kernel arrival time into emulated time.
import t from "tap";
import { LiveClock } from "../../src/runtime/realtime/clock.js";
import { PortBackend, portBackend } from "../../src/runtime/realtime/port-io.js";
import { restoreEnvAfter } from "../helpers/env.js";

t.test("the backend: init message first, then ROCELAB_PORT_IO, else ring", async (t) => {
  restoreEnvAfter(t, "ROCELAB_PORT_IO");
  delete process.env.ROCELAB_PORT_IO;
  t.equal(portBackend(undefined), PortBackend.Ring);
  t.equal(portBackend("pcap"), PortBackend.Pcap);
  process.env.ROCELAB_PORT_IO = "pcap";
  t.equal(portBackend(undefined), PortBackend.Pcap, "the environment when the init message says nothing");
  t.equal(portBackend("ring"), PortBackend.Ring, "the init message wins");
  process.env.ROCELAB_PORT_IO = "afxdp";
  t.throws(() => portBackend(undefined), /unknown port I\/O backend "afxdp"/);
});

t.test("emulatedAt: a monotonic instant in the lab's emulated time", async (t) => {
  const clock = new LiveClock(1_000_000_000n, 1000);
  t.equal(clock.emulatedAt(1_000_000_000 + 5_000_000), 5000, "5 ms real after the epoch is 5 µs emulated");
  t.equal(clock.emulatedAt(1_000_000_000 + 1999), 1, "integer ns, rounded down");
  const now = Number(process.hrtime.bigint());
  const live = new LiveClock(BigInt(now), 1);
  // At dilation 1 an instant read before now() is at most what elapsed between the two reads behind it
  // (no bound in real time: a loaded machine may not run this process for milliseconds in between).
  const before = Number(process.hrtime.bigint());
  const at = live.emulatedAt(before);
  const n = live.now();
  const elapsed = Number(process.hrtime.bigint()) - before;
  t.ok(at <= n && n - at <= elapsed + 1, `agrees with now() (${n - at} ns apart, ${elapsed} ns elapsed)`);
});
