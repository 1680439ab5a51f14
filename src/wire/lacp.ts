// LACPDUs (IEEE 802.1AX-2014 §6.4.2.3, formerly IEEE 802.3ad / 802.3-2005 clause 43.4.2.2): a Slow
// Protocols frame (EtherType 0x8809, destination 01:80:c2:00:00:02, subtype 1 = LACP, version 1) of exactly
// 110 octets after the Ethernet header:
//
//   subtype 1 | version 1 | Actor TLV (type 1, length 20) | Partner TLV (type 2, length 20)
//   | Collector TLV (type 3, length 16: CollectorMaxDelay, 12 reserved) | Terminator (type 0, length 0)
//   | 50 reserved octets
//
// Actor and Partner TLVs carry system priority (2), system MAC (6), key (2), port priority (2), port
// number (2), state (1) and 3 reserved octets. The state octet's bits, least significant first:
// LACP_Activity, LACP_Timeout (1 = short), Aggregation, Synchronization, Collecting, Distributing,
// Defaulted, Expired. Receivers ignore reserved octets (§6.4.2.3: "ignored on receipt").

import { type MacAddress, readMac, readU16, writeMac, writeU16 } from "./bytes.js";
import { ETHERNET_HEADER_LENGTH, serializeEthernet } from "./ethernet.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";

/** Slow Protocols EtherType (IEEE 802.3 Annex 57A). */
export const SLOW_PROTOCOLS_ETHERTYPE = 0x8809;
/** Slow Protocols multicast address 01:80:c2:00:00:02. */
export const SLOW_PROTOCOLS_DST_MAC: MacAddress = 0x0180_c200_0002;
export const LACP_SUBTYPE = 1;
export const LACP_VERSION = 1;
/** Octets of an LACPDU after the Ethernet header. */
export const LACPDU_LENGTH = 110;
/** The whole frame without FCS. */
export const LACP_FRAME_LENGTH = ETHERNET_HEADER_LENGTH + LACPDU_LENGTH;

export const LacpTlvType = { Terminator: 0, Actor: 1, Partner: 2, Collector: 3 } as const;
const INFO_LENGTH = 20;
const COLLECTOR_LENGTH = 16;

/** The actor/partner state octet's bits (802.1AX §6.4.2.3). */
export const LacpState = {
  Activity: 0x01,
  /** Short timeout: the sender wants LACPDUs every second (fast rate) and times out after 3 s. */
  Timeout: 0x02,
  Aggregation: 0x04,
  Synchronization: 0x08,
  Collecting: 0x10,
  Distributing: 0x20,
  Defaulted: 0x40,
  Expired: 0x80,
} as const;

export interface LacpPortInfo {
  readonly systemPriority: number;
  readonly system: MacAddress;
  readonly key: number;
  readonly portPriority: number;
  readonly port: number;
  /** The state octet (LacpState bits). */
  readonly state: number;
}

export interface Lacpdu {
  readonly actor: LacpPortInfo;
  readonly partner: LacpPortInfo;
  /** CollectorMaxDelay, tens of microseconds. */
  readonly collectorMaxDelay: number;
}

export interface LacpFrameInit extends Lacpdu {
  /** The sending port's MAC (Ethernet source). */
  readonly src: MacAddress;
}

const PROTOCOL = "lacp";

function readInfo(buf: Uint8Array, at: number): LacpPortInfo {
  return {
    systemPriority: readU16(buf, at),
    system: readMac(buf, at + 2),
    key: readU16(buf, at + 8),
    portPriority: readU16(buf, at + 10),
    port: readU16(buf, at + 12),
    state: buf[at + 14]!,
  };
}

function tlvHeader(buf: Uint8Array, at: number, type: number, length: number, what: string): Parsed<true> {
  if (buf[at] !== type) {
    return fail(PROTOCOL, WireErrorCode.BadValue, `${what} TLV type is ${buf[at]}, expected ${type}`, at);
  }
  if (buf[at + 1] !== length) {
    return fail(
      PROTOCOL,
      WireErrorCode.BadLength,
      `${what} TLV length is ${buf[at + 1]}, expected ${length}`,
      at + 1,
    );
  }
  return ok(true);
}

/**
 * Parses an LACPDU starting at `offset` (the octet after the EtherType). Checks subtype, TLV types and
 * lengths; accepts any version ≥ 1 (802.1AX §6.4.2.3: a version 2 PDU is read as version 1) and ignores
 * reserved octets.
 */
export function parseLacpdu(buf: Uint8Array, offset: number): Parsed<Lacpdu> {
  // Up to the Terminator TLV; the 50 reserved octets after it carry nothing a receiver reads.
  const short = need(PROTOCOL, buf, offset, LACPDU_LENGTH - 50, "LACPDU");
  if (short !== null) return short;
  if (buf[offset] !== LACP_SUBTYPE) {
    return fail(PROTOCOL, WireErrorCode.BadValue, `subtype ${buf[offset]} is not LACP (1)`, offset);
  }
  if (buf[offset + 1]! < LACP_VERSION) {
    return fail(PROTOCOL, WireErrorCode.BadVersion, `version ${buf[offset + 1]} (LACP is 1)`, offset + 1);
  }
  const actorAt = offset + 2;
  const partnerAt = actorAt + INFO_LENGTH;
  const collectorAt = partnerAt + INFO_LENGTH;
  const checks = [
    tlvHeader(buf, actorAt, LacpTlvType.Actor, INFO_LENGTH, "actor"),
    tlvHeader(buf, partnerAt, LacpTlvType.Partner, INFO_LENGTH, "partner"),
    tlvHeader(buf, collectorAt, LacpTlvType.Collector, COLLECTOR_LENGTH, "collector"),
  ];
  for (const c of checks) if (!c.ok) return c;
  return ok({
    actor: readInfo(buf, actorAt + 2),
    partner: readInfo(buf, partnerAt + 2),
    collectorMaxDelay: readU16(buf, collectorAt + 2),
  });
}

function writeInfo(buf: Uint8Array, at: number, type: number, info: LacpPortInfo): void {
  buf[at] = type;
  buf[at + 1] = INFO_LENGTH;
  writeU16(buf, at + 2, info.systemPriority);
  writeMac(buf, at + 4, info.system);
  writeU16(buf, at + 10, info.key);
  writeU16(buf, at + 12, info.portPriority);
  writeU16(buf, at + 14, info.port);
  buf[at + 16] = info.state;
}

/** Writes the 110-octet LACPDU at `offset` (reserved octets zero); returns the offset after it. */
export function serializeLacpdu(pdu: Lacpdu, buf: Uint8Array, offset: number): number {
  buf.fill(0, offset, offset + LACPDU_LENGTH);
  buf[offset] = LACP_SUBTYPE;
  buf[offset + 1] = LACP_VERSION;
  writeInfo(buf, offset + 2, LacpTlvType.Actor, pdu.actor);
  writeInfo(buf, offset + 2 + INFO_LENGTH, LacpTlvType.Partner, pdu.partner);
  const collectorAt = offset + 2 + 2 * INFO_LENGTH;
  buf[collectorAt] = LacpTlvType.Collector;
  buf[collectorAt + 1] = COLLECTOR_LENGTH;
  writeU16(buf, collectorAt + 2, pdu.collectorMaxDelay);
  // Terminator (type 0, length 0) and the 50 reserved octets are the zeros already there.
  return offset + LACPDU_LENGTH;
}

/** A whole LACP frame (no FCS): 124 octets to the Slow Protocols address. */
export function buildLacpFrame(init: LacpFrameInit): Uint8Array {
  const frame = new Uint8Array(LACP_FRAME_LENGTH);
  const at = serializeEthernet(
    { dst: SLOW_PROTOCOLS_DST_MAC, src: init.src, etherType: SLOW_PROTOCOLS_ETHERTYPE },
    frame,
    0,
  );
  serializeLacpdu(init, frame, at);
  return frame;
}
