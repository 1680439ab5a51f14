// `h1 ping h8` at `rocelab cli`'s prompt: the kernel's ping in h1's namespace, each reply's round trip
// given in emulated time — from the echo request leaving h1's NIC port to the reply arriving there, as the
// NIC stamped them (lab/live/frame-times.ts) — beside ping's own real-time figure, which also counts the
// kernels, the NIC process's hand-over and the dilation (15 ms real for a few µs on the emulated wire).

import { execa } from "execa";
import { formatDuration } from "../device/units.js";
import { echoRoundTrips, withFrameTimes } from "../lab/live/frame-times.js";
import { nsName } from "../lab/live/names.js";
import { withLab } from "./with-lab.js";

/** Pings a prompt line asks for when it gives no count (Mininet's ping runs until Ctrl-C). */
export const DEFAULT_PING_COUNT = 3;

/** `argv` (ping and its arguments) with a count when it has none. */
export function pingArgs(argv: readonly string[]): string[] {
  const counted = argv.some((a) => a === "-c" || /^-c\d+$/.test(a) || a === "-w" || /^-w\d+$/.test(a));
  return counted ? [...argv] : [argv[0]!, "-c", String(DEFAULT_PING_COUNT), ...argv.slice(1)];
}

/**
 * ping's output with each reply's emulated round trip: `time=15.2 ms` becomes
 * `time=4.23µs emulated (15.2 ms real)`; a summary line of the emulated ones follows ping's.
 */
export function annotatePing(output: string, rtts: ReadonlyMap<string, number>): string {
  const bySeq = new Map<string, number>();
  for (const [key, ns] of rtts) {
    const seq = key.slice(key.indexOf(":") + 1);
    if (!bySeq.has(seq)) bySeq.set(seq, ns);
  }
  const lines = output.split("\n").map((line) => {
    const m = /icmp_seq=(\d+).* time=([\d.]+ ms)/.exec(line);
    if (!m) return line;
    const ns = bySeq.get(m[1]!);
    const emulated = ns === undefined ? "not recorded" : `${formatDuration(ns)} emulated`;
    return line.replace(` time=${m[2]}`, ` time=${emulated} (${m[2]} real)`);
  });
  const all = [...bySeq.values()];
  if (all.length > 0) {
    const avg = all.reduce((a, b) => a + b, 0) / all.length;
    lines.push(
      `emulated rtt min/avg/max = ${[Math.min(...all), avg, Math.max(...all)].map((n) => formatDuration(Math.round(n))).join("/")} (request out of the NIC port to reply in)`,
    );
  }
  return lines.join("\n");
}

/** Runs ping (`argv`, starting with "ping") in `node`'s namespace; prints it annotated; its exit status. */
export async function pingEmulated(lab: string, node: string, argv: readonly string[]): Promise<number> {
  return withLab({ name: lab }, async (live) => {
    const wire = live.topology.links.find((l) => l.a.startsWith(`${node}:`) || l.b.startsWith(`${node}:`));
    const end = wire === undefined ? `${node}:eth1` : wire.a.startsWith(`${node}:`) ? wire.a : wire.b;
    const port = Number(end.slice(end.indexOf(":eth") + 4));
    const { result, frames } = await withFrameTimes(live, node, port, () =>
      execa("ip", ["netns", "exec", nsName(lab, node), ...pingArgs(argv)], {
        reject: false,
        stdin: "ignore",
      }),
    );
    const text = annotatePing(String(result.stdout), echoRoundTrips(frames));
    if (text.trim() !== "") process.stdout.write(`${text}\n`);
    if (String(result.stderr).trim() !== "") process.stderr.write(`${String(result.stderr)}\n`);
    return result.exitCode ?? 1;
  });
}
