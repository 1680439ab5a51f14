// LLDPDUs as a switch sends them (IEEE 802.1AB-2016): the frame built from its TLVs (chassis ID, port ID,
// TTL, the optional port and system descriptions and management address, End). Parsing is lldp.ts.

import { type Ipv4Address, type MacAddress, writeMac, writeU16, writeU32 } from "./bytes.js";
import { ETHERNET_HEADER_LENGTH, ETHERNET_MIN_FRAME, EtherType, serializeEthernet } from "./ethernet.js";
import {
  ChassisIdSubtype,
  IANA_ADDRESS_FAMILY_IPV4,
  LLDP_DST_MAC,
  type LldpChassisId,
  type LldpPortId,
  type LldpTlv,
  LldpTlvType,
  MAX_ID_VALUE,
  MAX_STRING_VALUE,
  MGMT_INTERFACE_UNKNOWN,
  PortIdSubtype,
  TLV_HEADER_LENGTH,
  textEncoder,
} from "./lldp.js";

export interface LldpFrameInit {
  /** The sending port's MAC (Ethernet source). */
  readonly src: MacAddress;
  readonly chassisId: LldpChassisId;
  readonly portId: LldpPortId;
  /** Seconds, 0..65535 (802.1AB's default is 4 × the 30 s transmit interval = 120 s). */
  readonly ttl: number;
  readonly portDescription?: string;
  readonly systemName?: string;
  readonly systemDescription?: string;
  /** An IPv4 management address (interface numbering "unknown", no OID). */
  readonly managementAddress?: Ipv4Address;
}

export function idValue(subtype: number, body: Uint8Array, what: string): Uint8Array {
  if (body.length < 1 || body.length > MAX_ID_VALUE - 1) {
    throw new RangeError(`${what} must be 1..255 bytes, got ${body.length}`);
  }
  const v = new Uint8Array(1 + body.length);
  v[0] = subtype;
  v.set(body, 1);
  return v;
}

export function macBytes(mac: MacAddress): Uint8Array {
  const b = new Uint8Array(6);
  writeMac(b, 0, mac);
  return b;
}

export function chassisIdValue(id: LldpChassisId): Uint8Array {
  switch (id.subtype) {
    case ChassisIdSubtype.MacAddress:
      return idValue(id.subtype, macBytes(id.mac), "chassis ID");
    case ChassisIdSubtype.Local:
      return idValue(id.subtype, textEncoder.encode(id.id), "chassis ID");
    default:
      return idValue(id.subtype, id.value, "chassis ID");
  }
}

export function portIdValue(id: LldpPortId): Uint8Array {
  switch (id.subtype) {
    case PortIdSubtype.MacAddress:
      return idValue(id.subtype, macBytes(id.mac), "port ID");
    case PortIdSubtype.InterfaceName:
      return idValue(id.subtype, textEncoder.encode(id.name), "port ID");
    case PortIdSubtype.Local:
      return idValue(id.subtype, textEncoder.encode(id.id), "port ID");
    default:
      return idValue(id.subtype, id.value, "port ID");
  }
}

export function stringValue(s: string, what: string): Uint8Array {
  const v = textEncoder.encode(s);
  if (v.length > MAX_STRING_VALUE) throw new RangeError(`${what} is ${v.length} bytes in UTF-8, at most 255`);
  return v;
}

/**
 * A complete LLDP frame (no FCS) to 01:80:c2:00:00:0e: Chassis ID, Port ID, TTL, then the optional TLVs
 * given (port description, system name, system description, management address), then End; zero-padded to
 * 60 bytes. Throws RangeError when a value cannot be encoded (an empty or over-long ID or string, a TTL
 * outside 0..65535): masking it would send a different identity than the caller meant.
 */
export function buildLldpFrame(init: LldpFrameInit): Uint8Array {
  if (!Number.isInteger(init.ttl) || init.ttl < 0 || init.ttl > 0xffff) {
    throw new RangeError(`LLDP TTL ${init.ttl} s is not an integer in 0..65535`);
  }
  const ttl = new Uint8Array(2);
  writeU16(ttl, 0, init.ttl);
  const tlvs: LldpTlv[] = [
    { type: LldpTlvType.ChassisId, value: chassisIdValue(init.chassisId) },
    { type: LldpTlvType.PortId, value: portIdValue(init.portId) },
    { type: LldpTlvType.Ttl, value: ttl },
  ];
  if (init.portDescription !== undefined) {
    tlvs.push({
      type: LldpTlvType.PortDescription,
      value: stringValue(init.portDescription, "port description"),
    });
  }
  if (init.systemName !== undefined) {
    tlvs.push({ type: LldpTlvType.SystemName, value: stringValue(init.systemName, "system name") });
  }
  if (init.systemDescription !== undefined) {
    tlvs.push({
      type: LldpTlvType.SystemDescription,
      value: stringValue(init.systemDescription, "system description"),
    });
  }
  if (init.managementAddress !== undefined) {
    const m = new Uint8Array(12);
    m[0] = 5; // address string length: subtype + 4 address bytes
    m[1] = IANA_ADDRESS_FAMILY_IPV4;
    writeU32(m, 2, init.managementAddress);
    m[6] = MGMT_INTERFACE_UNKNOWN;
    writeU32(m, 7, 0);
    m[11] = 0; // no OID
    tlvs.push({ type: LldpTlvType.ManagementAddress, value: m });
  }
  let length = ETHERNET_HEADER_LENGTH + TLV_HEADER_LENGTH; // Ethernet header and the End TLV
  for (const tlv of tlvs) length += TLV_HEADER_LENGTH + tlv.value.length;
  const frame = new Uint8Array(Math.max(ETHERNET_MIN_FRAME, length));
  let at = serializeEthernet({ dst: LLDP_DST_MAC, src: init.src, etherType: EtherType.LLDP }, frame, 0);
  for (const tlv of tlvs) {
    writeU16(frame, at, (tlv.type << 9) | tlv.value.length);
    frame.set(tlv.value, at + TLV_HEADER_LENGTH);
    at += TLV_HEADER_LENGTH + tlv.value.length;
  }
  // The End TLV is two zero bytes, already there.
  return frame;
}
