// sim-vs-ns3 `--core-queues`: one seed of the fat tree in both simulators, and every core switch's egress
// queue at its peak, packet by packet (queue-peaks.ts): which flows, data or ACK, from which input ports,
// and how long the queue had been building. Ours: every frame put on a link to or from a core switch
// (the simulator's frame tap); a frame joins its egress queue when it has crossed the link and the switch
// (its upstream send time, plus the least such passage over the run), and leaves it when the switch puts
// it on the link; each rebuilt peak is printed beside the port's own watermark counter. HPCC's ns-3: its
// trace of the core switches (third.cc's ENABLE_TRACE), read a chunk at a time; each peak is printed
// beside the largest queue its enqueue records give (qlen + size).

import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { readU32 } from "../../src/wire/bytes.js";
import { fmt, formatTable } from "./common.js";
import { ns3Binary, timeProcess, writeNs3Input } from "./hpcc-ns3.js";
import type { Built } from "./ns3-cases.js";
import { peakMakeup, type QueueEvent, type QueuePeak, queuePeaks } from "./queue-peaks.js";

/** A k = 4 fat tree's core switches, named as fatTreeTopology names them (HPCC's ids: after the 16 hosts). */
const CORES = ["c1", "c2", "c3", "c4"];
const NS3_FIRST_CORE = 16;
const RECORD = 56;

export interface CoreQueues {
  readonly peaks: Map<string, QueuePeak>;
  /** The simulator's own figure for each port's peak (ours: the watermark; ns-3: qlen + size). */
  readonly check: Map<string, number>;
}

interface Sent {
  readonly t: number;
  readonly len: number;
  readonly inPort: number;
}

/** Ours: the core ports' queues rebuilt from the frames on their links. */
export function oursCoreQueues(built: Built): CoreQueues {
  const hostOf = new Map<number, string>();
  const toCore = new Map<string, Sent>();
  const out: { t: number; port: string; key: string; ack: boolean; src: number; dst: number }[] = [];
  const { report } = runScenarioSim(built.scenario, {
    onFrame: (t, from, to, f) => {
      // IPv4, UDP: RoCEv2 data and ACKs (BTH at byte 42: opcode, dest QP, PSN).
      if (f[12] !== 0x08 || f[13] !== 0x00 || f[23] !== 17) return;
      const src = readU32(f, 26);
      if (from.device.startsWith("h") && !hostOf.has(src)) hostOf.set(src, from.device);
      const key = `${src}>${readU32(f, 30)}:${(f[34]! << 8) | f[35]!}:${readU32(f, 46) & 0xffffff}:${f[42]}:${readU32(f, 50) & 0xffffff}`;
      if (CORES.includes(to.device)) toCore.set(key, { t, len: f.length, inPort: to.port });
      else if (CORES.includes(from.device))
        out.push({
          t,
          port: `${from.device}:eth${from.port}`,
          key,
          ack: f[42] === 0x11,
          src,
          dst: readU32(f, 30),
        });
    },
  });
  // The least passage from the upstream send to leaving the core, less the frame's own serialisation.
  const at = (o: (typeof out)[number]): Sent => toCore.get(o.key)!;
  const serial = (len: number): number => len * 0.08;
  let pass = Number.POSITIVE_INFINITY;
  for (const o of out) pass = Math.min(pass, o.t - at(o).t - serial(at(o).len));
  const events: QueueEvent[] = [];
  for (const o of out) {
    const a = at(o);
    const [s, d] = [hostOf.get(o.src) ?? "?", hostOf.get(o.dst) ?? "?"];
    const packet = { flow: o.ack ? `${d}>${s}` : `${s}>${d}`, ack: o.ack, bytes: a.len, inPort: a.inPort };
    const base = { port: o.port, key: o.key, packet };
    events.push(
      { ...base, t: a.t + pass + serial(a.len), enqueue: true },
      { ...base, t: o.t, enqueue: false },
    );
  }
  // At one instant a packet joins before it leaves.
  events.sort((x, y) => x.t - y.t || Number(y.enqueue) - Number(x.enqueue));
  const check = new Map<string, number>();
  for (const c of CORES) {
    for (const [name, p] of Object.entries(report.devices[c]!.ports)) {
      let wm = 0;
      for (const q of Object.values(p.queues ?? {})) wm = Math.max(wm, q.watermark_bytes ?? 0);
      check.set(`${c}:${name}`, wm);
    }
  }
  return { peaks: queuePeaks(events), check };
}

/** HPCC's trace records of the core switches' queues, as queue events (the file read a chunk at a time). */
export function* ns3QueueEvents(path: string, check: Map<string, number>): Generator<QueueEvent> {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(RECORD * 65_536);
    readSync(fd, chunk, 0, 4, 0);
    const received = new Map<string, number>();
    for (let at = 4 + chunk.readUInt32LE(0) * 11 + 4; at < size; ) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at);
      if (n <= 0 || n % RECORD !== 0) throw new Error(`HPCC trace: short read at byte ${at} of ${size}`);
      at += n;
      for (let o = 0; o < n; o += RECORD) {
        const node = chunk.readUInt16LE(o + 8);
        const proto = chunk.readUInt8(o + 26);
        const event = chunk.readUInt8(o + 27);
        if (node < NS3_FIRST_CORE || node >= NS3_FIRST_CORE + CORES.length || chunk.readUInt8(o + 29) !== 1)
          continue;
        if ((proto !== 0x11 && proto !== 0xfc && proto !== 0xfd) || event > 2) continue;
        const ack = proto !== 0x11;
        // data: sport @32, dport @34, seq @36; ACK: sport @32, dport @34, seq @40 (trace-format.h)
        const seq = chunk.readUInt32LE(o + (ack ? 40 : 36));
        const [sip, dip] = [chunk.readUInt32LE(o + 16), chunk.readUInt32LE(o + 20)];
        const key = `${node}:${sip}>${dip}:${chunk.readUInt16LE(o + 32)}:${chunk.readUInt16LE(o + 34)}:${proto}:${seq}`;
        const intf = chunk.readUInt8(o + 10);
        if (event === 0) {
          received.set(key, intf);
          continue;
        }
        const port = `${CORES[node - NS3_FIRST_CORE]}:eth${intf}`;
        const bytes = chunk.readUInt16LE(o + 24);
        if (event === 1) check.set(port, Math.max(check.get(port) ?? 0, chunk.readUInt32LE(o + 12) + bytes));
        const [s, d] = [`h${((sip >>> 8) & 0xffff) + 1}`, `h${((dip >>> 8) & 0xffff) + 1}`];
        const packet = { flow: ack ? `${d}>${s}` : `${s}>${d}`, ack, bytes, inPort: received.get(key) ?? 0 };
        if (event === 2) received.delete(key);
        yield { t: Number(chunk.readBigUInt64LE(o)), port, enqueue: event === 1, key, packet };
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** HPCC's ns-3 on the same input, tracing its core switches. */
export async function ns3CoreQueues(simulationDir: string, built: Built, seed: number): Promise<CoreQueues> {
  const bin = ns3Binary(simulationDir);
  const dir = mkdtempSync(join(tmpdir(), "rocelab-ns3-"));
  try {
    const trace = CORES.map((_, i) => NS3_FIRST_CORE + i);
    const cfg = writeNs3Input(dir, { ...built.ns3, trace });
    await timeProcess(bin, [cfg], dir, {
      LD_LIBRARY_PATH: join(simulationDir, "build"),
      NS_GLOBAL_VALUE: `RngRun=${seed}`,
    });
    const check = new Map<string, number>();
    const peaks = queuePeaks(ns3QueueEvents(join(dir, "mix.tr"), check));
    return { peaks, check };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The core ports' peaks side by side, and the ports that peak above 20 KB in both summed up. */
export function coreQueuesTable(ours: CoreQueues, theirs: CoreQueues): string[] {
  const rows: string[][] = [];
  const both: [QueuePeak, QueuePeak][] = [];
  for (const [port, o] of [...ours.peaks].sort((a, b) => a[0].localeCompare(b[0]))) {
    const t = theirs.peaks.get(port);
    if (t === undefined) continue;
    const [a, b] = [peakMakeup(o), peakMakeup(t)];
    if (o.bytes > 20_000 && t.bytes > 20_000) both.push([o, t]);
    rows.push([
      port,
      `${fmt(o.bytes, 0)} (${fmt(ours.check.get(port) ?? 0, 0)}) / ${fmt(t.bytes, 0)} (${fmt(theirs.check.get(port) ?? 0, 0)})`,
      `${a.packets} / ${b.packets}`,
      fmt(a.packets / Math.max(1, b.packets), 2),
      `${a.data}+${a.acks} / ${b.data}+${b.acks}`,
      `${a.dataInputs} / ${b.dataInputs}`,
      `${fmt(o.buildNs / 1e3, 1)} / ${fmt(t.buildNs / 1e3, 1)}`,
      `${fmt(o.t / 1e3, 1)} / ${fmt(t.t / 1e3, 1)}`,
      `${a.byFlow.join(" ")} / ${b.byFlow.join(" ")}`,
    ]);
  }
  const header = ["port", "peak B (own counter)", "packets", "×", "data+ACKs", "inputs", "build µs", "at µs"];
  const lines = formatTable([...header, "data packets by flow"], rows).split("\n");
  const gm = (f: (x: [QueuePeak, QueuePeak]) => number): string =>
    fmt(Math.exp(both.reduce((s, x) => s + Math.log(f(x)), 0) / both.length), 2);
  const mk = (i: 0 | 1) => (x: [QueuePeak, QueuePeak]) => peakMakeup(x[i]);
  lines.push(
    `${both.length} ports above 20 KB in both, rocelab over ns-3 (geometric mean): bytes ` +
      `${gm((x) => x[0].bytes / x[1].bytes)}, packets ${gm((x) => mk(0)(x).packets / mk(1)(x).packets)}, ` +
      `data packets ${gm((x) => mk(0)(x).data / Math.max(1, mk(1)(x).data))}, build-up ` +
      `${gm((x) => x[0].buildNs / Math.max(1, x[1].buildNs))}, bytes per µs of build-up ` +
      `${gm((x) => x[0].bytes / Math.max(1, x[0].buildNs) / (x[1].bytes / Math.max(1, x[1].buildNs)))}`,
  );
  return lines;
}
