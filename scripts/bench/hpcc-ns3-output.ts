// Reading what HPCC's ns-3 simulator writes (github.com/alibaba-edu/High-Precision-Congestion-Control,
// simulation/scratch/third.cc): the FCT file, the PFC file and the binary packet trace (mix.tr).
//
// * FCT: one line per completed flow, "sip dip sport dport bytes start-ns fct-ns standalone-fct-ns", the
//   addresses in hex; a host's node id is (ip >> 8) & 0xffff (third.cc's ip_to_node_id).
// * PFC: one line per PFC frame a device received, "time node node-type ifindex type", type 1 a pause and
//   0 a resume (QbbNetDevice::Receive's QbbPfc trace). HPCC's switches send each XOFF once (SwitchMmu keeps
//   a `paused` flag; nothing refreshes it) and a device that receives one stays paused until the resume,
//   whatever pause time it carries; so its pause lines are the XOFF assertions.
// * Trace: a SimSetting header (a u32 count, that many (u16 node, u8 port, u64 bps) entries, a u32
//   window), then 56-byte TraceFormat records (trace-format.h, x86-64 layout): u64 time @0, u16 node @8,
//   u8 intf @10, u8 qidx @11, u32 qlen @12, u32 sip @16, u32 dip @20, u16 size @24, u8 l3Prot @26,
//   u8 event @27 (0 Recv, 1 Enqu, 2 Dequ, 3 Drop), u8 ecn @28, u8 nodeType @29, then a union @32 whose
//   ACK member has u16 flags @36 (bit 0: the CNP flag, qbbHeader::FLAG_CNP). An Enqu record's qlen is the
//   queue's bytes before the packet joined (QbbNetDevice::SwitchSend traces before it enqueues).

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { median } from "./common.js";

/** One completed flow of HPCC's FCT file. */
export interface Ns3FlowResult {
  readonly src: number;
  readonly dst: number;
  readonly bytes: number;
  readonly startNs: number;
  readonly fctNs: number;
  /** HPCC's standalone FCT: the base RTT plus the bytes with their headers at the path's bandwidth. */
  readonly idealNs: number;
}

/** A node id from one of third.cc's host addresses (0x0b000001 + id × 0x100, wrapping at 256). */
export function ns3NodeOfIp(ip: number): number {
  return (ip >>> 8) & 0xffff;
}

/** Every line of HPCC's FCT output. */
export function parseNs3Flows(text: string): Ns3FlowResult[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      const f = l.trim().split(/\s+/);
      const r = f.map((x, j) => (j < 2 ? Number.parseInt(x, 16) : Number(x)));
      if (r.length < 8 || r.some((x) => !Number.isFinite(x)))
        throw new Error(`HPCC FCT output line ${i + 1}: expected 2 hex addresses and 6 numbers, got "${l}"`);
      return {
        src: ns3NodeOfIp(r[0]!),
        dst: ns3NodeOfIp(r[1]!),
        bytes: r[4]!,
        startNs: r[5]!,
        fctNs: r[6]!,
        idealNs: r[7]!,
      };
    });
}

/** HPCC's FCT output summed up: how many flows, the last completion and the median FCT. */
export function parseNs3Fct(text: string): { flows: number; lastDoneNs: number; medianFctNs: number } {
  const rows = parseNs3Flows(text);
  return {
    flows: rows.length,
    lastDoneNs: rows.reduce((m, r) => Math.max(m, r.startNs + r.fctNs), 0),
    medianFctNs: rows.length === 0 ? 0 : median(rows.map((r) => r.fctNs)),
  };
}

/** The pause lengths the bench counts, ns: at least 20, 40 and 80 µs (docs/fidelity.md, the fat tree). */
export const LONG_PAUSE_NS = [20_000, 40_000, 80_000] as const;

/**
 * Pauses paired with their resumes, per (device, port, priority): how many lasted at least each of
 * LONG_PAUSE_NS. A pause still held when the run ends is not counted.
 */
export class PauseLog {
  /** XOFF assertions. */
  pauses = 0;
  readonly counts: number[] = LONG_PAUSE_NS.map(() => 0);
  private readonly open = new Map<string, number>();

  pause(key: string, t: number): void {
    this.pauses++;
    if (!this.open.has(key)) this.open.set(key, t);
  }

  resume(key: string, t: number): void {
    const since = this.open.get(key);
    if (since === undefined) return;
    this.open.delete(key);
    LONG_PAUSE_NS.forEach((ns, i) => {
      if (t - since >= ns) this.counts[i]!++;
    });
  }

  /** Our simulator's telemetry: a switch's XOFF and XON on one port and priority. */
  onEvent(e: {
    readonly kind: string;
    readonly t: number;
    readonly device: string;
    readonly port?: number;
    readonly priority?: number;
  }): void {
    if (e.kind !== "pfc-xoff" && e.kind !== "pfc-xon") return;
    const key = `${e.device}:${e.port}:${e.priority}`;
    if (e.kind === "pfc-xoff") this.pause(key, e.t);
    else this.resume(key, e.t);
  }
}

/** PFC frames received, by kind, and the pauses' lengths (HPCC's PFC file; a device's port each). */
export function parseNs3Pfc(text: string): { pauses: number; resumes: number; longPauses: number[] } {
  const log = new PauseLog();
  let resumes = 0;
  for (const [i, l] of text.split("\n").entries()) {
    if (l.trim() === "") continue;
    const [t, node, , port, type] = l.trim().split(/\s+/);
    if (type === "1") log.pause(`${node}:${port}`, Number(t));
    else if (type === "0") {
      resumes++;
      log.resume(`${node}:${port}`, Number(t));
    } else throw new Error(`HPCC PFC output line ${i + 1}: expected "time node type port 0|1", got "${l}"`);
  }
  return { pauses: log.pauses, resumes, longPauses: log.counts };
}

const RECORD = 56;
const EVENT_ENQUEUE = 1;
const EVENT_DEQUEUE = 2;
const PROTO_ACK = 0xfc;
const PROTO_NACK = 0xfd;

/** From the switches' records of a packet trace. */
export interface Ns3TraceSummary {
  /** Largest egress queue a data packet joined (its own bytes included), over the traced switches. */
  readonly queuePeakBytes: number;
  /** ACKs and NACKs carrying the CNP flag that left a traced switch: DCQCN's CNPs in HPCC's model. */
  readonly cnps: number;
  /** Data packets that left a traced switch CE-marked (HPCC marks at dequeue). */
  readonly ceMarked: number;
  readonly records: number;
}

/** Running totals of a trace's switch records (`scanNs3Records`). */
interface TraceTotals {
  queuePeakBytes: number;
  cnps: number;
  ceMarked: number;
}

/** The header's length (a u32 count, that many 11-byte port entries, a u32), from its first 4 bytes. */
function traceHeaderLength(head: DataView): number {
  return 4 + head.getUint32(0, true) * 11 + 4;
}

function checkTraceLength(bytes: number, header: number, ports: number): void {
  if (header > bytes || (bytes - header) % RECORD !== 0)
    throw new Error(
      `HPCC trace: ${bytes} bytes is not a header of ${ports} ports and whole ${RECORD}-byte records`,
    );
}

/** Adds the whole records of `v` in [from, to) to `t`. */
function scanNs3Records(v: DataView, from: number, to: number, t: TraceTotals): void {
  for (let o = from; o + RECORD <= to; o += RECORD) {
    if (v.getUint8(o + 29) !== 1) continue; // not a switch
    const event = v.getUint8(o + 27);
    const qidx = v.getUint8(o + 11);
    const proto = v.getUint8(o + 26);
    if (event === EVENT_ENQUEUE && qidx !== 0) {
      const depth = v.getUint32(o + 12, true) + v.getUint16(o + 24, true);
      if (depth > t.queuePeakBytes) t.queuePeakBytes = depth;
    } else if (event === EVENT_DEQUEUE) {
      if ((proto === PROTO_ACK || proto === PROTO_NACK) && (v.getUint16(o + 36, true) & 1) === 1) t.cnps++;
      else if (proto === 0x11 && v.getUint8(o + 28) === 3) t.ceMarked++;
    }
  }
}

/** Reads HPCC's binary trace (mix.tr) for the switch queues' peak and the CNP-flagged ACKs. */
export function parseNs3Trace(buf: Uint8Array): Ns3TraceSummary {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.byteLength < 8) throw new Error("HPCC trace: shorter than its header");
  const start = traceHeaderLength(v);
  checkTraceLength(buf.byteLength, start, v.getUint32(0, true));
  const t: TraceTotals = { queuePeakBytes: 0, cnps: 0, ceMarked: 0 };
  scanNs3Records(v, start, buf.byteLength, t);
  return { ...t, records: (buf.byteLength - start) / RECORD };
}

/**
 * The same from the trace file, read a chunk at a time: a fat tree's trace of every switch runs to
 * hundreds of MB (56 bytes for each packet's arrival, enqueue and dequeue at every hop).
 */
export function readNs3TraceFile(path: string): Ns3TraceSummary {
  const fd = openSync(path, "r");
  try {
    const bytes = fstatSync(fd).size;
    const chunk = new Uint8Array(RECORD * 65_536);
    const v = new DataView(chunk.buffer);
    if (bytes < 8 || readSync(fd, chunk, 0, 4, 0) !== 4)
      throw new Error("HPCC trace: shorter than its header");
    const start = traceHeaderLength(v);
    checkTraceLength(bytes, start, v.getUint32(0, true));
    const t: TraceTotals = { queuePeakBytes: 0, cnps: 0, ceMarked: 0 };
    for (let at = start; at < bytes; ) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, bytes - at), at);
      if (n <= 0 || n % RECORD !== 0) throw new Error(`HPCC trace: short read at byte ${at} of ${bytes}`);
      scanNs3Records(v, 0, n, t);
      at += n;
    }
    return { ...t, records: (bytes - start) / RECORD };
  } finally {
    closeSync(fd);
  }
}
