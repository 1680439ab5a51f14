// Our own verifier for a capture: every frame of a classic pcap file decoded with the project's codecs
// and held to the rules a correct device keeps. It does what Wireshark does not (verify the RoCE ICRC,
// BECN on CNPs, the reserved bits of PFC) and needs no tshark, so it can judge any capture of the live
// lab. Problems are one line each and name the frame (1-based, as Wireshark numbers frames), the protocol
// and the field.

import { parseArp } from "../wire/arp.js";
import { internetChecksum, readU16 } from "../wire/bytes.js";
import { EtherType, parseEthernet } from "../wire/ethernet.js";
import { IpProtocol, ipv4HeaderChecksum, parseIpv4 } from "../wire/ipv4.js";
import { parseLldp } from "../wire/lldp.js";
import { PcapLinkType, parsePcap } from "../wire/pcap.js";
import { PCAPNG_SHB, parsePcapng } from "../wire/pcapng.js";
import { formatWireError, type WireError, WireErrorCode } from "../wire/result.js";
import { parseUdp, ROCEV2_UDP_PORT, UDP_HEADER_LENGTH, udpChecksum, VXLAN_UDP_PORT } from "../wire/udp.js";
import { parseVxlan } from "../wire/vxlan.js";
import { FCS_LENGTH, fcsProblem } from "./frame-fcs.js";
import { FRAME_KINDS, FrameKind, hex, wire } from "./frame-kind.js";
import { emptyIntTally, type IntTally } from "./pcap-check-int.js";
import {
  checkIcmp,
  checkMacControl,
  checkRoceV1,
  checkRoceV2,
  intTally,
  resetIntTally,
  roceKindFromOpcode,
} from "./pcap-check-l4.js";

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
  /** In-band telemetry trailers seen (docs/int.md). */
  readonly int: IntTally;
}

/** Result of checking one frame. */
export interface FrameCheck {
  readonly kind: FrameKind;
  /** One line each; empty when the frame is clean. */
  readonly problems: readonly string[];
}

/** VXLAN inside VXLAN is legal; a bound keeps a hostile capture from recursing without end. */
const MAX_NESTING = 4;

function emptyCounts(): Record<FrameKind, number> {
  const counts = {} as Record<FrameKind, number>;
  for (const k of FRAME_KINDS) counts[k] = 0;
  return counts;
}

/** Collects per-frame results into a report. */
function tally() {
  const problems: CaptureProblem[] = [];
  const kinds: FrameKind[] = [];
  const counts = emptyCounts();
  resetIntTally();
  return {
    add(n: number, kind: FrameKind, messages: readonly string[]): void {
      for (const message of messages) problems.push({ frame: n, message });
      kinds.push(kind);
      counts[kind]++;
    },
    report(): CaptureReport {
      return { frames: kinds.length, problems, counts, kinds, fileError: null, int: { ...intTally } };
    },
  };
}

/**
 * Checks a classic pcap or a pcapng file. Never throws. A file that is not readable pcap, or whose link type is not
 * Ethernet, gives `fileError` and one problem numbered 0; otherwise every frame is checked.
 */
export function checkCapture(bytes: Uint8Array): CaptureReport {
  // rocelab capture writes pcapng (emulated timestamps and a comment saying so); tcpdump writes pcap.
  const pcapng =
    bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === PCAPNG_SHB;
  const parsed = pcapng ? parsePcapng(bytes) : parsePcap(bytes);
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
    int: emptyIntTally(),
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
