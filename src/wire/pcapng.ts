// pcapng capture files (IETF draft-ietf-opsawg-pcapng; https://github.com/IETF-OPSAWG-WG/draft-ietf-opsawg-pcap):
// the format that carries what classic pcap cannot — a comment saying what the timestamps are, the
// interface's name, each frame's direction. `rocelab capture` writes it with the frames' emulated
// timestamps. Written little-endian: a Section Header Block (with shb_comment and shb_userappl), one
// Interface Description Block (Ethernet, if_name, if_description, if_tsresol = 9: nanoseconds), then an
// Enhanced Packet Block per frame (epb_flags: inbound or outbound). The reader takes any file of one
// little- or big-endian section and gives the same records as parsePcap, timestamps in nanoseconds.

import type { PcapFile, PcapRecord } from "./pcap.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";

export const PCAPNG_SHB = 0x0a0d0d0a;
const BYTE_ORDER_MAGIC = 0x1a2b3c4d;
const IDB = 1;
const EPB = 6;
const SPB = 3;
const OPT_END = 0;
const OPT_COMMENT = 1;
const SHB_USERAPPL = 4;
const IF_NAME = 2;
const IF_DESCRIPTION = 3;
const IF_TSRESOL = 9;
const EPB_FLAGS = 2;

export const PacketDirection = { Unknown: 0, Inbound: 1, Outbound: 2 } as const;
export type PacketDirection = (typeof PacketDirection)[keyof typeof PacketDirection];

export interface PcapngInterface {
  readonly name: string;
  readonly description: string;
  readonly linkType: number;
  readonly snapLength: number;
}

export interface PcapngPacket {
  readonly frame: Uint8Array;
  /** ns since 1970 (or since the lab's epoch: the section's comment says which). */
  readonly tNs: number | bigint;
  readonly originalLength?: number;
  readonly direction?: PacketDirection;
}

function option(code: number, value: Uint8Array): Uint8Array {
  const padded = (value.length + 3) & ~3;
  const out = new Uint8Array(4 + padded);
  const v = new DataView(out.buffer);
  v.setUint16(0, code, true);
  v.setUint16(2, value.length, true);
  out.set(value, 4);
  return out;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function block(type: number, body: readonly Uint8Array[]): Uint8Array {
  const bodyLength = body.reduce((a, b) => a + b.length, 0);
  const total = 12 + bodyLength;
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  v.setUint32(0, type, true);
  v.setUint32(4, total, true);
  let at = 8;
  for (const b of body) {
    out.set(b, at);
    at += b.length;
  }
  v.setUint32(total - 4, total, true);
  return out;
}

function fixed(bytes: number, fill: (v: DataView) => void): Uint8Array {
  const out = new Uint8Array(bytes);
  fill(new DataView(out.buffer));
  return out;
}

const END = option(OPT_END, new Uint8Array(0)).subarray(0, 4);

/** A whole file: one section (`comment` says what the timestamps are), one interface, the packets. */
export function serializePcapng(
  comment: string,
  iface: PcapngInterface,
  packets: readonly PcapngPacket[],
): Uint8Array {
  const parts: Uint8Array[] = [
    block(PCAPNG_SHB, [
      fixed(16, (v) => {
        v.setUint32(0, BYTE_ORDER_MAGIC, true);
        v.setUint16(4, 1, true);
        v.setUint16(6, 0, true);
        v.setBigInt64(8, -1n, true);
      }),
      option(OPT_COMMENT, text(comment)),
      option(SHB_USERAPPL, text("rocelab")),
      END,
    ]),
    block(IDB, [
      fixed(8, (v) => {
        v.setUint16(0, iface.linkType, true);
        v.setUint32(4, iface.snapLength, true);
      }),
      option(IF_NAME, text(iface.name)),
      option(IF_DESCRIPTION, text(iface.description)),
      option(IF_TSRESOL, Uint8Array.of(9)),
      END,
    ]),
  ];
  for (const p of packets) {
    const t = BigInt(p.tNs);
    const padded = new Uint8Array((p.frame.length + 3) & ~3);
    padded.set(p.frame);
    parts.push(
      block(EPB, [
        fixed(20, (v) => {
          v.setUint32(0, 0, true);
          v.setUint32(4, Number(t >> 32n), true);
          v.setUint32(8, Number(t & 0xffff_ffffn), true);
          v.setUint32(12, p.frame.length, true);
          v.setUint32(16, p.originalLength ?? p.frame.length, true);
        }),
        padded,
        ...(p.direction
          ? [
              option(
                EPB_FLAGS,
                fixed(4, (v) => v.setUint32(0, p.direction!, true)),
              ),
              END,
            ]
          : []),
      ]),
    );
  }
  return Buffer.concat(parts);
}

/** What the reader found besides the records: the section's comments and the interfaces. */
export interface PcapngFile extends PcapFile {
  readonly comments: readonly string[];
  readonly interfaces: readonly { readonly name: string | null; readonly tsResolNs: number }[];
}

/** Reads a pcapng file (one section) into pcap records, timestamps in ns. */
export function parsePcapng(bytes: Uint8Array): Parsed<PcapngFile> {
  const short = need("pcapng", bytes, 0, 28, "section header");
  if (short) return short;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== PCAPNG_SHB) return fail("pcapng", WireErrorCode.BadValue, "not pcapng", 0);
  const little = dv.getUint32(8, true) === BYTE_ORDER_MAGIC;
  if (!little && dv.getUint32(8, false) !== BYTE_ORDER_MAGIC)
    return fail("pcapng", WireErrorCode.BadValue, "bad byte-order magic", 8);
  const u32 = (at: number): number => dv.getUint32(at, little);
  const u16 = (at: number): number => dv.getUint16(at, little);
  const comments: string[] = [];
  const interfaces: { name: string | null; tsResolNs: number; linkType: number; snap: number }[] = [];
  const records: PcapRecord[] = [];
  let at = 0;
  while (at < bytes.length) {
    const head = need("pcapng", bytes, at, 12, "block header");
    if (head) return head;
    const type = u32(at);
    const total = u32(at + 4);
    if (total < 12 || total % 4 !== 0 || at + total > bytes.length)
      return fail("pcapng", WireErrorCode.BadLength, `block of type ${type}: length ${total}`, at + 4);
    const body = at + 8;
    const end = at + total - 4;
    const options = (from: number, each: (code: number, value: Uint8Array) => void): void => {
      let o = from;
      while (o + 4 <= end) {
        const code = u16(o);
        const len = u16(o + 2);
        if (code === OPT_END || o + 4 + len > end) break;
        each(code, bytes.subarray(o + 4, o + 4 + len));
        o += 4 + ((len + 3) & ~3);
      }
    };
    if (type === PCAPNG_SHB) {
      if (at !== 0) return fail("pcapng", WireErrorCode.BadValue, "more than one section", at);
      options(body + 16, (code, v) => {
        if (code === OPT_COMMENT) comments.push(new TextDecoder().decode(v));
      });
    } else if (type === IDB) {
      const iface = {
        name: null as string | null,
        tsResolNs: 1000,
        linkType: u16(body),
        snap: u32(body + 4),
      };
      options(body + 8, (code, v) => {
        if (code === IF_NAME) iface.name = new TextDecoder().decode(v);
        if (code === IF_TSRESOL && v.length === 1) {
          const r = v[0]!;
          // High bit set: a negative power of 2; else of 10. Kept as ns per tick (fractions allowed).
          iface.tsResolNs = r & 0x80 ? 1e9 / 2 ** (r & 0x7f) : 1e9 / 10 ** r;
        }
      });
      interfaces.push(iface);
    } else if (type === EPB) {
      const iface = interfaces[u32(body)];
      if (iface === undefined) return fail("pcapng", WireErrorCode.BadValue, "packet of no interface", body);
      const ticks = (BigInt(u32(body + 4)) << 32n) | BigInt(u32(body + 8));
      const captured = u32(body + 12);
      if (body + 20 + captured > end)
        return fail("pcapng", WireErrorCode.Truncated, "packet longer than its block", body + 12);
      const tNs =
        iface.tsResolNs >= 1 && Number.isInteger(iface.tsResolNs)
          ? ticks * BigInt(iface.tsResolNs)
          : BigInt(Math.round(Number(ticks) * iface.tsResolNs));
      records.push({
        tNs,
        frame: bytes.subarray(body + 20, body + 20 + captured),
        originalLength: u32(body + 16),
      });
    } else if (type === SPB) {
      const len = u32(body);
      records.push({
        tNs: 0n,
        frame: bytes.subarray(body + 4, Math.min(end, body + 4 + len)),
        originalLength: len,
      });
    }
    at += total;
  }
  const first = interfaces[0];
  return ok({
    linkType: first?.linkType ?? 1,
    fcsLength: null,
    nanosecond: true,
    bigEndian: !little,
    versionMajor: 1,
    versionMinor: 0,
    snapLength: first?.snap ?? 0,
    records,
    comments,
    interfaces: interfaces.map((i) => ({ name: i.name, tsResolNs: i.tsResolNs })),
  });
}
