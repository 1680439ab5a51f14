// Our own verifier for a capture: every frame of a classic pcap file decoded with the project's codecs
// and held to the rules a correct device keeps. It does what Wireshark does not (verify the RoCE ICRC,
// BECN on CNPs, the reserved bits of PFC) and needs no tshark, so it can judge any capture of the live
// lab. Problems are one line each and name the frame (1-based, as Wireshark numbers frames), the protocol
// and the field.

import { crc32 } from "node:zlib";
import { parseArp } from "../wire/arp.js";
import { internetChecksum, macToString, readU16 } from "../wire/bytes.js";
import { ETHERNET_MIN_FRAME, type EthernetHeader, EtherType, parseEthernet } from "../wire/ethernet.js";
import { IcmpType, parseIcmp } from "../wire/icmp.js";
import { computeIcrcV1, computeIcrcV2, readIcrc, verifyIcrcV1, verifyIcrcV2 } from "../wire/icrc.js";
import { IpProtocol, ipv4HeaderChecksum, parseIpv4 } from "../wire/ipv4.js";
import { parseLldp } from "../wire/lldp.js";
import { PcapLinkType, parsePcap } from "../wire/pcap.js";
import {
  MacControlOpcode,
  PFC_DST_MAC,
  PFC_PAYLOAD_LENGTH,
  PRIORITIES,
  parseMacControl,
} from "../wire/pfc.js";
import { formatWireError, type WireError, WireErrorCode } from "../wire/result.js";
import { aethKind, DEFAULT_PKEY, Opcode, opcodeName, parseRoce, type RoceHeaders } from "../wire/roce.js";
import { GRH_LENGTH, parseRoceV1Frame } from "../wire/rocev1.js";
import { parseUdp, ROCEV2_UDP_PORT, UDP_HEADER_LENGTH, udpChecksum, VXLAN_UDP_PORT } from "../wire/udp.js";
import { parseVxlan } from "../wire/vxlan.js";

/** What a frame is, for the per-kind tally. A frame counts once, by its outermost meaning. */
export const FrameKind = {
  /** Any RoCE packet that is not an ACKNOWLEDGE or a CNP: requests, READ responses (v1 and v2). */
  RoceData: "roce-data",
  /** RC ACKNOWLEDGE with an ACK syndrome. */
  Ack: "ack",
  /** RC ACKNOWLEDGE with a NAK or RNR NAK syndrome. */
  Nak: "nak",
  Cnp: "cnp",
  /** PFC frame pausing at least one priority (an enabled time above 0). */
  PfcXoff: "pfc-xoff",
  /** PFC frame whose enabled times are all 0 (resume). */
  PfcXon: "pfc-xon",
  /** IEEE 802.3x PAUSE (whole link). */
  Pause: "pause",
  Arp: "arp",
  Lldp: "lldp",
  Icmp: "icmp",
  /** VXLAN-encapsulated frame (its inner frame is checked too, but the frame counts as VXLAN). */
  Vxlan: "vxlan",
  Other: "other",
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** Every kind, in the order summaries list them. */
export const FRAME_KINDS: readonly FrameKind[] = Object.values(FrameKind);

export interface CaptureProblem {
  /** 1-based frame number, as Wireshark numbers frames; 0 for a problem with the file itself. */
  readonly frame: number;
  /** One line: protocol, field, what is wrong. */
  readonly message: string;
}

export type FrameCounts = Readonly<Record<FrameKind, number>>;

export interface CaptureReport {
  /** Frames checked. */
  readonly frames: number;
  readonly problems: readonly CaptureProblem[];
  readonly counts: FrameCounts;
  /** The kind of each frame in order (index 0 is frame 1). */
  readonly kinds: readonly FrameKind[];
  /** Why the file could not be read at all (no frame was checked), or null. */
  readonly fileError: WireError | null;
}

/** Result of checking one frame. */
export interface FrameCheck {
  readonly kind: FrameKind;
  /** One line each; empty when the frame is clean. */
  readonly problems: readonly string[];
}

/** VXLAN inside VXLAN is legal; a bound keeps a hostile capture from recursing without end. */
const MAX_NESTING = 4;
const FCS_LENGTH = 4;

function emptyCounts(): Record<FrameKind, number> {
  const counts = {} as Record<FrameKind, number>;
  for (const k of FRAME_KINDS) counts[k] = 0;
  return counts;
}

const hex = (v: number, digits: number) => `0x${v.toString(16).padStart(digits, "0")}`;

/** A WireError as a problem line: its protocol, then its message, which names the field. */
const wire = (e: WireError) => `${e.protocol}: ${e.message} (byte ${e.offset})`;

/** Collects per-frame results into a report. */
function tally() {
  const problems: CaptureProblem[] = [];
  const kinds: FrameKind[] = [];
  const counts = emptyCounts();
  return {
    add(n: number, kind: FrameKind, messages: readonly string[]): void {
      for (const message of messages) problems.push({ frame: n, message });
      kinds.push(kind);
      counts[kind]++;
    },
    report(): CaptureReport {
      return { frames: kinds.length, problems, counts, kinds, fileError: null };
    },
  };
}

/**
 * Checks a classic pcap file. Never throws. A file that is not readable pcap, or whose link type is not
 * Ethernet, gives `fileError` and one problem numbered 0; otherwise every frame is checked.
 */
export function checkCapture(bytes: Uint8Array): CaptureReport {
  const parsed = parsePcap(bytes);
  if (!parsed.ok) return unreadable(parsed.error);
  const file = parsed.value;
  if (file.linkType !== PcapLinkType.Ethernet) {
    return unreadable({
      protocol: "pcap",
      code: WireErrorCode.BadValue,
      message: `link type ${file.linkType} is not Ethernet (1); this checker reads Ethernet captures only`,
      offset: 20,
    });
  }
  const t = tally();
  file.records.forEach((record, i) => {
    const n = i + 1;
    let frame = record.frame;
    if (frame.length < record.originalLength) {
      // What is missing cannot be checked, and a RoCE frame without its ICRC proves nothing.
      t.add(n, FrameKind.Other, [
        `capture: only ${frame.length} of the frame's ${record.originalLength} bytes were captured (snapshot length); not checked`,
      ]);
      return;
    }
    const messages: string[] = [];
    // A file whose header says every frame ends with an FCS: verify it and check the frame without it.
    if (file.fcsLength === FCS_LENGTH && frame.length >= FCS_LENGTH) {
      const fcs = fcsProblem(frame);
      if (fcs) messages.push(fcs);
      frame = frame.subarray(0, frame.length - FCS_LENGTH);
    }
    const result = checkFrame(frame);
    t.add(n, result.kind, [...messages, ...result.problems]);
  });
  return t.report();
}

function unreadable(error: WireError): CaptureReport {
  return {
    frames: 0,
    problems: [{ frame: 0, message: formatWireError(error) }],
    counts: emptyCounts(),
    kinds: [],
    fileError: error,
  };
}

/** Checks frames held in memory (a device's transmit log, say): numbered 1.. in the order given. */
export function checkFrames(frames: readonly Uint8Array[]): CaptureReport {
  const t = tally();
  frames.forEach((frame, i) => {
    const result = checkFrame(frame);
    t.add(i + 1, result.kind, result.problems);
  });
  return t.report();
}

/**
 * Checks one Ethernet frame (without FCS, or with one where noted): its kind and every problem found.
 * Ethernet padding after an IP packet is accepted, and so is a trailing FCS on an IP frame (both are
 * bytes after the IPv4 total length).
 */
export function checkFrame(frame: Uint8Array): FrameCheck {
  const problems: string[] = [];
  const kind = checkEthernet(frame, problems, "", 0);
  return { kind, problems };
}

/** The 4 bytes after the first `length - 4` as the Ethernet FCS: a problem line when they are not. */
function fcsProblem(frame: Uint8Array): string | null {
  const body = frame.length - FCS_LENGTH;
  const carried = readIcrc(frame, frame.length); // the FCS, like the ICRC, is stored LSB first
  const expected = crc32(frame.subarray(0, body)) >>> 0;
  return carried === expected ? null : `ethernet FCS: ${hex(carried, 8)}, expected ${hex(expected, 8)}`;
}

function checkEthernet(frame: Uint8Array, problems: string[], prefix: string, depth: number): FrameKind {
  const say = (m: string) => problems.push(prefix + m);
  const parsed = parseEthernet(frame, 0);
  if (!parsed.ok) {
    // An 802.3 length instead of an EtherType is an LLC frame (spanning tree, for example): legal, and
    // nothing of ours, so it is only counted.
    if (parsed.error.code === WireErrorCode.BadValue) return FrameKind.Other;
    say(wire(parsed.error));
    return FrameKind.Other;
  }
  const eth = parsed.value;
  const l3 = eth.headerLength;
  if (eth.vlan && eth.etherType === EtherType.VLAN) {
    say("ethernet 802.1Q: a second tag follows the first; only one tag is expected on this fabric");
    return FrameKind.Other;
  }
  switch (eth.etherType) {
    case EtherType.IPv4:
      return checkIpv4(frame, l3, problems, prefix, depth);
    case EtherType.ARP: {
      const arp = parseArp(frame, l3);
      if (!arp.ok) say(wire(arp.error));
      return FrameKind.Arp;
    }
    case EtherType.LLDP: {
      const lldp = parseLldp(frame, l3);
      if (!lldp.ok) say(wire(lldp.error));
      return FrameKind.Lldp;
    }
    case EtherType.MacControl:
      return checkMacControl(frame, eth, say);
    case EtherType.RoCEv1:
      return checkRoceV1(frame, say);
    default:
      return FrameKind.Other;
  }
}

function checkIpv4(
  frame: Uint8Array,
  ipOff: number,
  problems: string[],
  prefix: string,
  depth: number,
): FrameKind {
  const say = (m: string) => problems.push(prefix + m);
  // Parse without the checksum check so that a bad checksum is reported and the layers above still are.
  const parsed = parseIpv4(frame, ipOff, { verifyChecksum: false });
  if (!parsed.ok) {
    say(wire(parsed.error));
    return FrameKind.Other;
  }
  const ip = parsed.value;
  if (internetChecksum(frame, ipOff, ip.headerLength) !== 0) {
    say(`ipv4 header checksum: ${hex(ip.checksum, 4)}, expected ${hex(ipv4HeaderChecksum(frame, ipOff), 4)}`);
  }
  // Fragments do not carry a whole upper-layer packet; nothing on this fabric fragments.
  if (ip.moreFragments || ip.fragmentOffset !== 0) return FrameKind.Other;
  const l4 = ipOff + ip.headerLength;
  const ipEnd = ipOff + ip.totalLength;
  if (ip.protocol === IpProtocol.ICMP) return checkIcmp(frame, l4, ipEnd, say);
  if (ip.protocol !== IpProtocol.UDP) return FrameKind.Other;

  const udpParsed = parseUdp(frame, l4, ipEnd);
  if (!udpParsed.ok) {
    say(wire(udpParsed.error));
    // Still count what the ports say it was meant to be.
    if (l4 + 4 <= ipEnd) {
      const dport = readU16(frame, l4 + 2);
      if (dport === ROCEV2_UDP_PORT) return roceKindFromOpcode(frame, l4 + UDP_HEADER_LENGTH, ipEnd);
      if (dport === VXLAN_UDP_PORT) return FrameKind.Vxlan;
    }
    return FrameKind.Other;
  }
  const udp = udpParsed.value;
  if (udp.length !== ipEnd - l4) {
    say(`udp length: ${udp.length}, but the IPv4 payload is ${ipEnd - l4} bytes`);
  }
  if (udp.checksum !== 0) {
    const expected = udpChecksum(ip.src, ip.dst, frame, l4, udp.length);
    if (expected !== udp.checksum) say(`udp checksum: ${hex(udp.checksum, 4)}, expected ${hex(expected, 4)}`);
  }
  const udpEnd = l4 + udp.length;
  if (udp.dstPort === ROCEV2_UDP_PORT)
    return checkRoceV2(frame, ipOff, udp.payloadOffset, udpEnd, ipEnd, say);
  if (udp.dstPort === VXLAN_UDP_PORT) {
    const vx = parseVxlan(frame, udp.payloadOffset, udpEnd);
    if (!vx.ok) {
      say(wire(vx.error));
      return FrameKind.Vxlan;
    }
    if (depth + 1 >= MAX_NESTING) {
      say(`vxlan: more than ${MAX_NESTING - 1} levels of nesting; inner frames not checked`);
      return FrameKind.Vxlan;
    }
    const inner = frame.subarray(vx.value.innerOffset, vx.value.innerOffset + vx.value.innerLength);
    checkEthernet(inner, problems, `${prefix}vxlan inner frame (VNI ${vx.value.vni}): `, depth + 1);
    return FrameKind.Vxlan;
  }
  return FrameKind.Other;
}

function checkIcmp(frame: Uint8Array, l4: number, ipEnd: number, say: (m: string) => void): FrameKind {
  const parsed = parseIcmp(frame, l4, ipEnd);
  if (!parsed.ok) {
    // parseIcmp verifies the checksum before it looks at the type, so an unknown type (a redirect, a
    // timestamp request) has a good checksum: nothing wrong, just nothing the lab sends.
    if (parsed.error.code !== WireErrorCode.BadValue) say(wire(parsed.error));
    return FrameKind.Icmp;
  }
  const m = parsed.value;
  if (m.type === IcmpType.TimeExceeded || m.type === IcmpType.DestinationUnreachable) {
    // The quoted header is the datagram as the router received it: its checksum must still hold.
    const q = m.dataOffset;
    if (m.dataLength >= 20 && frame[q]! >>> 4 === 4) {
      const qhl = (frame[q]! & 0x0f) * 4;
      if (qhl >= 20 && qhl <= m.dataLength && internetChecksum(frame, q, qhl) !== 0) {
        say(
          `icmp quoted ipv4 header checksum: ${hex(readU16(frame, q + 10), 4)}, expected ${hex(ipv4HeaderChecksum(frame, q), 4)}`,
        );
      }
    }
  }
  return FrameKind.Icmp;
}

/** Kind of a RoCE packet from its opcode byte alone (when the packet could not be parsed). */
function roceKindFromOpcode(frame: Uint8Array, bthOff: number, end: number): FrameKind {
  if (bthOff >= end || bthOff >= frame.length) return FrameKind.RoceData;
  const opcode = frame[bthOff]!;
  if (opcode === Opcode.Cnp) return FrameKind.Cnp;
  if (opcode === Opcode.Acknowledge) return FrameKind.Ack;
  return FrameKind.RoceData;
}

function checkRoceV2(
  frame: Uint8Array,
  ipOff: number,
  bthOff: number,
  udpEnd: number,
  ipEnd: number,
  say: (m: string) => void,
): FrameKind {
  // A receiver trims the packet to the UDP length, so that is where the ICRC is looked for.
  const parsed = parseRoce(frame, bthOff, udpEnd);
  if (!parsed.ok) {
    say(`roce ${wire(parsed.error)}`);
    return roceKindFromOpcode(frame, bthOff, udpEnd);
  }
  const roce = parsed.value;
  const kind = checkTransport(frame, bthOff, roce, say);
  // The ICRC runs from the IPv4 header to the end of the UDP payload.
  const icrcEnd = Math.min(udpEnd, ipEnd);
  if (!verifyIcrcV2(frame, ipOff, icrcEnd)) {
    say(
      `icrc: ${hex(readIcrc(frame, icrcEnd), 8)}, expected ${hex(computeIcrcV2(frame, ipOff, icrcEnd), 8)} (RoCEv2 ${opcodeName(roce.bth.opcode)}, PSN ${roce.bth.psn})`,
    );
  }
  return kind;
}

function checkRoceV1(frame: Uint8Array, say: (m: string) => void): FrameKind {
  const parsed = parseRoceV1Frame(frame, { verifyIcrc: false });
  if (!parsed.ok) {
    say(`rocev1 ${wire(parsed.error)}`);
    return FrameKind.RoceData;
  }
  const { grh, grhOffset, roce } = parsed.value;
  const kind = checkTransport(frame, grhOffset + GRH_LENGTH, roce, say);
  const end = grhOffset + GRH_LENGTH + grh.payloadLength;
  if (!verifyIcrcV1(frame, grhOffset, end)) {
    say(
      `icrc: ${hex(readIcrc(frame, end), 8)}, expected ${hex(computeIcrcV1(frame, grhOffset, end), 8)} (RoCEv1 ${opcodeName(roce.bth.opcode)}, PSN ${roce.bth.psn})`,
    );
  }
  return kind;
}

/** BTH sanity past what `parseRoce` enforces, the CNP and AETH rules, and the packet's kind. */
function checkTransport(
  frame: Uint8Array,
  bthOff: number,
  roce: RoceHeaders,
  say: (m: string) => void,
): FrameKind {
  const { bth } = roce;
  const name = opcodeName(bth.opcode);
  if (bth.pkey !== DEFAULT_PKEY) say(`bth P_Key: ${hex(bth.pkey, 4)}, expected 0xffff (${name})`);
  // Reserved bits: Resv6 (BTH byte 4, below FECN and BECN) and Resv7 (byte 8, below AckReq). Senders zero
  // them; BTH_LENGTH bounds both reads, which parseRoce has checked.
  const resv6 = frame[bthOff + 4]! & 0x3f;
  const resv7 = frame[bthOff + 8]! & 0x7f;
  if (resv6 !== 0) say(`bth Resv6: ${hex(resv6, 2)}, reserved bits must be 0 (${name})`);
  if (resv7 !== 0) say(`bth Resv7: ${hex(resv7, 2)}, reserved bits must be 0 (${name})`);
  if (bth.opcode === Opcode.Cnp) {
    if (!bth.becn) say("cnp BECN: clear, a CNP must have BECN set (BTH byte 4 = 0x40)");
    const reserved = roce.cnpReserved;
    if (reserved) {
      const at = reserved.findIndex((b) => b !== 0);
      if (at >= 0) say(`cnp reserved bytes: byte ${at} of 16 is ${hex(reserved[at]!, 2)}, all must be 0`);
    }
    return FrameKind.Cnp;
  }
  if (roce.aeth) {
    const k = aethKind(roce.aeth.syndrome);
    if (k === "reserved") say(`aeth syndrome: ${hex(roce.aeth.syndrome, 2)} is a reserved value (${name})`);
    if (bth.opcode === Opcode.Acknowledge) return k === "ack" ? FrameKind.Ack : FrameKind.Nak;
  }
  return FrameKind.RoceData;
}

function checkMacControl(frame: Uint8Array, eth: EthernetHeader, say: (m: string) => void): FrameKind {
  const l3 = eth.headerLength;
  if (eth.dst !== PFC_DST_MAC) {
    say(`maccontrol destination: ${macToString(eth.dst)}, expected 01:80:c2:00:00:01`);
  }
  if (eth.vlan) say("maccontrol 802.1Q: MAC Control frames are never VLAN-tagged");
  // 60 bytes, or 64 when the capture kept the FCS (checked then).
  if (frame.length === ETHERNET_MIN_FRAME + FCS_LENGTH) {
    const fcs = fcsProblem(frame);
    if (fcs) say(fcs);
  } else if (frame.length !== ETHERNET_MIN_FRAME) {
    say(`maccontrol length: ${frame.length} bytes, expected 60 (64 with the FCS)`);
  }
  const parsed = parseMacControl(frame, l3);
  // Classify from the raw opcode even when the payload is bad, so a broken PFC frame still counts as PFC.
  const opcode = frame.length >= l3 + 2 ? readU16(frame, l3) : -1;
  if (!parsed.ok) {
    say(wire(parsed.error));
    if (opcode === MacControlOpcode.Pause) return FrameKind.Pause;
    if (opcode !== MacControlOpcode.Pfc || frame.length < l3 + PFC_PAYLOAD_LENGTH) return FrameKind.Other;
    return pfcKind(frame[l3 + 3]!, (p) => readU16(frame, l3 + 4 + 2 * p));
  }
  const control = parsed.value;
  const used = control.kind === "pfc" ? PFC_PAYLOAD_LENGTH : 4;
  // Padding up to 60 bytes is reserved and transmitted as zero.
  const padEnd = Math.min(frame.length, ETHERNET_MIN_FRAME);
  for (let i = l3 + used; i < padEnd; i++) {
    if (frame[i] !== 0) {
      say(`maccontrol padding: byte ${i} is ${hex(frame[i]!, 2)}, reserved bytes must be 0`);
      break;
    }
  }
  if (control.kind === "pause") return FrameKind.Pause;
  return pfcKind(control.enableVector, (p) => control.quanta[p]!);
}

function pfcKind(enableVector: number, time: (priority: number) => number): FrameKind {
  for (let p = 0; p < PRIORITIES; p++) {
    if ((enableVector >>> p) & 1 && time(p) > 0) return FrameKind.PfcXoff;
  }
  return FrameKind.PfcXon;
}
