// LLDP (IEEE 802.1AB): a sequence of TLVs, each a 16-bit header (7-bit type, 9-bit length) and a value.
// An LLDPDU starts with Chassis ID, Port ID and TTL in that order and ends with an End TLV. We decode the
// mandatory TLVs and the common optional ones (the codec is ready for the LLDP agent that path navigation
// will need; no device sends LLDP yet) and hand back the rest (system capabilities, organisationally specific, ...)
// as raw bytes, so a frame from a real neighbour is never refused for carrying more than we know.

import { type Ipv4Address, type MacAddress, readMac, readU16, readU32 } from "./bytes.js";
import { fail, ok, type Parsed, WireErrorCode } from "./result.js";

/** Nearest-bridge group address 01:80:c2:00:00:0e: no bridge forwards it, so LLDP reaches one hop. */
export const LLDP_DST_MAC: MacAddress = 0x0180_c200_000e;

export const LldpTlvType = {
  End: 0,
  ChassisId: 1,
  PortId: 2,
  Ttl: 3,
  PortDescription: 4,
  SystemName: 5,
  SystemDescription: 6,
  SystemCapabilities: 7,
  ManagementAddress: 8,
  OrganizationallySpecific: 127,
} as const;
export type LldpTlvType = (typeof LldpTlvType)[keyof typeof LldpTlvType];

export const ChassisIdSubtype = {
  ChassisComponent: 1,
  InterfaceAlias: 2,
  PortComponent: 3,
  MacAddress: 4,
  NetworkAddress: 5,
  InterfaceName: 6,
  Local: 7,
} as const;
export type ChassisIdSubtype = (typeof ChassisIdSubtype)[keyof typeof ChassisIdSubtype];

export const PortIdSubtype = {
  InterfaceAlias: 1,
  PortComponent: 2,
  MacAddress: 3,
  NetworkAddress: 4,
  InterfaceName: 5,
  AgentCircuitId: 6,
  Local: 7,
} as const;
export type PortIdSubtype = (typeof PortIdSubtype)[keyof typeof PortIdSubtype];

/** Chassis ID by subtype: a MAC, a locally assigned string, or the raw bytes of the subtypes we do not decode. */
export type LldpChassisId =
  | { readonly subtype: typeof ChassisIdSubtype.MacAddress; readonly mac: MacAddress }
  | { readonly subtype: typeof ChassisIdSubtype.Local; readonly id: string }
  | {
      readonly subtype: Exclude<
        ChassisIdSubtype,
        typeof ChassisIdSubtype.MacAddress | typeof ChassisIdSubtype.Local
      >;
      readonly value: Uint8Array;
    };

/** Port ID by subtype: a MAC, an interface name, a locally assigned string, or raw bytes for the rest. */
export type LldpPortId =
  | { readonly subtype: typeof PortIdSubtype.MacAddress; readonly mac: MacAddress }
  | { readonly subtype: typeof PortIdSubtype.InterfaceName; readonly name: string }
  | { readonly subtype: typeof PortIdSubtype.Local; readonly id: string }
  | {
      readonly subtype: Exclude<
        PortIdSubtype,
        typeof PortIdSubtype.MacAddress | typeof PortIdSubtype.InterfaceName | typeof PortIdSubtype.Local
      >;
      readonly value: Uint8Array;
    };

export interface LldpManagementAddress {
  /** IANA address family number: 1 IPv4, 2 IPv6, 6 IEEE 802 (MAC). */
  readonly addressSubtype: number;
  /** The address bytes (1..31), copied out of the frame. */
  readonly address: Uint8Array;
  /** The address when it is IPv4 (subtype 1, 4 bytes), else null. */
  readonly ipv4: Ipv4Address | null;
  /** 1 unknown, 2 ifIndex, 3 system port number. */
  readonly interfaceSubtype: number;
  readonly interfaceNumber: number;
  /** Object identifier (0..128 bytes, BER), copied. */
  readonly oid: Uint8Array;
}

/** A TLV this codec does not decode: its type and value, copied out of the frame. */
export interface LldpTlv {
  readonly type: number;
  readonly value: Uint8Array;
}

export interface Lldpdu {
  readonly chassisId: LldpChassisId;
  readonly portId: LldpPortId;
  /** Seconds the receiver keeps this information; 0 asks it to forget the sender now. */
  readonly ttl: number;
  readonly portDescription: string | null;
  readonly systemName: string | null;
  readonly systemDescription: string | null;
  readonly managementAddresses: readonly LldpManagementAddress[];
  /** TLVs not decoded above, in frame order. */
  readonly unknownTlvs: readonly LldpTlv[];
  /** Bytes from `offset` through the End TLV (padding after it is not counted). */
  readonly length: number;
}

export const TLV_HEADER_LENGTH = 2;
const MAX_TLV_VALUE = 0x1ff;
/** Longest ID (subtype + up to 255 bytes) and string TLV (255 bytes) 802.1AB allows. */
export const MAX_ID_VALUE = 256;
export const MAX_STRING_VALUE = 255;
const MAC_ID_VALUE = 7;
export const IANA_ADDRESS_FAMILY_IPV4 = 1;
export const MGMT_INTERFACE_UNKNOWN = 1;

const textDecoder = new TextDecoder("utf-8");
export const textEncoder = new TextEncoder();

function text(buf: Uint8Array, from: number, to: number): string {
  return textDecoder.decode(buf.subarray(from, to));
}

/**
 * Parses the LLDPDU at `offset` (the Ethernet payload) up to `end` (default: the end of the buffer; the
 * frame's zero padding is harmless, it reads as an End TLV).
 *
 * Errors: Truncated when the buffer stops before `end`, a TLV runs past `end` or no End TLV comes before
 * it; BadValue when the first three TLVs are not Chassis ID, Port ID and TTL in that order, when one of
 * the single-instance TLVs (types 1..6) repeats, or when an ID subtype is reserved; BadLength when a
 * TLV's length is wrong for its type.
 */
export function parseLldp(buf: Uint8Array, offset = 0, end = buf.length): Parsed<Lldpdu> {
  if (end > buf.length) {
    return fail(
      "lldp",
      WireErrorCode.Truncated,
      `LLDPDU ends at byte ${end} but the buffer holds ${buf.length}`,
      offset,
    );
  }
  if (offset < 0)
    return fail("lldp", WireErrorCode.Truncated, `offset ${offset} is before the buffer`, offset);
  let chassisId: LldpChassisId | null = null;
  let portId: LldpPortId | null = null;
  let ttl = 0;
  let portDescription: string | null = null;
  let systemName: string | null = null;
  let systemDescription: string | null = null;
  const managementAddresses: LldpManagementAddress[] = [];
  const unknownTlvs: LldpTlv[] = [];
  const seen = new Set<number>();
  let at = offset;
  for (let index = 0; ; index++) {
    if (at + TLV_HEADER_LENGTH > end) {
      return fail("lldp", WireErrorCode.Truncated, "the LLDPDU ends without an End TLV", at);
    }
    const header = readU16(buf, at);
    const type = header >>> 9;
    const length = header & MAX_TLV_VALUE;
    const value = at + TLV_HEADER_LENGTH;
    if (value + length > end) {
      return fail(
        "lldp",
        WireErrorCode.Truncated,
        `TLV type ${type} length ${length} runs past the end (${end - value} bytes left)`,
        at,
      );
    }
    if (index < 3 && type !== index + 1) {
      const names = ["Chassis ID (1)", "Port ID (2)", "TTL (3)"];
      return fail(
        "lldp",
        WireErrorCode.BadValue,
        `TLV ${index + 1} has type ${type}, expected ${names[index]}`,
        at,
      );
    }
    if (type >= LldpTlvType.ChassisId && type <= LldpTlvType.SystemDescription) {
      if (seen.has(type)) return fail("lldp", WireErrorCode.BadValue, `TLV type ${type} appears twice`, at);
      seen.add(type);
    }
    const next = value + length;
    switch (type) {
      case LldpTlvType.End:
        if (length !== 0)
          return fail("lldp", WireErrorCode.BadLength, `End TLV length ${length}, expected 0`, at);
        // The order check above let End through only after Chassis ID, Port ID and TTL, so both are set.
        return ok({
          chassisId: chassisId!,
          portId: portId!,
          ttl,
          portDescription,
          systemName,
          systemDescription,
          managementAddresses,
          unknownTlvs,
          length: next - offset,
        });
      case LldpTlvType.ChassisId: {
        const id = parseChassisId(buf, at, value, length);
        if (!id.ok) return id;
        chassisId = id.value;
        break;
      }
      case LldpTlvType.PortId: {
        const id = parsePortId(buf, at, value, length);
        if (!id.ok) return id;
        portId = id.value;
        break;
      }
      case LldpTlvType.Ttl:
        if (length !== 2)
          return fail("lldp", WireErrorCode.BadLength, `TTL TLV length ${length}, expected 2`, at);
        ttl = readU16(buf, value);
        break;
      case LldpTlvType.PortDescription:
      case LldpTlvType.SystemName:
      case LldpTlvType.SystemDescription: {
        if (length > MAX_STRING_VALUE) {
          return fail("lldp", WireErrorCode.BadLength, `TLV type ${type} length ${length} exceeds 255`, at);
        }
        const s = text(buf, value, next);
        if (type === LldpTlvType.PortDescription) portDescription = s;
        else if (type === LldpTlvType.SystemName) systemName = s;
        else systemDescription = s;
        break;
      }
      case LldpTlvType.ManagementAddress: {
        const m = parseManagementAddress(buf, at, value, length);
        if (!m.ok) return m;
        managementAddresses.push(m.value);
        break;
      }
      default:
        unknownTlvs.push({ type, value: buf.slice(value, next) });
    }
    at = next;
  }
}

function parseChassisId(buf: Uint8Array, at: number, value: number, length: number): Parsed<LldpChassisId> {
  if (length < 2 || length > MAX_ID_VALUE) {
    return fail("lldp", WireErrorCode.BadLength, `Chassis ID TLV length ${length}, expected 2..256`, at);
  }
  const subtype = buf[value]!;
  switch (subtype) {
    case ChassisIdSubtype.MacAddress:
      if (length !== MAC_ID_VALUE) {
        return fail("lldp", WireErrorCode.BadLength, `MAC chassis ID TLV length ${length}, expected 7`, at);
      }
      return ok({ subtype, mac: readMac(buf, value + 1) });
    case ChassisIdSubtype.Local:
      return ok({ subtype, id: text(buf, value + 1, value + length) });
    case ChassisIdSubtype.ChassisComponent:
    case ChassisIdSubtype.InterfaceAlias:
    case ChassisIdSubtype.PortComponent:
    case ChassisIdSubtype.NetworkAddress:
    case ChassisIdSubtype.InterfaceName:
      return ok({ subtype, value: buf.slice(value + 1, value + length) });
    default:
      return fail("lldp", WireErrorCode.BadValue, `Chassis ID subtype ${subtype} is reserved`, value);
  }
}

function parsePortId(buf: Uint8Array, at: number, value: number, length: number): Parsed<LldpPortId> {
  if (length < 2 || length > MAX_ID_VALUE) {
    return fail("lldp", WireErrorCode.BadLength, `Port ID TLV length ${length}, expected 2..256`, at);
  }
  const subtype = buf[value]!;
  switch (subtype) {
    case PortIdSubtype.MacAddress:
      if (length !== MAC_ID_VALUE) {
        return fail("lldp", WireErrorCode.BadLength, `MAC port ID TLV length ${length}, expected 7`, at);
      }
      return ok({ subtype, mac: readMac(buf, value + 1) });
    case PortIdSubtype.InterfaceName:
      return ok({ subtype, name: text(buf, value + 1, value + length) });
    case PortIdSubtype.Local:
      return ok({ subtype, id: text(buf, value + 1, value + length) });
    case PortIdSubtype.InterfaceAlias:
    case PortIdSubtype.PortComponent:
    case PortIdSubtype.NetworkAddress:
    case PortIdSubtype.AgentCircuitId:
      return ok({ subtype, value: buf.slice(value + 1, value + length) });
    default:
      return fail("lldp", WireErrorCode.BadValue, `Port ID subtype ${subtype} is reserved`, value);
  }
}

// Management Address value: address string length (1 + address length), address subtype, address (1..31),
// interface numbering subtype, interface number (4), OID string length, OID (0..128).
function parseManagementAddress(
  buf: Uint8Array,
  at: number,
  value: number,
  length: number,
): Parsed<LldpManagementAddress> {
  const bad = (why: string) => fail("lldp", WireErrorCode.BadLength, `Management Address TLV: ${why}`, at);
  if (length < 9 || length > 167) return bad(`length ${length}, expected 9..167`);
  const stringLength = buf[value]!;
  if (stringLength < 2 || stringLength > 32)
    return bad(`address string length ${stringLength}, expected 2..32`);
  // Address string, then 1 + 4 bytes of interface, then the OID length byte.
  const oidLengthAt = value + 1 + stringLength + 5;
  if (oidLengthAt >= value + length)
    return bad(`address string length ${stringLength} leaves no room for the rest`);
  const oidLength = buf[oidLengthAt]!;
  if (oidLength > 128 || oidLengthAt + 1 + oidLength !== value + length) {
    return bad(`OID length ${oidLength} does not fill the TLV's ${length} bytes`);
  }
  const addressSubtype = buf[value + 1]!;
  const address = buf.slice(value + 2, value + 1 + stringLength);
  return ok({
    addressSubtype,
    address,
    ipv4: addressSubtype === IANA_ADDRESS_FAMILY_IPV4 && address.length === 4 ? readU32(address, 0) : null,
    interfaceSubtype: buf[value + 1 + stringLength]!,
    interfaceNumber: readU32(buf, value + 2 + stringLength),
    oid: buf.slice(oidLengthAt + 1, oidLengthAt + 1 + oidLength),
  });
}
