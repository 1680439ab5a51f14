// The codec fuzz target: every parser in src/wire (and the capture checker) on mutated frames, at the
// offset the frame's own headers give and at a random one (negative and past the end included). A parser
// must answer ok or err and never throw; where it answers ok and a serializer exists, serializing what it
// read and parsing that again must give the same value (the bytes, where the codec keeps every bit).

import { isDeepStrictEqual } from "node:util";
import {
  type FrameLayout,
  type FrameMutator,
  frameLayout,
  type MutatedFrame,
} from "../../src/verify/frame-mutator.js";
import { checkFrame } from "../../src/verify/pcap-check.js";
import { type ArpPacket, parseArp, serializeArp } from "../../src/wire/arp.js";
import { toHex } from "../../src/wire/bytes.js";
import { type EthernetHeader, parseEthernet, serializeEthernet } from "../../src/wire/ethernet.js";
import { type IcmpMessage, parseIcmp, serializeIcmp } from "../../src/wire/icmp.js";
import { verifyIcrcV1, verifyIcrcV2 } from "../../src/wire/icrc.js";
import { type Ipv4Header, parseIpv4, serializeIpv4 } from "../../src/wire/ipv4.js";
import { parseLldp } from "../../src/wire/lldp.js";
import { parsePcap, serializePcap } from "../../src/wire/pcap.js";
import {
  buildPauseFrame,
  buildPfcFrame,
  type MacControlFrame,
  parseMacControl,
  parsePfcFrame,
} from "../../src/wire/pfc.js";
import type { Parsed } from "../../src/wire/result.js";
import {
  parseAeth,
  parseBth,
  parseReth,
  parseRoce,
  serializeAeth,
  serializeBth,
  serializeReth,
} from "../../src/wire/roce.js";
import { parseGrh, parseRoceV1Frame, serializeGrh } from "../../src/wire/rocev1.js";
import { parseUdp, serializeUdp } from "../../src/wire/udp.js";
import { parseVxlan, serializeVxlan } from "../../src/wire/vxlan.js";

export interface CodecTally {
  /** Calls that returned ok / err. */
  ok: number;
  err: number;
  /** Calls that threw: must stay 0. */
  exceptions: number;
  /** Round trips attempted and those that did not give back what was parsed: must stay 0. */
  roundTrips: number;
  roundTripFailures: number;
}

/** A failure worth reproducing: which codec, what it did, the frame. */
export interface CodecFailure {
  readonly codec: string;
  readonly what: "exception" | "round-trip";
  readonly message: string;
  readonly mutation: string;
  readonly frameHex: string;
}

export interface CodecFuzzReport {
  readonly frames: number;
  readonly tallies: Readonly<Record<string, CodecTally>>;
  readonly exceptions: number;
  readonly roundTripFailures: number;
  /** The first few failures (at most 10). */
  readonly failures: readonly CodecFailure[];
}

/** What one codec does with a frame: a parse result (or boolean), and optionally a round-trip verdict. */
type CodecCheck = (f: Uint8Array, at: FrameLayout, off: number) => { parsed: boolean; roundTrip?: boolean };

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function result<T>(p: Parsed<T>, roundTrip?: (v: T) => boolean): { parsed: boolean; roundTrip?: boolean } {
  if (!p.ok) return { parsed: false };
  return roundTrip ? { parsed: true, roundTrip: roundTrip(p.value) } : { parsed: true };
}

function ethernetRoundTrip(f: Uint8Array, h: EthernetHeader): boolean {
  const buf = new Uint8Array(h.headerLength);
  serializeEthernet(h, buf, 0);
  return sameBytes(buf, f.subarray(0, h.headerLength));
}

function ipv4RoundTrip(h: Ipv4Header): boolean {
  const buf = new Uint8Array(20 + h.totalLength);
  const init = {
    src: h.src,
    dst: h.dst,
    protocol: h.protocol,
    payloadLength: h.totalLength - h.headerLength,
    dscp: h.dscp,
    ecn: h.ecn,
    ttl: h.ttl,
    identification: h.identification,
    dontFragment: h.dontFragment,
  };
  serializeIpv4(init, buf, 0);
  const again = parseIpv4(buf, 0);
  if (!again.ok) return false;
  const v = again.value;
  return isDeepStrictEqual(
    [v.src, v.dst, v.protocol, v.totalLength - 20, v.dscp, v.ecn, v.ttl, v.identification, v.dontFragment],
    [
      init.src,
      init.dst,
      init.protocol,
      init.payloadLength,
      init.dscp,
      init.ecn,
      init.ttl,
      init.identification,
      init.dontFragment,
    ],
  );
}

function arpRoundTrip(f: Uint8Array, off: number, p: ArpPacket): boolean {
  const buf = new Uint8Array(28);
  serializeArp(p, buf, 0);
  return sameBytes(buf, f.subarray(off, off + 28));
}

/** PFC and PAUSE rebuilt from what was read: same sender, vector and (enabled) times. */
function macControlRoundTrip(m: MacControlFrame): boolean {
  const c = m.control;
  const frame =
    c.kind === "pause"
      ? buildPauseFrame({ src: m.src, quanta: c.quanta })
      : buildPfcFrame({ src: m.src, quanta: c.quanta.map((q, p) => ((c.enableVector >> p) & 1 ? q : null)) });
  const again = parsePfcFrame(frame);
  if (!again.ok || again.value.src !== m.src) return false;
  const b = again.value.control;
  if (c.kind === "pause") return b.kind === "pause" && b.quanta === c.quanta;
  return (
    b.kind === "pfc" &&
    b.enableVector === c.enableVector &&
    c.quanta.every((q, p) => !((c.enableVector >> p) & 1) || b.quanta[p] === q)
  );
}

/**
 * An ICMP message rebuilt from what was read: echo with its data (the serializer always writes code 0),
 * errors with their quote (which the serializer cuts to the IP header plus 8 bytes).
 */
function icmpRoundTrip(f: Uint8Array, m: IcmpMessage): boolean {
  const data = f.subarray(m.dataOffset, m.dataOffset + m.dataLength);
  const buf = new Uint8Array(8 + data.length);
  if ("identifier" in m) {
    const end = serializeIcmp({ type: m.type, identifier: m.identifier, sequence: m.sequence, data }, buf, 0);
    const again = parseIcmp(buf, 0, end);
    return (
      again.ok &&
      "identifier" in again.value &&
      again.value.type === m.type &&
      again.value.identifier === m.identifier &&
      again.value.sequence === m.sequence &&
      sameBytes(buf.subarray(8, end), data)
    );
  }
  const end = serializeIcmp(
    { type: m.type, code: m.code, original: data, nextHopMtu: m.nextHopMtu ?? 0 },
    buf,
    0,
  );
  const again = parseIcmp(buf, 0, end);
  const quoted = buf.subarray(8, end);
  return (
    again.ok &&
    "nextHopMtu" in again.value &&
    again.value.type === m.type &&
    again.value.code === m.code &&
    (again.value.nextHopMtu ?? 0) === (m.nextHopMtu ?? 0) &&
    sameBytes(quoted, data.subarray(0, quoted.length))
  );
}

function pcapRoundTrip(bytes: Uint8Array): { parsed: boolean; roundTrip?: boolean } {
  const p = parsePcap(bytes);
  if (!p.ok) return { parsed: false };
  const file = p.value;
  // Only what the writer can express: a snapshot length, whole records, seconds that fit 32 bits.
  const writable =
    file.snapLength > 0 &&
    file.fcsLength === null &&
    file.records.every((r) => r.originalLength >= r.frame.length && r.tNs / 1_000_000_000n <= 0xffff_ffffn);
  if (!writable) return { parsed: true };
  const format = {
    nanosecond: file.nanosecond,
    bigEndian: file.bigEndian,
    snapLength: file.snapLength,
    linkType: file.linkType,
  };
  const again = parsePcap(serializePcap(file.records, format));
  if (!again.ok) return { parsed: true, roundTrip: false };
  const back = again.value.records;
  const same =
    back.length === file.records.length &&
    back.every((r, i) => {
      const o = file.records[i]!;
      return r.tNs === o.tNs && r.originalLength === o.originalLength && sameBytes(r.frame, o.frame);
    });
  return { parsed: true, roundTrip: same };
}

/** Every codec, by name. `off` is a random offset the caller drew (from -2 to past the frame's end). */
const CODECS: Readonly<Record<string, CodecCheck>> = {
  ethernet: (f) => result(parseEthernet(f, 0), (h) => ethernetRoundTrip(f, h)),
  "ethernet@random": (f, _at, off) => result(parseEthernet(f, off)),
  ipv4: (f, at) => result(parseIpv4(f, at.l3), ipv4RoundTrip),
  "ipv4@random": (f, _at, off) => result(parseIpv4(f, off, { verifyChecksum: off % 2 === 0 })),
  udp: (f, at) =>
    result(parseUdp(f, at.udp < 0 ? at.l3 + 20 : at.udp, at.ipEnd < 0 ? f.length : at.ipEnd), (h) => {
      const buf = new Uint8Array(8);
      serializeUdp(h, buf, 0);
      return sameBytes(buf, f.subarray(h.payloadOffset - 8, h.payloadOffset));
    }),
  "udp@random": (f, _at, off) => result(parseUdp(f, off, off + 8 + (off & 0xff))),
  roce: (f, at) => result(parseRoce(f, at.bth < 0 ? at.l3 + 28 : at.bth, at.ipEnd < 0 ? f.length : at.ipEnd)),
  "roce@random": (f, _at, off) => result(parseRoce(f, off, f.length - (off & 3))),
  bth: (f, at) =>
    result(parseBth(f, at.bth < 0 ? at.l3 + 28 : at.bth), (h) => {
      const buf = new Uint8Array(12);
      serializeBth(h, buf, 0);
      const again = parseBth(buf, 0);
      return again.ok && isDeepStrictEqual(again.value, h);
    }),
  reth: (f, at, off) =>
    result(parseReth(f, at.bth < 0 ? off : at.bth + 12), (h) => {
      const buf = new Uint8Array(16);
      serializeReth(h, buf, 0);
      const again = parseReth(buf, 0);
      return again.ok && isDeepStrictEqual(again.value, h);
    }),
  aeth: (f, at, off) =>
    result(parseAeth(f, at.bth < 0 ? off : at.bth + 12), (h) => {
      const buf = new Uint8Array(4);
      serializeAeth(h, buf, 0);
      const again = parseAeth(buf, 0);
      return again.ok && isDeepStrictEqual(again.value, h);
    }),
  icrc: (f, at, off) => ({
    parsed:
      verifyIcrcV2(f, at.ip < 0 ? off : at.ip, at.ipEnd < 0 ? f.length : at.ipEnd) ||
      verifyIcrcV2(f, off, f.length - (off & 7)) ||
      verifyIcrcV1(f, at.l3, f.length) ||
      verifyIcrcV1(f, off, f.length),
  }),
  arp: (f, at) => result(parseArp(f, at.l3), (p) => arpRoundTrip(f, at.l3, p)),
  icmp: (f, at, off) =>
    result(
      parseIcmp(f, at.ip < 0 ? off : at.ip + 20, at.ipEnd < 0 || at.ipEnd > f.length ? f.length : at.ipEnd),
      (m) => icmpRoundTrip(f, m),
    ),
  "mac-control": (f, at) => result(parseMacControl(f, at.l3)),
  pfc: (f) => result(parsePfcFrame(f), macControlRoundTrip),
  lldp: (f, at) => result(parseLldp(f, at.l3)),
  vxlan: (f, at) =>
    result(parseVxlan(f, at.udp < 0 ? at.l3 + 28 : at.udp + 8, at.ipEnd < 0 ? f.length : at.ipEnd), (h) => {
      const buf = new Uint8Array(8);
      serializeVxlan(h.vni, buf, 0);
      const again = parseVxlan(buf, 0);
      return again.ok && again.value.vni === h.vni;
    }),
  grh: (f, at) =>
    result(parseGrh(f, at.l3), (h) => {
      const buf = new Uint8Array(40 + h.payloadLength);
      serializeGrh(h, buf, 0);
      const again = parseGrh(buf, 0);
      return again.ok && isDeepStrictEqual(again.value, h);
    }),
  rocev1: (f) => result(parseRoceV1Frame(f)),
  "pcap-file": (f, _at, off) => {
    // The frame as a record of a capture file whose header or record header is then damaged.
    const file = serializePcap([{ frame: f, tNs: 1_700_000_000_123_456_789n }], {
      nanosecond: off % 2 === 0,
    });
    if (off % 3 === 0) file[(off & 0x3f) % file.length]! ^= 0x5a;
    return pcapRoundTrip(file);
  },
  "pcap-check": (f) => ({ parsed: checkFrame(f).problems.length === 0 }),
};

export const CODEC_NAMES: readonly string[] = Object.keys(CODECS);

/**
 * Runs `frames` mutated frames from `mutator` through every codec. Never throws on what a codec does.
 * `view` wraps each frame before the codecs see it: a test passes one that throws on any read outside the
 * buffer, which JavaScript otherwise answers with a silent `undefined`.
 */
export function fuzzCodecs(
  mutator: FrameMutator,
  frames: number,
  view: (f: Uint8Array) => Uint8Array = (f) => f,
): CodecFuzzReport {
  const tallies: Record<string, CodecTally> = {};
  for (const name of CODEC_NAMES)
    tallies[name] = { ok: 0, err: 0, exceptions: 0, roundTrips: 0, roundTripFailures: 0 };
  const failures: CodecFailure[] = [];
  let exceptions = 0;
  let roundTripFailures = 0;
  const fail = (codec: string, what: CodecFailure["what"], message: string, m: MutatedFrame) => {
    if (failures.length < 10)
      failures.push({ codec, what, message, mutation: m.mutation, frameHex: toHex(m.frame) });
  };
  for (let n = 0; n < frames; n++) {
    const m = mutator.next();
    const f = view(m.frame);
    const at = frameLayout(m.frame);
    const off = mutator.int(f.length + 5) - 2;
    for (const name of CODEC_NAMES) {
      const tally = tallies[name]!;
      try {
        const r = CODECS[name]!(f, at, off);
        if (r.parsed) tally.ok++;
        else tally.err++;
        if (r.roundTrip !== undefined) {
          tally.roundTrips++;
          if (!r.roundTrip) {
            tally.roundTripFailures++;
            roundTripFailures++;
            fail(name, "round-trip", "serialized value parsed back differently", m);
          }
        }
      } catch (e) {
        tally.exceptions++;
        exceptions++;
        fail(name, "exception", e instanceof Error ? e.message : String(e), m);
      }
    }
  }
  return { frames, tallies, exceptions, roundTripFailures, failures };
}
