// The InfiniBand transport opcodes RoCE carries and what follows the BTH for each: the Reliable Connected
// (RC) opcodes the devices speak and the RoCEv2 Congestion Notification Packet (CNP), with the header
// lengths and the transport's fixed values (default P_Key, 24-bit PSN and QPN masks, the CNP's DSCP).

export const BTH_LENGTH = 12;
export const RETH_LENGTH = 16;
export const AETH_LENGTH = 4;
export const IMMDT_LENGTH = 4;
/** The CNP carries 16 reserved bytes after its BTH, zero on send. */
export const CNP_RESERVED_LENGTH = 16;
/** The default (full-membership) partition key every RoCE QP uses unless configured otherwise. */
export const DEFAULT_PKEY = 0xffff;
/** PSNs are 24-bit sequence numbers; all PSN arithmetic is modulo 2^24. */
export const PSN_MASK = 0xff_ffff;
/** Queue pair numbers are 24 bits. */
export const QPN_MASK = 0xff_ffff;
/** DSCP ConnectX NICs give CNPs by default (`cnp_dscp`). */
export const CNP_DEFAULT_DSCP = 48;

/**
 * BTH opcodes we speak: the Reliable Connected (RC) transport (bits 7..5 = 000) and the RoCEv2 CNP.
 * Bits 4..0 name the operation; "first/middle/last/only" is the packet's place in a multi-packet message.
 */
export const Opcode = {
  SendFirst: 0x00,
  SendMiddle: 0x01,
  SendLast: 0x02,
  SendLastWithImmediate: 0x03,
  SendOnly: 0x04,
  SendOnlyWithImmediate: 0x05,
  RdmaWriteFirst: 0x06,
  RdmaWriteMiddle: 0x07,
  RdmaWriteLast: 0x08,
  RdmaWriteLastWithImmediate: 0x09,
  RdmaWriteOnly: 0x0a,
  RdmaWriteOnlyWithImmediate: 0x0b,
  RdmaReadRequest: 0x0c,
  RdmaReadResponseFirst: 0x0d,
  RdmaReadResponseMiddle: 0x0e,
  RdmaReadResponseLast: 0x0f,
  RdmaReadResponseOnly: 0x10,
  Acknowledge: 0x11,
  /** RoCEv2 CNP. Not 0x80: Linux's IB_OPCODE_CNP (and Wireshark's label) is the transport prefix. */
  Cnp: 0x81,
} as const;
export type Opcode = (typeof Opcode)[keyof typeof Opcode];

/** Where a packet sits in its message. Single-packet operations (READ request, ACK, CNP) are "only". */
export type MessagePosition = "first" | "middle" | "last" | "only";

/** What follows the BTH for one opcode. Extension headers come in the order RETH, AETH, ImmDt. */
export interface OpcodeLayout {
  /** Human-readable name, e.g. "RC RDMA WRITE ONLY". */
  readonly name: string;
  readonly reth: boolean;
  readonly aeth: boolean;
  readonly immDt: boolean;
  /** The CNP's 16 reserved bytes. */
  readonly cnpReserved: boolean;
  /** Whether the opcode carries payload (a zero-length payload is still allowed). */
  readonly payload: boolean;
  readonly position: MessagePosition;
  /** BTH plus extension headers, in bytes: where the payload starts, relative to the BTH. */
  readonly headerLength: number;
}

// One frozen entry per opcode value, so the per-packet lookup is an array index with no allocation.
const LAYOUTS: (OpcodeLayout | null)[] = new Array<OpcodeLayout | null>(256).fill(null);

function define(
  opcode: Opcode,
  name: string,
  position: MessagePosition,
  payload: boolean,
  ext: { reth?: boolean; aeth?: boolean; immDt?: boolean; cnpReserved?: boolean } = {},
): void {
  const reth = ext.reth ?? false;
  const aeth = ext.aeth ?? false;
  const immDt = ext.immDt ?? false;
  const cnpReserved = ext.cnpReserved ?? false;
  const headerLength =
    BTH_LENGTH +
    (reth ? RETH_LENGTH : 0) +
    (aeth ? AETH_LENGTH : 0) +
    (immDt ? IMMDT_LENGTH : 0) +
    (cnpReserved ? CNP_RESERVED_LENGTH : 0);
  LAYOUTS[opcode] = Object.freeze({ name, reth, aeth, immDt, cnpReserved, payload, position, headerLength });
}

define(Opcode.SendFirst, "RC SEND FIRST", "first", true);
define(Opcode.SendMiddle, "RC SEND MIDDLE", "middle", true);
define(Opcode.SendLast, "RC SEND LAST", "last", true);
define(Opcode.SendLastWithImmediate, "RC SEND LAST WITH IMMEDIATE", "last", true, { immDt: true });
define(Opcode.SendOnly, "RC SEND ONLY", "only", true);
define(Opcode.SendOnlyWithImmediate, "RC SEND ONLY WITH IMMEDIATE", "only", true, { immDt: true });
// The RETH rides only on the first packet of a WRITE: the responder remembers VA and R_Key for the rest.
define(Opcode.RdmaWriteFirst, "RC RDMA WRITE FIRST", "first", true, { reth: true });
define(Opcode.RdmaWriteMiddle, "RC RDMA WRITE MIDDLE", "middle", true);
define(Opcode.RdmaWriteLast, "RC RDMA WRITE LAST", "last", true);
define(Opcode.RdmaWriteLastWithImmediate, "RC RDMA WRITE LAST WITH IMMEDIATE", "last", true, { immDt: true });
define(Opcode.RdmaWriteOnly, "RC RDMA WRITE ONLY", "only", true, { reth: true });
define(Opcode.RdmaWriteOnlyWithImmediate, "RC RDMA WRITE ONLY WITH IMMEDIATE", "only", true, {
  reth: true,
  immDt: true,
});
define(Opcode.RdmaReadRequest, "RC RDMA READ REQUEST", "only", false, { reth: true });
// READ responses carry an AETH on the packets that acknowledge (first, last, only), not on the middle ones.
define(Opcode.RdmaReadResponseFirst, "RC RDMA READ RESPONSE FIRST", "first", true, { aeth: true });
define(Opcode.RdmaReadResponseMiddle, "RC RDMA READ RESPONSE MIDDLE", "middle", true);
define(Opcode.RdmaReadResponseLast, "RC RDMA READ RESPONSE LAST", "last", true, { aeth: true });
define(Opcode.RdmaReadResponseOnly, "RC RDMA READ RESPONSE ONLY", "only", true, { aeth: true });
define(Opcode.Acknowledge, "RC ACKNOWLEDGE", "only", false, { aeth: true });
define(Opcode.Cnp, "RoCEv2 CNP", "only", false, { cnpReserved: true });

/** Which headers follow the BTH for `opcode`, or null for an opcode we do not speak. */
export function opcodeLayout(opcode: number): OpcodeLayout | null {
  return LAYOUTS[opcode & 0xff] ?? null;
}

/** Human-readable opcode name ("RC RDMA WRITE ONLY"); "UNKNOWN OPCODE 0x12" for opcodes we do not speak. */
export function opcodeName(opcode: number): string {
  const layout = LAYOUTS[opcode & 0xff];
  return layout ? layout.name : `UNKNOWN OPCODE 0x${(opcode & 0xff).toString(16).padStart(2, "0")}`;
}
