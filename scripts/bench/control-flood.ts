// What a client without the token costs a device's socket control channel: N connections that each send
// a long line without a newline (the probe of docs/reliability.md, "Security model"). The device side runs
// in a child process (this script with --listen), so its CPU and memory are its own; the table gives the
// device's CPU seconds, its peak RSS and how long the last connection lasted. Run it against an older
// build (node OLD/dist/tools/bench/control-flood.js) for the before/after.
//
//   node dist/tools/bench/control-flood.js [--connections 1,10] [--mb 4,16]

import { fork } from "node:child_process";
import { connect } from "node:net";
import { parseArgs } from "node:util";
import { SocketChannel } from "../../src/runtime/realtime/socket-channel.js";
import {
  type BenchMain,
  describeMachine,
  fmt,
  formatTable,
  isMain,
  readProcessCpu,
  readProcessRss,
  runAsScript,
} from "./common.js";

const TOKEN = Buffer.from("6b".repeat(32));
const CHUNK = 64 * 1024;

/** The device side: a socket channel on a free loopback port, which it prints. */
async function listen(): Promise<void> {
  const channel = await SocketChannel.listen({
    endpoint: { kind: "tcp", host: "127.0.0.1", port: 0 },
    token: TOKEN,
    identity: () => ({ lab: "flood", node: "leaf1", kind: "switch", dilation: 1000, now: 0, startedAt: "" }),
    log: () => {},
  });
  process.send?.({ address: channel.address });
}

/** One attacker: `bytes` without a newline, as fast as the socket takes them; resolves when it is closed. */
function flood(port: number, bytes: number): Promise<void> {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    const chunk = Buffer.alloc(CHUNK, 0x61);
    let sent = 0;
    socket.on("error", () => {});
    socket.on("close", () => done());
    // Read what the device says (a refusal), so that its end of the connection is seen.
    socket.resume();
    const pump = (): void => {
      while (sent < bytes) {
        sent += CHUNK;
        if (!socket.write(chunk)) {
          socket.once("drain", pump);
          return;
        }
      }
    };
    socket.once("connect", pump);
  });
}

export interface FloodResult {
  /** CPU seconds the device used while the connections lasted. */
  readonly cpuS: number;
  readonly peakRssMiB: number;
  /** Real seconds until the last connection was closed. */
  readonly lastClosedS: number;
}

/** `connections` clients, each sending `mb` MiB without a newline, against a device in a child process. */
export async function measure(connections: number, mb: number): Promise<FloodResult> {
  const child = fork(new URL(import.meta.url).pathname, ["--listen"], { stdio: "inherit" });
  const address = await new Promise<string>((resolve) =>
    child.once("message", (m) => resolve((m as { address: string }).address)),
  );
  const port = Number(address.slice(address.lastIndexOf(":") + 1));
  const pid = child.pid!;
  const cpu0 = readProcessCpu(pid)!;
  let peak = readProcessRss(pid) ?? 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, readProcessRss(pid) ?? 0);
  }, 20);
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, () => flood(port, mb * 2 ** 20)));
  const lasted = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cpu1 = readProcessCpu(pid)!;
  child.kill();
  return {
    cpuS: cpu1.user + cpu1.system - (cpu0.user + cpu0.system),
    peakRssMiB: peak / 2 ** 20,
    lastClosedS: lasted,
  };
}

const USAGE = `usage: npm run bench -- control-flood [--connections 1,10] [--mb 4,16]
  a device control channel's CPU and memory under clients without the token; docs/reliability.md
`;

export const main: BenchMain = async (argv) => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      help: { type: "boolean", short: "h" },
      listen: { type: "boolean", default: false },
      connections: { type: "string", default: "1,10" },
      mb: { type: "string", default: "4,16" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.listen) return listen();
  process.stdout.write(`control-flood: long lines without a newline, no token\n${describeMachine()}\n`);
  const rows: string[][] = [];
  for (const n of values.connections.split(",").map(Number))
    for (const mb of values.mb.split(",").map(Number)) {
      const r = await measure(n, mb);
      rows.push([String(n), String(mb), fmt(r.cpuS, 2), fmt(r.peakRssMiB, 0), fmt(r.lastClosedS, 1)]);
    }
  process.stdout.write(
    `${formatTable(["connections", "MB each", "device CPU s", "device peak RSS MiB", "last closed after s"], rows)}\n`,
  );
};

if (isMain(import.meta.url)) runAsScript(main);
