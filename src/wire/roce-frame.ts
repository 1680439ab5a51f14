// Building RoCE packets: the transport part (BTH, extension headers, payload, pad) into a caller's buffer,
// whole RoCEv2 frames (Ethernet, IPv4, UDP, transport, ICRC) into a slab or a caller's buffer, and the
// UDP source-port convention of Linux and rdma-core that gives a RoCEv2 flow its ECMP entropy.

import { type Aeth, serializeAeth } from "./aeth.js";
import { writeBth } from "./bth.js";
import { type Ipv4Address, type MacAddress, writeU16, writeU32 } from "./bytes.js";
import {
  ETHERNET_HEADER_LENGTH,
  EtherType,
  serializeEthernet,
  VLAN_TAG_LENGTH,
  type VlanTag,
} from "./ethernet.js";
import { allocFrame } from "./frame-alloc.js";
import { ICRC_LENGTH, writeIcrcV2 } from "./icrc.js";
import { type Ecn, IPV4_HEADER_LENGTH, IpProtocol, serializeIpv4 } from "./ipv4.js";
import { type Reth, serializeReth } from "./reth.js";
import {
  CNP_RESERVED_LENGTH,
  DEFAULT_PKEY,
  IMMDT_LENGTH,
  type Opcode,
  type OpcodeLayout,
  opcodeLayout,
  QPN_MASK,
} from "./roce-opcodes.js";

/** UDP destination port of RoCEv2 (IANA "roce"). */
const ROCEV2_UDP_PORT = 4791;
const UDP_HEADER_LENGTH = 8;

/** Everything from the BTH on: the fields a requester or responder chooses per packet. */
export interface RoceTransportSpec {
  readonly opcode: Opcode;
  /** Destination QP number (24 bits). */
  readonly destQp: number;
  /** Packet sequence number (24 bits). */
  readonly psn: number;
  readonly ackReq?: boolean;
  readonly se?: boolean;
  readonly migReq?: boolean;
  /** Default `DEFAULT_PKEY`. */
  readonly pkey?: number;
  readonly fecn?: boolean;
  readonly becn?: boolean;
  /** Required by opcodes that carry a RETH; ignored by the others (same for `aeth` and `immDt`). */
  readonly reth?: Reth | null;
  readonly aeth?: Aeth | null;
  readonly immDt?: number | null;
  /** Payload bytes (may be a view into a larger buffer; copied once into the frame). Default empty. */
  readonly payload?: Uint8Array;
  /**
   * An in-band telemetry block (int-md.ts: P4.org INT with its probe marker), written after the transport
   * headers and before the payload, for any opcode. Covered by the ICRC. Default none.
   */
  readonly int?: Uint8Array | null;
}

const EMPTY = new Uint8Array(0);

/** Layout of `spec.opcode`, after checking the spec supplies the headers it needs. Throws on caller bugs. */
function layoutFor(spec: RoceTransportSpec): OpcodeLayout {
  // An opcode outside 0..255 is no opcode at all, not the one its low byte names.
  const layout = (spec.opcode & 0xff) === spec.opcode ? opcodeLayout(spec.opcode) : null;
  if (!layout) throw new RangeError(`cannot build opcode ${spec.opcode}: not one we speak`);
  if (layout.reth && !spec.reth) throw new TypeError(`${layout.name} needs a RETH`);
  if (layout.aeth && !spec.aeth) throw new TypeError(`${layout.name} needs an AETH`);
  if (layout.immDt && (spec.immDt === undefined || spec.immDt === null)) {
    throw new TypeError(`${layout.name} needs immediate data`);
  }
  if (!layout.payload && spec.payload && spec.payload.length > 0) {
    throw new TypeError(`${layout.name} carries no payload, got ${spec.payload.length} bytes`);
  }
  return layout;
}

/** Pad bytes that bring `payloadLength` to a multiple of 4. */
export function padCountFor(payloadLength: number): number {
  return -payloadLength & 3;
}

/** Bytes from the BTH through the ICRC for this packet. Throws if the spec is not buildable. */
export function roceTransportLength(spec: RoceTransportSpec): number {
  const layout = layoutFor(spec);
  const payloadLength = spec.payload?.length ?? 0;
  const int = spec.int?.length ?? 0;
  return layout.headerLength + int + payloadLength + padCountFor(payloadLength) + ICRC_LENGTH;
}

function writeTransport(
  spec: RoceTransportSpec,
  layout: OpcodeLayout,
  buf: Uint8Array,
  offset: number,
): number {
  const payload = spec.payload ?? EMPTY;
  const padCount = padCountFor(payload.length);
  let off = writeBth(
    buf,
    offset,
    spec.opcode,
    spec.se ?? false,
    spec.migReq ?? false,
    padCount,
    0,
    spec.pkey ?? DEFAULT_PKEY,
    spec.fecn ?? false,
    spec.becn ?? false,
    spec.destQp,
    spec.ackReq ?? false,
    spec.psn,
  );
  if (layout.reth) off = serializeReth(spec.reth!, buf, off);
  if (layout.aeth) off = serializeAeth(spec.aeth!, buf, off);
  if (layout.immDt) {
    writeU32(buf, off, spec.immDt!);
    off += IMMDT_LENGTH;
  }
  if (layout.cnpReserved) {
    buf.fill(0, off, off + CNP_RESERVED_LENGTH);
    off += CNP_RESERVED_LENGTH;
  }
  if (spec.int) {
    buf.set(spec.int, off);
    off += spec.int.length;
  }
  buf.set(payload, off);
  off += payload.length;
  buf.fill(0, off, off + padCount);
  off += padCount;
  return off;
}

/**
 * Writes BTH, extension headers, payload and zero pad at `offset` (PadCnt computed from the payload length);
 * returns the offset where the 4-byte ICRC goes, which the caller computes once the network header is in
 * place. `buf` must hold `roceTransportLength(spec)` bytes from `offset`. Throws if the spec is not buildable.
 */
export function serializeRoceTransport(spec: RoceTransportSpec, buf: Uint8Array, offset = 0): number {
  return writeTransport(spec, layoutFor(spec), buf, offset);
}

/** A whole RoCEv2 frame: Ethernet, IPv4, UDP and the transport fields. */
export interface RoceV2FrameSpec extends RoceTransportSpec {
  readonly srcMac: MacAddress;
  readonly dstMac: MacAddress;
  /** 802.1Q tag (its PCP selects the PFC priority on tagged links); default none. */
  readonly vlan?: VlanTag | null;
  readonly srcIp: Ipv4Address;
  readonly dstIp: Ipv4Address;
  readonly dscp: number;
  readonly ecn: Ecn;
  /** Default 64. */
  readonly ttl?: number;
  /** IPv4 identification; default 0. */
  readonly identification?: number;
  /** UDP source port: the flow's ECMP entropy (see `roceUdpSourcePort`). */
  readonly udpSrcPort: number;
}

/** Frame bytes for `spec` after checking it is buildable (throws, a caller bug, when it is not). */
function frameLength(spec: RoceV2FrameSpec, layout: OpcodeLayout): number {
  const payloadLength = spec.payload?.length ?? 0;
  const ipLength =
    IPV4_HEADER_LENGTH +
    UDP_HEADER_LENGTH +
    layout.headerLength +
    payloadLength +
    padCountFor(payloadLength) +
    (spec.int?.length ?? 0) +
    ICRC_LENGTH;
  if (ipLength > 0xffff) throw new RangeError(`RoCEv2 packet of ${ipLength} bytes exceeds the IPv4 maximum`);
  return (spec.vlan ? ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH : ETHERNET_HEADER_LENGTH) + ipLength;
}

function writeFrame(
  spec: RoceV2FrameSpec,
  layout: OpcodeLayout,
  buf: Uint8Array,
  offset: number,
  end: number,
) {
  const ipOffset = serializeEthernet(
    { dst: spec.dstMac, src: spec.srcMac, etherType: EtherType.IPv4, vlan: spec.vlan ?? null },
    buf,
    offset,
  );
  const udpLength = end - ipOffset - IPV4_HEADER_LENGTH;
  let off = serializeIpv4(
    {
      src: spec.srcIp,
      dst: spec.dstIp,
      protocol: IpProtocol.UDP,
      payloadLength: udpLength,
      dscp: spec.dscp,
      ecn: spec.ecn,
      ttl: spec.ttl ?? 64,
      identification: spec.identification ?? 0,
      dontFragment: true,
    },
    buf,
    ipOffset,
  );
  writeU16(buf, off, spec.udpSrcPort);
  writeU16(buf, off + 2, ROCEV2_UDP_PORT);
  writeU16(buf, off + 4, udpLength);
  // Checksum 0 means "none" for UDP over IPv4; the ICRC protects the packet instead.
  writeU16(buf, off + 6, 0);
  off += UDP_HEADER_LENGTH;
  writeTransport(spec, layout, buf, off);
  writeIcrcV2(buf, ipOffset, end);
}

/** Bytes `buildRoceV2Frame` / `serializeRoceV2Frame` produce for `spec`. Throws if it is not buildable. */
export function roceV2FrameLength(spec: RoceV2FrameSpec): number {
  return frameLength(spec, layoutFor(spec));
}

/**
 * Writes the frame `buildRoceV2Frame` builds at `offset` of a caller's buffer (a slab or ring, to avoid an
 * allocation per packet); returns the offset just past it. Every byte of the frame is written, so the
 * buffer may hold stale data. `buf` must have `roceV2FrameLength(spec)` bytes from `offset`.
 */
export function serializeRoceV2Frame(spec: RoceV2FrameSpec, buf: Uint8Array, offset = 0): number {
  const layout = layoutFor(spec);
  const end = offset + frameLength(spec, layout);
  if (end > buf.length)
    throw new RangeError(`frame needs ${end - offset} bytes, ${buf.length - offset} left`);
  writeFrame(spec, layout, buf, offset, end);
  return end;
}

/**
 * Builds a complete RoCEv2 frame (no FCS, no padding to 60 bytes): Ethernet (optional 802.1Q tag), IPv4
 * with DF set and a valid checksum, UDP to port 4791 with checksum 0 (as RoCE NICs send it), BTH, the
 * extension headers the opcode needs, payload, zero pad and ICRC. One allocation: the returned frame (a view
 * into a shared slab, frame-alloc.ts).
 * Throws (a caller bug) when the opcode is unknown, a required header is missing, a no-payload opcode is
 * given payload, or the packet exceeds 65535 IPv4 bytes.
 */
export function buildRoceV2Frame(spec: RoceV2FrameSpec): Uint8Array {
  const layout = layoutFor(spec);
  const frame = allocFrame(frameLength(spec, layout));
  writeFrame(spec, layout, frame, 0, frame.length);
  return frame;
}

// ---------------------------------------------------------------------------------------------------------
// UDP source port.

/**
 * The RoCEv2 UDP source port Linux drivers (`rdma_get_udp_sport`) and rdma-core
 * (`ibv_flow_label_to_udp_sport`) use: the 20-bit flow label, or when it is 0 a label folded from the
 * product of the two QP numbers (symmetric, so both ends of a connection agree), squeezed into 14 bits and
 * placed in 0xC000..0xFFFF. `flowLabel` is the GRH/AH flow label (20 bits; higher bits are ignored, as
 * the kernel ignores them once it has found the label non-zero).
 */
export function roceUdpSourcePort(localQpn: number, remoteQpn: number, flowLabel = 0): number {
  let fl = flowLabel;
  if (fl === 0) {
    // The kernel XORs a 48-bit product v with v >> 20 and v >> 40 and keeps 20 bits: that is bits 0..19,
    // 20..39 and 40..47 of v XORed together. The product of two 24-bit numbers is exact in a double.
    const v = (localQpn & QPN_MASK) * (remoteQpn & QPN_MASK);
    const low = v % 0x10_0000;
    const mid = Math.floor(v / 0x10_0000) % 0x10_0000;
    const high = Math.floor(v / 0x100_0000_0000);
    fl = low ^ mid ^ high;
  }
  return ((fl & 0x3fff) ^ ((fl & 0xf_c000) >>> 14)) | 0xc000;
}
