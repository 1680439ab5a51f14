// The IPv4 header check a router or an end station makes before it relies on a packet (RFC 1812 §5.2.2):
// version 4, header length at least 20, total length within the frame, header checksum valid.

import { internetChecksum } from "../../wire/bytes.js";
import { ipv4HeaderLength, ipv4TotalLength } from "../../wire/ipv4.js";

export function ipv4HeaderValid(frame: Uint8Array, ip: number): boolean {
  if (frame.length < ip + 20 || frame[ip]! >>> 4 !== 4) return false;
  const ihl = ipv4HeaderLength(frame, ip);
  return (
    ihl >= 20 && ip + ipv4TotalLength(frame, ip) <= frame.length && internetChecksum(frame, ip, ihl) === 0
  );
}
