// Out-of-order placement for sprayed traffic: the responder side of adaptive-routing NICs (NVIDIA
// ConnectX adaptive routing with out-of-order RDMA WRITE placement; the Ultra Ethernet transport's
// out-of-order delivery). A request whose PSN is ahead of the expected one, but within `window` PSNs of
// it, is placed (kept, here as its header fields: the payload was already checked on arrival) instead of
// dropped; when the expected PSN arrives the responder executes it and every placed packet that now
// follows in order, so each message is delivered once it is complete and messages complete in order. Only
// a packet beyond the window (a gap the window cannot bridge: the expected PSN is really missing) draws a
// NAK, once per gap as go-back-N's; the requester then resends from the first missing PSN.

import { psnDiff } from "../../wire/roce.js";
import { Arrival, type ReceiveOrder } from "./receive-order.js";

export class ReorderWindow implements ReceiveOrder {
  /** Slots: a power of two at least the window, indexed by PSN. */
  private readonly mask: number;
  private readonly psn: Int32Array;
  private readonly kinds: Uint8Array;
  private readonly opcodes: Uint8Array;
  private readonly ackReqs: Uint8Array;
  private readonly lengths: Int32Array;
  private readonly dmaLengths: Float64Array;
  private readonly accesses: Uint8Array;
  private nakOutstanding = false;
  /** Packets placed now. */
  placed = 0;
  /** Furthest ahead of the expected PSN a packet was placed (PSNs). */
  maxDepth = 0;
  // The packet `take` found.
  kind = 0;
  opcode = 0;
  ackReq = false;
  length = 0;
  dmaLength = 0;
  access = 0;

  constructor(readonly window: number) {
    const slots = 1 << Math.ceil(Math.log2(Math.max(2, window)));
    this.mask = slots - 1;
    this.psn = new Int32Array(slots).fill(-1);
    this.kinds = new Uint8Array(slots);
    this.opcodes = new Uint8Array(slots);
    this.ackReqs = new Uint8Array(slots);
    this.lengths = new Int32Array(slots);
    this.dmaLengths = new Float64Array(slots);
    this.accesses = new Uint8Array(slots);
  }

  arrive(psn: number, ePsn: number): Arrival {
    const d = psnDiff(psn, ePsn);
    if (d === 0) return Arrival.InOrder;
    if (d < 0) return Arrival.Duplicate;
    if (d < this.window) return this.psn[psn & this.mask] === psn ? Arrival.OutOfOrder : Arrival.Placed;
    if (this.nakOutstanding) return Arrival.OutOfOrder;
    this.nakOutstanding = true;
    return Arrival.OutOfOrderNak;
  }

  naked(): void {
    this.nakOutstanding = true;
  }

  advanced(): void {
    this.nakOutstanding = false;
  }

  /** Keeps a packet `arrive` answered Placed for; `depth` is its distance from the expected PSN. */
  place(
    psn: number,
    depth: number,
    kind: number,
    opcode: number,
    ackReq: boolean,
    length: number,
    dmaLength: number,
    access: number,
  ): void {
    const s = psn & this.mask;
    this.psn[s] = psn;
    this.kinds[s] = kind;
    this.opcodes[s] = opcode;
    this.ackReqs[s] = ackReq ? 1 : 0;
    this.lengths[s] = length;
    this.dmaLengths[s] = dmaLength;
    this.accesses[s] = access;
    this.placed++;
    if (depth > this.maxDepth) this.maxDepth = depth;
  }

  /** Removes the placed packet with `psn` into the public fields; false when it was not placed. */
  take(psn: number): boolean {
    const s = psn & this.mask;
    if (this.psn[s] !== psn) return false;
    this.psn[s] = -1;
    this.placed--;
    this.kind = this.kinds[s]!;
    this.opcode = this.opcodes[s]!;
    this.ackReq = this.ackReqs[s] === 1;
    this.length = this.lengths[s]!;
    this.dmaLength = this.dmaLengths[s]!;
    this.access = this.accesses[s]!;
    return true;
  }

  /** Forgets every placed packet (the message they continue was refused; the requester resends). */
  clear(): void {
    this.psn.fill(-1);
    this.placed = 0;
  }
}
