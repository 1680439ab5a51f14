// The rewrite, in one place, as the packet leaves: CE when WRED/ECN or Fast ECN decided to mark, a remarked
// DSCP, and a remarked 802.1p priority in the PCP of an 802.1Q-tagged frame (features/elephant.ts), the next
// hop's MAC as destination, the egress port's MAC as source, TTL − 1 for what the switch forwards (not
// for what it originates). IPv4 fields change in place with an incremental checksum update (RFC 1624);
// the RoCEv2 ICRC masks TOS, TTL and checksum, so it stays valid. Frames without IP (ARP the switch
// built) leave as they are.

import { readU16, writeMac } from "../../wire/bytes.js";
import { EtherType } from "../../wire/ethernet.js";
import { decrementIpv4Ttl, Ecn, setIpv4Dscp, setIpv4Ecn } from "../../wire/ipv4.js";
import type { PacketMeta } from "../packet-meta.js";

export function rewrite(m: PacketMeta, portMac: number): void {
  if (m.l3 < 0) return;
  const frame = m.frame;
  if (m.mark) setIpv4Ecn(frame, m.l3, Ecn.Ce);
  if (m.remarkDscp >= 0) setIpv4Dscp(frame, m.l3, m.remarkDscp);
  if (m.remarkDot1p >= 0 && readU16(frame, 12) === EtherType.VLAN) {
    frame[14] = (m.remarkDot1p << 5) | (frame[14]! & 0x1f);
  }
  writeMac(frame, 0, m.nextHopMac);
  writeMac(frame, 6, portMac);
  if (m.inPort >= 0) decrementIpv4Ttl(frame, m.l3);
}
