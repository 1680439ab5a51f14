// Work requests: `post` hands one to its QP's requester now, or keeps it until its time (`at`), on one
// timer armed at the earliest scheduled post; a post whose time has passed starts now and is counted late
// (`posts_late`); `stop` cancels what is scheduled (completed as `stopped`).

import type { Nanoseconds } from "../../device/contract.js";
import { fail, type NicCommand, type NicReply } from "../commands.js";
import type { Kick, NicShared } from "../nic-shared.js";
import type { QueuePair } from "./qp.js";
import { MSG_OP_NAMES, type MsgOp } from "./transport.js";

const MAX_MESSAGE_BYTES = 0xffff_ffff;

interface ScheduledPost {
  readonly at: Nanoseconds;
  readonly qpn: number;
  readonly op: MsgOp;
  readonly bytes: number;
  readonly flowId: string;
}

export class PostQueue {
  /** Sorted by time (stable for equal times: posts run in the order they were given). */
  private scheduled: ScheduledPost[] = [];
  /** Called once work is posted on a QP (the RDMA CM agent connects an unconnected one: cm-agent.ts). */
  onPosted: ((qp: QueuePair, now: Nanoseconds) => void) | null = null;

  constructor(
    private readonly s: NicShared,
    private readonly kick: Kick,
  ) {}

  post(cmd: Extract<NicCommand, { type: "post" }>, now: Nanoseconds): NicReply {
    const qp = this.s.qpByNum.get(cmd.qpn);
    if (qp === undefined) return fail(`no QP ${cmd.qpn}`);
    const op = MSG_OP_NAMES.indexOf(cmd.op) as MsgOp | -1;
    if (op === -1) return fail(`op ${String(cmd.op)} is not one of ${MSG_OP_NAMES.join(", ")}`);
    if (!Number.isInteger(cmd.bytes) || cmd.bytes < 1 || cmd.bytes > MAX_MESSAGE_BYTES) {
      return fail(`bytes ${cmd.bytes} is not an integer in 1..${MAX_MESSAGE_BYTES}`);
    }
    if (typeof cmd.flowId !== "string") return fail("flowId must be a string");
    const at = cmd.at ?? now;
    if (!(at >= 0)) return fail(`at ${at} is not a time`);
    if (at < now) {
      // Asked for a start already past (a live lab's command came late): started now, and counted.
      this.s.counters.postsLate[0]!++;
      this.s.counters.postLateMaxNs[0]! = Math.max(this.s.counters.postLateMaxNs[0]!, now - at);
    }
    if (at > now) {
      this.schedule({ at, qpn: cmd.qpn, op, bytes: cmd.bytes, flowId: cmd.flowId });
      return { ok: true };
    }
    qp.requester.post(op, cmd.bytes, cmd.flowId, now);
    this.onPosted?.(qp, now);
    this.s.mayHaveData(qp, now);
    this.kick(now);
    return { ok: true };
  }

  private schedule(p: ScheduledPost): void {
    let i = this.scheduled.length;
    while (i > 0 && this.scheduled[i - 1]!.at > p.at) i--;
    this.scheduled.splice(i, 0, p);
    if (i === 0) this.s.env.arm(this.s.t.post.id(0), Math.ceil(p.at));
  }

  /** The post timer fired: hand every due post to its QP. */
  onTimer(now: Nanoseconds): void {
    let n = 0;
    while (n < this.scheduled.length && this.scheduled[n]!.at <= now) {
      const p = this.scheduled[n++]!;
      // `postedAt` is when the request was due, so a late timer in the live runtime does not shorten FCT.
      const qp = this.s.qpByNum.get(p.qpn);
      if (qp === undefined) continue;
      qp.requester.post(p.op, p.bytes, p.flowId, p.at);
      this.onPosted?.(qp, now);
      this.s.mayHaveData(qp, now);
    }
    this.scheduled.splice(0, n);
    const next = this.scheduled[0];
    if (next !== undefined) this.s.env.arm(this.s.t.post.id(0), Math.ceil(next.at));
    this.kick(now);
  }

  /**
   * Cancels the scheduled posts: each is handed to its QP now, which the NIC then flushes as `stopped`
   * (so every flow the NIC was given has an outcome: nic.ts stopAll).
   */
  stop(now: Nanoseconds): void {
    const cancelled = this.scheduled;
    this.scheduled = [];
    this.s.env.disarm(this.s.t.post.id(0));
    for (const p of cancelled) this.s.qpByNum.get(p.qpn)?.requester.post(p.op, p.bytes, p.flowId, now);
  }
}
