// Kernel UDP traffic inside a host namespace, through dgram-as-promised: the lossy background class that
// shares the fabric with RoCE (ordinary applications on an RDMA host). Started by the lab supervisor:
//   node udp-tool.js send --lab L --dst IP --port P --rate BITS_PER_S --size BYTES [--seconds S]
//   node udp-tool.js recv --lab L --port P
// The rate is real bits/s (the supervisor divides the emulated rate by the dilation). Counters go to the
// supervisor over IPC once a second and on exit.

import { parseArgs } from "node:util";
import DgramAsPromised from "dgram-as-promised";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    lab: { type: "string" },
    dst: { type: "string" },
    port: { type: "string", default: "5001" },
    rate: { type: "string", default: "1000000" },
    size: { type: "string", default: "1000" },
    seconds: { type: "string" },
  },
});
const mode = positionals[0];
if (!values.lab || (mode !== "send" && mode !== "recv") || (mode === "send" && !values.dst)) {
  process.stderr.write(
    "usage: udp-tool send --lab L --dst IP [--port P --rate BPS --size B --seconds S] | recv --lab L [--port P]\n",
  );
  process.exit(2);
}
process.title = `rocelab-${values.lab}-udp-${mode}`;

const counters = { packets: 0, bytes: 0, errors: 0 };
const report = (): void => {
  if (process.connected) process.send?.({ type: "udp", mode, ...counters });
};
setInterval(report, 1000).unref();
process.on("disconnect", () => process.exit(0));
process.on("SIGTERM", () => {
  report();
  process.exit(0);
});

const port = Number(values.port);
const socket = DgramAsPromised.createSocket("udp4");

if (mode === "recv") {
  await socket.bind(port);
  for await (const packet of socket) {
    counters.packets++;
    counters.bytes += packet.msg.length;
  }
} else {
  const size = Number(values.size);
  const rate = Number(values.rate);
  const payload = Buffer.alloc(size, 0x5a);
  await socket.bind();
  // Pace in 10 ms slices: Node timers cannot fire per datagram at these rates.
  const perSecond = rate / 8 / (size + 28);
  const until = values.seconds ? Date.now() + Number(values.seconds) * 1000 : Number.POSITIVE_INFINITY;
  const started = Date.now();
  const tick = async (): Promise<void> => {
    const due = Math.floor(((Date.now() - started) / 1000) * perSecond);
    while (counters.packets + counters.errors < due) {
      try {
        await socket.send(payload, 0, size, port, values.dst!);
        counters.packets++;
        counters.bytes += size;
      } catch {
        counters.errors++;
      }
    }
    if (Date.now() >= until) {
      report();
      process.exit(0);
    }
    setTimeout(() => void tick(), 10);
  };
  void tick();
}
