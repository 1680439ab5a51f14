// InfiniBand transport headers as RoCE carries them, one module each, gathered here as the public face
// every device, codec and test imports:
//
// - roce-opcodes.ts: the opcodes we speak (RC and the CNP), what follows the BTH for each, header lengths
// - roce-psn.ts: 24-bit PSN arithmetic
// - bth.ts, reth.ts, aeth.ts: the Base Transport Header and the RETH and AETH extension headers
// - roce-packet.ts: parsing a whole packet from the BTH to the ICRC (RoCEv2 and RoCEv1 alike)
// - roce-frame.ts: building packets and complete RoCEv2 frames; the UDP source-port convention
// - cnp.ts: the RoCEv2 Congestion Notification Packet
//
// A RoCE packet after its network header: BTH, the extension headers its opcode calls for, payload, 0-3 pad
// bytes (count in BTH.PadCnt) and the 4-byte ICRC. All fields are big-endian except the ICRC (icrc.ts).

export {
  AETH_CREDITS_UNLIMITED,
  type Aeth,
  type AethKind,
  AethSyndrome,
  aethKind,
  aethValue,
  parseAeth,
  serializeAeth,
} from "./aeth.js";
export { type Bth, type BthInit, parseBth, serializeBth } from "./bth.js";
export { buildCnpFrame, type CnpFrameSpec } from "./cnp.js";
export { parseReth, type Reth, serializeReth } from "./reth.js";
export {
  buildRoceV2Frame,
  padCountFor,
  type RoceTransportSpec,
  type RoceV2FrameSpec,
  roceTransportLength,
  roceUdpSourcePort,
  roceV2FrameLength,
  serializeRoceTransport,
  serializeRoceV2Frame,
} from "./roce-frame.js";
export {
  AETH_LENGTH,
  BTH_LENGTH,
  CNP_DEFAULT_DSCP,
  CNP_RESERVED_LENGTH,
  DEFAULT_PKEY,
  IMMDT_LENGTH,
  type MessagePosition,
  Opcode,
  type OpcodeLayout,
  opcodeLayout,
  opcodeName,
  PSN_MASK,
  QPN_MASK,
  RETH_LENGTH,
} from "./roce-opcodes.js";
export { parseRoce, type RoceHeaders } from "./roce-packet.js";
export { psnAdd, psnDiff, psnLessThan } from "./roce-psn.js";
