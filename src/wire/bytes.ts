// Byte helpers shared by the codecs: big-endian reads and writes without DataView allocation, and the
// address types. MAC and IPv4 addresses are plain numbers (48 and 32 bits, exact in a double), so they
// compare, hash and copy for free on the hot path; format them only for people.

/** A 48-bit MAC address as an integer (0 .. 2^48-1). */
export type MacAddress = number;
/** An IPv4 address as an unsigned 32-bit integer. */
export type Ipv4Address = number;

export const BROADCAST_MAC: MacAddress = 0xffff_ffff_ffff;

export function readU16(buf: Uint8Array, off: number): number {
  return (buf[off]! << 8) | buf[off + 1]!;
}

export function writeU16(buf: Uint8Array, off: number, v: number): void {
  buf[off] = (v >>> 8) & 0xff;
  buf[off + 1] = v & 0xff;
}

export function readU24(buf: Uint8Array, off: number): number {
  return (buf[off]! << 16) | (buf[off + 1]! << 8) | buf[off + 2]!;
}

export function writeU24(buf: Uint8Array, off: number, v: number): void {
  buf[off] = (v >>> 16) & 0xff;
  buf[off + 1] = (v >>> 8) & 0xff;
  buf[off + 2] = v & 0xff;
}

export function readU32(buf: Uint8Array, off: number): number {
  return ((buf[off]! << 24) | (buf[off + 1]! << 16) | (buf[off + 2]! << 8) | buf[off + 3]!) >>> 0;
}

export function writeU32(buf: Uint8Array, off: number, v: number): void {
  buf[off] = (v >>> 24) & 0xff;
  buf[off + 1] = (v >>> 16) & 0xff;
  buf[off + 2] = (v >>> 8) & 0xff;
  buf[off + 3] = v & 0xff;
}

/** Reads a big-endian 64-bit value as a bigint (RETH virtual addresses). */
export function readU64(buf: Uint8Array, off: number): bigint {
  return (BigInt(readU32(buf, off)) << 32n) | BigInt(readU32(buf, off + 4));
}

export function writeU64(buf: Uint8Array, off: number, v: bigint): void {
  writeU32(buf, off, Number((v >> 32n) & 0xffff_ffffn));
  writeU32(buf, off + 4, Number(v & 0xffff_ffffn));
}

export function readMac(buf: Uint8Array, off: number): MacAddress {
  return readU16(buf, off) * 0x1_0000_0000 + readU32(buf, off + 2);
}

export function writeMac(buf: Uint8Array, off: number, mac: MacAddress): void {
  writeU16(buf, off, Math.floor(mac / 0x1_0000_0000) & 0xffff);
  writeU32(buf, off + 2, mac % 0x1_0000_0000);
}

export function macToString(mac: MacAddress): string {
  const parts: string[] = [];
  for (let shift = 40; shift >= 0; shift -= 8) {
    parts.push((Math.floor(mac / 2 ** shift) & 0xff).toString(16).padStart(2, "0"));
  }
  return parts.join(":");
}

/** Parses `aa:bb:cc:dd:ee:ff` (or with `-`); returns null when it is not a MAC address. */
export function parseMac(text: string): MacAddress | null {
  const m =
    /^([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})$/i.exec(
      text,
    );
  if (!m) return null;
  let mac = 0;
  for (let i = 1; i <= 6; i++) mac = mac * 256 + Number.parseInt(m[i]!, 16);
  return mac;
}

export function ipToString(ip: Ipv4Address): string {
  return `${ip >>> 24}.${(ip >>> 16) & 0xff}.${(ip >>> 8) & 0xff}.${ip & 0xff}`;
}

/** Parses dotted-quad IPv4; returns null when it is not one. */
export function parseIp(text: string): Ipv4Address | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  let ip = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(m[i]);
    if (octet > 255) return null;
    ip = ip * 256 + octet;
  }
  return ip >>> 0;
}

/** Hex dump helper for tests and error messages: `"0a0b0c"` -> bytes (whitespace ignored). */
export function fromHex(hex: string): Uint8Array {
  const clean = hex.replace(/\s+/g, "");
  if (clean.length % 2 !== 0 || /[^0-9a-f]/i.test(clean)) throw new Error(`not a hex string: ${hex}`);
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function toHex(buf: Uint8Array): string {
  let s = "";
  for (const b of buf) s += b.toString(16).padStart(2, "0");
  return s;
}

/** Internet checksum (RFC 1071) over `len` bytes from `off`, folded to 16 bits and complemented. */
export function internetChecksum(buf: Uint8Array, off: number, len: number, initial = 0): number {
  let sum = initial;
  const end = off + len;
  let i = off;
  for (; i + 1 < end; i += 2) sum += (buf[i]! << 8) | buf[i + 1]!;
  if (i < end) sum += buf[i]! << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}
