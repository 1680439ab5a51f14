// Stages 5-8, egress: the admitted packet joins its queue (enqueued hooks: ECN mark accounting, PFC XOFF);
// when the port's wire is free the scheduler picks what goes next (pending MAC Control frames first, then
// strict priority, then DWRR over the queues a received PFC has not paused); the packet leaves the buffer
// (dequeued hooks: Fast ECN, PFC XON), is rewritten and goes on the wire. A link going down flushes the
// port's queues through the same release path.

import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind, type CounterSet, Label } from "../../device/counters.js";
import { PRIORITIES } from "../../wire/pfc.js";
import { SwitchCounter } from "../counter-defs.js";
import { DropReason, type SwitchDrops } from "../drops.js";
import type { HookSet } from "../features/hooks.js";
import type { Mmu } from "../mmu.js";
import { PacketMeta, Verdict } from "../packet-meta.js";
import type { SwitchPort } from "../port.js";
import type { Classifier } from "./classify.js";
import { rewrite } from "./rewrite.js";

export class Egress {
  private readonly txPackets: Float64Array;
  private readonly txBytes: Float64Array;
  /** A packet context per port for the departing packet (a port's pull may kick another port's). */
  private readonly departing: PacketMeta[] = [];
  private readonly control = new PacketMeta();

  constructor(
    private readonly ports: readonly (SwitchPort | undefined)[],
    private readonly mmu: Mmu,
    private readonly drops: SwitchDrops,
    private readonly hooks: HookSet,
    private readonly classifier: Classifier,
    counters: CounterSet,
  ) {
    this.txPackets = counters.add(SwitchCounter.queueTxPackets);
    this.txBytes = counters.add(SwitchCounter.queueTxBytes);
    counters.computed(
      {
        name: "queue_packets",
        key: "packets",
        kind: CounterKind.Gauge,
        unit: "packets",
        help: "packets in the queue now",
        labels: [Label.Port, Label.Queue],
      },
      (i) => this.ports[Math.floor(i / PRIORITIES)]?.sched.queues[i % PRIORITIES]?.length ?? 0,
    );
    for (let p = 0; p < ports.length; p++) this.departing.push(new PacketMeta());
  }

  /** Queues an admitted packet on `m.outPort` and wakes the port. */
  enqueue(m: PacketMeta, now: Nanoseconds): void {
    const out = this.ports[m.outPort]!;
    m.enqueuedAt = now;
    out.sched.queues[m.queue]!.push(m);
    const hooks = this.hooks.enqueued;
    for (let i = 0; i < hooks.length; i++) hooks[i]!.enqueued!(m, now);
    out.tx.kick(now);
  }

  /** Queues a frame the switch itself sends without IP (ARP) on the control queue of `out`. */
  sendControl(out: SwitchPort, frame: Uint8Array, now: Nanoseconds): void {
    if (!out.up) return;
    const m = this.control;
    m.reset(frame, -1);
    this.classifier.setPriority(m, this.classifier.controlPriority);
    m.queue = this.classifier.controlQueue;
    m.outPort = out.port;
    const charged = this.mmu.admit(-1, m.pg, out.port, m.queue, m.length);
    if (typeof charged === "string") {
      this.drops.drop(charged, false, -1, out.port, m.queue, now);
      return;
    }
    m.enqueuedAt = now;
    out.sched.queues[m.queue]!.push(m);
    out.tx.kick(now);
  }

  /** The port's wire is free: the next frame is a pending MAC Control frame, else what the scheduler picks. */
  pull(ps: SwitchPort, now: Nanoseconds): Uint8Array | null {
    const control = ps.control.shift();
    if (control !== undefined) {
      ps.tx.pulledMore = ps.control.length > 0 || ps.sched.backlog > 0;
      return control;
    }
    const q = ps.sched.next(ps.pausedQueues);
    if (q < 0) return null;
    const m = this.departing[ps.port]!;
    ps.sched.queues[q]!.shift(m);
    m.queue = q;
    m.outPort = ps.port;
    m.verdict = Verdict.Forward;
    this.leave(m, now);
    const i = ps.port * PRIORITIES + q;
    this.txPackets[i]!++;
    this.txBytes[i]! += m.length;
    rewrite(m, ps.cfg.mac);
    // The ICRC the sender vouched for still holds after the routing rewrite alone (rewrite.ts); any other
    // change sends the frame on unverified, to be checked by its receiver (PacketMeta.verified).
    ps.tx.pulledVerified = m.verified && !m.mark && m.remarkDscp < 0 && m.remarkDot1p < 0;
    // Nothing else queued here: no timer need pull at this frame's end (whatever comes is kicked in).
    ps.tx.pulledMore = ps.control.length > 0 || ps.sched.backlog > 0;
    return m.frame;
  }

  /** Link down: every queued packet is dropped, its buffer released. */
  flush(ps: SwitchPort, now: Nanoseconds): void {
    for (let q = 0; q < PRIORITIES; q++) this.flushQueue(ps, q, DropReason.LinkDown, now);
    ps.sched.resetDeficits();
  }

  /** Drops every packet of one queue for `reason`, releasing its buffer; returns how many. */
  flushQueue(ps: SwitchPort, q: number, reason: DropReason, now: Nanoseconds): number {
    const m = this.departing[ps.port]!;
    const ring = ps.sched.queues[q]!;
    let n = 0;
    while (ring.shift(m)) {
      n++;
      m.queue = q;
      m.outPort = ps.port;
      m.verdict = Verdict.Drop;
      m.lossless = this.classifier.isLossless(m.pg);
      this.mmu.release(m.inPort, m.pg, ps.port, q, m.length, m.headroom);
      this.drops.drop(reason, m.lossless, m.inPort, ps.port, q, now);
      const hooks = this.hooks.dequeued;
      for (let i = 0; i < hooks.length; i++) hooks[i]!.dequeued!(m, now);
    }
    return n;
  }

  /** The packet leaves the buffer to be sent. */
  private leave(m: PacketMeta, now: Nanoseconds): void {
    this.mmu.release(m.inPort, m.pg, m.outPort, m.queue, m.length, m.headroom);
    const hooks = this.hooks.dequeued;
    for (let i = 0; i < hooks.length; i++) hooks[i]!.dequeued!(m, now);
  }
}
