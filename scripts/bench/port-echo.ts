// The switch-forwarding benchmark's `port-io` phase: the live switch's port I/O with no device behind it. A
// Node process in the switch's namespace, started with the device processes' V8 flags, opens eth1 and eth2
// through the same RingPort a live device uses (AF_PACKET receive ring, one sendmmsg() per turn, ring sizes
// from the same rule) and sends every frame it reads on eth1 out of eth2 unchanged, as the switch would
// after its pipeline. Its CPU per forwarded frame is the floor of a live switch process on these veths:
// the addon's copy out of the ring, the send path of the kernel and the sink's receive run in that send,
// the event loop's wake-ups — everything but the device. Started by the benchmark with an IPC channel:
// `ip netns exec rl-<lab>-sw node --max-semi-space-size=1 dist/tools/bench/port-echo.js --lab <lab>
// --rate-bps R --dilation D`. It is not a benchmark itself (the launcher does not list it).

import { parseArgs } from "node:util";
import { RingPort, ringBytesFor } from "../../src/runtime/realtime/ring-port.js";

/** Parent -> echo. */
export type ToEcho = { readonly type: "count"; readonly id: number } | { readonly type: "exit" };

/** Echo -> parent. */
export type FromEcho =
  | { readonly type: "ready"; readonly pid: number }
  /** Frames read from eth1 so far. */
  | {
      readonly type: "count";
      readonly id: number;
      readonly framesIn: number;
      readonly batches: number;
      readonly flushes: number;
    }
  | { readonly type: "fatal"; readonly message: string };

const { values } = parseArgs({
  options: { lab: { type: "string" }, "rate-bps": { type: "string" }, dilation: { type: "string" } },
});
const rateBps = Number(values["rate-bps"]);
const dilation = Number(values.dilation);
if (!values.lab || !process.send || !(rateBps > 0) || !(dilation > 0)) {
  process.stderr.write(
    "port-echo is started by the switch-forwarding benchmark (--lab, --rate-bps, --dilation, IPC)\n",
  );
  process.exit(2);
}
// The lab's naming mark: `rocelab down --all` finds and stops an echo left behind.
process.title = `rocelab-${values.lab}-echo`;

const send = (m: FromEcho): void => {
  if (process.connected) process.send!(m);
};

try {
  const ringBytes = ringBytesFor(rateBps, dilation);
  const inPort = new RingPort("eth1", ringBytes);
  const outPort = new RingPort("eth2", ringBytes);
  let framesIn = 0;
  // The frame is a view of the batch's buffer, which the port owns until its flush: as a device's would be.
  inPort.onFrame((frame) => {
    framesIn++;
    outPort.send(frame);
  });
  // Whatever comes back on eth2 (nothing: the sink sends no frames) is read and dropped.
  outPort.onFrame(() => {});
  process.on("message", (raw) => {
    const m = raw as ToEcho;
    if (m.type === "count")
      send({ type: "count", id: m.id, framesIn, batches: inPort.batches, flushes: outPort.flushes });
    else if (m.type === "exit") {
      inPort.close();
      outPort.close();
      process.disconnect();
    }
  });
  process.on("disconnect", () => process.exit(0));
  send({ type: "ready", pid: process.pid });
} catch (e) {
  send({ type: "fatal", message: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
  process.disconnect();
}
