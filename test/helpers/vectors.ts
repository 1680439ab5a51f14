// Known-good RoCEv2 frames as hex (spaces ignored by fromHex), shared by the codec and ICRC tests: the CNP
// of NVIDIA's community article "RoCEv2 CNP Packet Format Example", and a WRITE built here whose ICRC comes
// from the same algorithm and which tshark dissects without error.

/** NVIDIA's "RoCEv2 CNP packet format example": an IPv4 packet, no Ethernet. */
export const NVIDIA_CNP =
  "4589003c98c640002011692716161608 16161607" + // IPv4, TOS 0x89, TTL 0x20
  "dbae12b700280000" + // UDP 56238 -> 4791, checksum 0
  "8100ffff400000d200000000" + // BTH: CNP, BECN, DestQP 0xd2
  "00".repeat(16) +
  "dafc1bef"; // ICRC 0xEF1BFCDA, least-significant byte first

/** The second vector: RC RDMA WRITE ONLY, QPN 0x11, PSN 100, AckReq, RETH, payload "ABCDEFGH". */
export const WRITE_ONLY_FRAME =
  "020000000002 020000000001 0800" +
  "4502004400014000401126a40a0000010a000002" +
  "c12312b700300000" +
  "0a00ffff0000001180000064" +
  "00007f0000001000 00001234 00000008" +
  "4142434445464748" +
  "b4a97a15";
