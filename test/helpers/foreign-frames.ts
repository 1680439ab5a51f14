// Frames built by an encoder independent of rocelab's, for tests of what rocelab accepts from other
// implementations. Each says how it was made, so it can be made again.

/**
 * A PFC frame from Scapy 2.5.0 (Debian's python3-scapy), whose MACControlClassBasedFlowControl names the
 * first octet of the two-octet class-enable vector `_reserved`:
 *
 *     Ether(dst="01:80:c2:00:00:01", src="02:00:00:00:00:05", type=0x8808) /
 *     MACControlClassBasedFlowControl(_reserved=0xa5, c3_enabled=1, c3_pause_time=0xffff)
 *
 * zero-padded to 60 bytes (no FCS). XOFF for priority 3 with the longest pause; the reserved octet is
 * 0xa5, where a sender puts 0 and a receiver ignores it.
 */
export const SCAPY_PFC_RESERVED_A5 =
  "0180c2000001 020000000005 8808 0101 a508 0000 0000 0000 ffff 0000 0000 0000 0000" + "00".repeat(26);
