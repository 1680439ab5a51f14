// Classic libpcap capture files (the format tcpdump writes and every decoder reads): a 24-byte global
// header, then per frame a 16-byte record header and the captured bytes. Every header field is written in
// the byte order of the machine that wrote the file, which the reader learns from how the magic number
// reads; a second magic marks files whose timestamps count nanoseconds instead of microseconds.
//
// Timestamps are bigint nanoseconds: a wall-clock time in ns (about 1.7e18 today) is beyond the 2^53 a
// double holds exactly, and a live capture carries wall-clock times.

import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";

/** Magic of a microsecond-resolution file, as a number (its bytes show the writer's byte order). */
export const PCAP_MAGIC_MICROSECONDS = 0xa1b2c3d4;
/** Magic of a nanosecond-resolution file. */
export const PCAP_MAGIC_NANOSECONDS = 0xa1b23c4d;
export const PCAP_GLOBAL_HEADER_LENGTH = 24;
export const PCAP_RECORD_HEADER_LENGTH = 16;
export const PCAP_VERSION_MAJOR = 2;
export const PCAP_VERSION_MINOR = 4;
/** What tcpdump and Wireshark use by default: large enough for any frame, jumbo or offloaded. */
export const PCAP_DEFAULT_SNAPLEN = 262144;

/** Link-layer header types (tcpdump.org "LINKTYPE_" values) this project meets. */
export const PcapLinkType = {
  /** IEEE 802.3 Ethernet. */
  Ethernet: 1,
  /** Linux "cooked" capture (`tcpdump -i any`). */
  LinuxSll: 113,
} as const;
export type PcapLinkType = (typeof PcapLinkType)[keyof typeof PcapLinkType];

/** How a file is written: resolution, byte order, snapshot length and link type. */
export interface PcapFormat {
  /** Timestamps in ns (magic 0xa1b23c4d) rather than µs (0xa1b2c3d4). Default false. */
  readonly nanosecond?: boolean;
  /** Header fields big-endian. Default false: little-endian, what x86 and ARM machines write. */
  readonly bigEndian?: boolean;
  /** Longest frame kept whole; longer frames are cut to it. Default `PCAP_DEFAULT_SNAPLEN`. */
  readonly snapLength?: number;
  /** Default Ethernet. */
  readonly linkType?: number;
}

/** One frame to write. */
export interface PcapWriteRecord {
  readonly frame: Uint8Array;
  /** Capture time in ns since the Unix epoch (or since any origin the reader agrees on). */
  readonly tNs: bigint | number;
  /** Length of the frame on the wire when `frame` is a cut copy; default `frame.length`. */
  readonly originalLength?: number;
}

/** One frame read back. */
export interface PcapRecord {
  /** Capture time in ns (µs files give multiples of 1000). */
  readonly tNs: bigint;
  /** The captured bytes: a view into the buffer handed to `parsePcap` (no copy). */
  readonly frame: Uint8Array;
  /** Length of the frame on the wire; larger than `frame.length` when the capture cut it. */
  readonly originalLength: number;
}

export interface PcapFile {
  /** Link-layer type (the low 16 bits of the header's field; 1 = Ethernet). */
  readonly linkType: number;
  /**
   * Bytes of FCS every frame ends with when the header says (libpcap's "FCS length present" bit, 0x04000000,
   * with the length in 16-bit words in the top 4 bits); null when it does not say, which is the usual case.
   */
  readonly fcsLength: number | null;
  readonly nanosecond: boolean;
  readonly bigEndian: boolean;
  readonly versionMajor: number;
  readonly versionMinor: number;
  readonly snapLength: number;
  readonly records: readonly PcapRecord[];
  /**
   * Bytes at the end that are not a whole record (only with `cutShort: true`): the writer stopped in the
   * middle of one, as tcpdump may when it is interrupted while still writing. Wireshark reads such a file
   * too ("cut short in the middle of a packet"). 0 (or absent) when the file ends on a record boundary.
   */
  readonly cutShortBytes?: number;
}

/** How parsePcap treats a file that ends inside a record. */
export interface PcapParseOptions {
  /** Take the whole records and count the rest in `cutShortBytes`, instead of failing with Truncated. */
  readonly cutShort?: boolean;
}

// Fixed-width unsigned writes and reads in either byte order. No DataView: these work on any view into a
// larger buffer, and the reads index only bytes the caller has checked are there.

function put32(buf: Uint8Array, off: number, v: number, bigEndian: boolean): void {
  const x = v >>> 0;
  if (bigEndian) {
    buf[off] = x >>> 24;
    buf[off + 1] = (x >>> 16) & 0xff;
    buf[off + 2] = (x >>> 8) & 0xff;
    buf[off + 3] = x & 0xff;
  } else {
    buf[off] = x & 0xff;
    buf[off + 1] = (x >>> 8) & 0xff;
    buf[off + 2] = (x >>> 16) & 0xff;
    buf[off + 3] = x >>> 24;
  }
}

function put16(buf: Uint8Array, off: number, v: number, bigEndian: boolean): void {
  if (bigEndian) {
    buf[off] = (v >>> 8) & 0xff;
    buf[off + 1] = v & 0xff;
  } else {
    buf[off] = v & 0xff;
    buf[off + 1] = (v >>> 8) & 0xff;
  }
}

function get32(buf: Uint8Array, off: number, bigEndian: boolean): number {
  const b0 = buf[off]!;
  const b1 = buf[off + 1]!;
  const b2 = buf[off + 2]!;
  const b3 = buf[off + 3]!;
  return (
    (bigEndian ? (b0 << 24) | (b1 << 16) | (b2 << 8) | b3 : (b3 << 24) | (b2 << 16) | (b1 << 8) | b0) >>> 0
  );
}

function get16(buf: Uint8Array, off: number, bigEndian: boolean): number {
  const b0 = buf[off]!;
  const b1 = buf[off + 1]!;
  return bigEndian ? (b0 << 8) | b1 : (b1 << 8) | b0;
}

function snapOf(format: PcapFormat): number {
  const snap = format.snapLength ?? PCAP_DEFAULT_SNAPLEN;
  if (!Number.isInteger(snap) || snap < 1 || snap > 0xffff_ffff) {
    throw new RangeError(`snapshot length ${snap} is not an integer in 1..2^32-1`);
  }
  return snap;
}

/**
 * The 24-byte global header: magic, version 2.4, thiszone 0, sigfigs 0, snapshot length, link type.
 * Throws RangeError on an impossible snapshot length or link type (a caller bug).
 */
export function pcapHeader(format: PcapFormat = {}): Uint8Array {
  const big = format.bigEndian ?? false;
  const linkType = format.linkType ?? PcapLinkType.Ethernet;
  if (!Number.isInteger(linkType) || linkType < 0 || linkType > 0xffff) {
    throw new RangeError(`link type ${linkType} is not an integer in 0..65535`);
  }
  const out = new Uint8Array(PCAP_GLOBAL_HEADER_LENGTH);
  put32(out, 0, format.nanosecond ? PCAP_MAGIC_NANOSECONDS : PCAP_MAGIC_MICROSECONDS, big);
  put16(out, 4, PCAP_VERSION_MAJOR, big);
  put16(out, 6, PCAP_VERSION_MINOR, big);
  // thiszone (GMT offset) and sigfigs (timestamp accuracy) are 0 in every file written since the 1990s.
  put32(out, 8, 0, big);
  put32(out, 12, 0, big);
  put32(out, 16, snapOf(format), big);
  put32(out, 20, linkType, big);
  return out;
}

const NS_PER_S = 1_000_000_000n;
const MAX_SECONDS = 0xffff_ffffn;

/**
 * One record: the 16-byte header (seconds, µs or ns, captured length, original length) and the frame,
 * cut to the snapshot length. `format` must be the one the file's header was written with. Throws
 * RangeError when `tNs` is negative, not an integer, or past 2106 (the 32-bit seconds field).
 */
export function pcapRecord(
  frame: Uint8Array,
  tNs: bigint | number,
  format: PcapFormat = {},
  originalLength?: number,
): Uint8Array {
  const big = format.bigEndian ?? false;
  if (typeof tNs === "number" && !Number.isSafeInteger(tNs)) {
    throw new RangeError(`timestamp ${tNs} ns is not a safe integer (pass a bigint)`);
  }
  const t = BigInt(tNs);
  if (t < 0n) throw new RangeError(`timestamp ${t} ns is before the epoch`);
  const seconds = t / NS_PER_S;
  if (seconds > MAX_SECONDS) throw new RangeError(`timestamp ${t} ns does not fit the 32-bit seconds field`);
  const subNs = Number(t % NS_PER_S);
  // A µs file truncates, as libpcap does: a frame is never stamped later than it was seen.
  const fraction = format.nanosecond ? subNs : Math.floor(subNs / 1000);
  const included = Math.min(frame.length, snapOf(format));
  const original = originalLength ?? frame.length;
  if (!Number.isInteger(original) || original < included || original > 0xffff_ffff) {
    throw new RangeError(
      `original length ${original} is below the ${included} bytes captured or out of range`,
    );
  }
  const out = new Uint8Array(PCAP_RECORD_HEADER_LENGTH + included);
  put32(out, 0, Number(seconds), big);
  put32(out, 4, fraction, big);
  put32(out, 8, included, big);
  put32(out, 12, original, big);
  out.set(frame.subarray(0, included), PCAP_RECORD_HEADER_LENGTH);
  return out;
}

/** A whole file: the global header and one record per frame, in the order given. */
export function serializePcap(records: readonly PcapWriteRecord[], format: PcapFormat = {}): Uint8Array {
  const parts = [pcapHeader(format)];
  for (const r of records) parts.push(pcapRecord(r.frame, r.tNs, format, r.originalLength));
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** pcapng's Section Header Block type, 0x0a0d0d0a: recognised only to say what the file is. */
const PCAPNG_MAGIC = 0x0a0d0d0a;
/** Bit 26 of the link-type field: the FCS length in bits 28..31 is valid (libpcap's LT_FCS_LENGTH_PRESENT). */
const LINKTYPE_FCS_PRESENT = 0x0400_0000;

/**
 * Parses a classic pcap file of either byte order and either resolution. Never throws and never reads
 * past `bytes`. Errors: BadValue for an unknown magic (pcapng is named as such); BadVersion for a major
 * version other than 2; Truncated for a global or record header cut short, or a record whose captured
 * length runs past the end of the file; BadLength for a captured length above the snapshot length. A
 * snapshot length of 0, which some writers use for "unlimited", disables that last check, as libpcap does.
 * With `cutShort`, a last record cut short (its header or its data) ends the records instead.
 */
export function parsePcap(bytes: Uint8Array, opts: PcapParseOptions = {}): Parsed<PcapFile> {
  const short = need("pcap", bytes, 0, PCAP_GLOBAL_HEADER_LENGTH, "global header");
  if (short) {
    // Say what the first bytes are when there are enough of them, so a wrong file is named as such.
    if (bytes.length >= 4 && magicOf(bytes) === null) return badMagic(bytes);
    return short;
  }
  const magic = magicOf(bytes);
  if (magic === null) return badMagic(bytes);
  const { bigEndian, nanosecond } = magic;
  const versionMajor = get16(bytes, 4, bigEndian);
  const versionMinor = get16(bytes, 6, bigEndian);
  if (versionMajor !== PCAP_VERSION_MAJOR) {
    return fail("pcap", WireErrorCode.BadVersion, `version ${versionMajor}.${versionMinor}, expected 2.x`, 4);
  }
  const snapLength = get32(bytes, 16, bigEndian);
  const linkField = get32(bytes, 20, bigEndian);
  const fcsLength = linkField & LINKTYPE_FCS_PRESENT ? (linkField >>> 28) * 2 : null;
  const records: PcapRecord[] = [];
  const fractionScale = nanosecond ? 1n : 1000n;
  let at = PCAP_GLOBAL_HEADER_LENGTH;
  let cutShortBytes = 0;
  for (let n = 1; at < bytes.length; n++) {
    const shortHeader = need("pcap", bytes, at, PCAP_RECORD_HEADER_LENGTH, `record ${n} header`);
    if (shortHeader && opts.cutShort) {
      cutShortBytes = bytes.length - at;
      break;
    }
    if (shortHeader) return shortHeader;
    const seconds = get32(bytes, at, bigEndian);
    const fraction = get32(bytes, at + 4, bigEndian);
    const included = get32(bytes, at + 8, bigEndian);
    const original = get32(bytes, at + 12, bigEndian);
    if (snapLength !== 0 && included > snapLength) {
      return fail(
        "pcap",
        WireErrorCode.BadLength,
        `record ${n}: captured length ${included} exceeds the snapshot length ${snapLength}`,
        at + 8,
      );
    }
    const data = at + PCAP_RECORD_HEADER_LENGTH;
    if (included > bytes.length - data && opts.cutShort) {
      cutShortBytes = bytes.length - at;
      break;
    }
    if (included > bytes.length - data) {
      return fail(
        "pcap",
        WireErrorCode.Truncated,
        `record ${n}: captured length ${included} but only ${bytes.length - data} bytes are left in the file`,
        at + 8,
      );
    }
    records.push({
      tNs: BigInt(seconds) * NS_PER_S + BigInt(fraction) * fractionScale,
      frame: bytes.subarray(data, data + included),
      originalLength: original,
    });
    at = data + included;
  }
  return ok({
    // The upper 16 bits carry the FCS information above and reserved bits, which readers must ignore.
    linkType: linkField & 0xffff,
    fcsLength,
    nanosecond,
    bigEndian,
    versionMajor,
    versionMinor,
    snapLength,
    records,
    cutShortBytes,
  });
}

/** Byte order and resolution from the first four bytes, or null when they are no pcap magic. */
function magicOf(bytes: Uint8Array): { bigEndian: boolean; nanosecond: boolean } | null {
  const big = get32(bytes, 0, true);
  const little = get32(bytes, 0, false);
  if (big === PCAP_MAGIC_MICROSECONDS) return { bigEndian: true, nanosecond: false };
  if (little === PCAP_MAGIC_MICROSECONDS) return { bigEndian: false, nanosecond: false };
  if (big === PCAP_MAGIC_NANOSECONDS) return { bigEndian: true, nanosecond: true };
  if (little === PCAP_MAGIC_NANOSECONDS) return { bigEndian: false, nanosecond: true };
  return null;
}

function badMagic(bytes: Uint8Array): Parsed<never> {
  const first = get32(bytes, 0, true);
  const hex = first.toString(16).padStart(8, "0");
  const what =
    first === PCAPNG_MAGIC
      ? "a pcapng file, not classic pcap (convert it with `editcap -F pcap`)"
      : "not a pcap file";
  return fail("pcap", WireErrorCode.BadValue, `magic 0x${hex}: ${what}`, 0);
}
