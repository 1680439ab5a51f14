// A work request as the requester carries it out, what happened to a READ response, and where completions
// go (the NIC's completion queue: nic.ts).

import type { Nanoseconds } from "../../device/contract.js";
import type { MsgOp } from "./transport.js";
import type { WcStatus } from "./work-completion.js";

/** One work request being carried out by a requester. */
export interface Message {
  readonly flowId: string;
  readonly op: MsgOp;
  readonly bytes: number;
  readonly npkts: number;
  /** Index of the message's first PSN. */
  readonly startV: number;
  readonly postedAt: Nanoseconds;
  firstSentAt: Nanoseconds;
  /** WRITE/SEND: packets acknowledged (a prefix); READ: response packets received in order. */
  donePkts: number;
  retransmits: number;
  /** READ: donePkts when the read was last re-issued for a gap (-1: not re-issued at that point). */
  reissueMark: number;
  completed: boolean;
}

/** What happened to a received READ response. */
export const ResponseResult = {
  Accepted: 0,
  Duplicate: 1,
  Gap: 2,
  Invalid: 3,
} as const;
export type ResponseResult = (typeof ResponseResult)[keyof typeof ResponseResult];

/** Called once per completed message (successfully or not), in posting order. */
export type CompletionSink = (m: Message, now: Nanoseconds, status: WcStatus) => void;
