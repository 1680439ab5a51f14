// The RDMA NIC core: one RoCEv2 port, RC queue pairs (WRITE, SEND, READ), congestion control (DCQCN's NP
// and RP), per-QP pacing, PFC reaction and optional PFC generation from a receive buffer. A pure Device (see
// device/contract.ts): the same object runs in the simulator and inside a live NIC process.
//
// This file is the device shell: it builds the parts, dispatches ports, timers and commands, and owns the
// QP table's life cycle. The parts, by room:
//   features/     the configuration sections (one module each, listed in features/registry.ts)
//   transport/    RC queue pairs: requester, responder, PSN order, posts, frames
//   cc/           congestion control: the strategy seam (cc.ts), DCQCN, and the NIC's glue (cc-driver.ts)
//   l2/           the port: what it sends next (tx-arbiter.ts), PFC received and sent, the host stack's port
//   receive-path.ts  parse and dispatch what the wire brings
//   nic-stats.ts     stats(); the types are in stats-types.ts, the commands in commands.ts

import type { Device, DeviceEnv, Nanoseconds } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import type { CounterSet } from "../device/counters.js";
import { TIMER_STRIDE, TimerRegistry } from "../device/timers.js";
import { TxPort } from "../device/tx-port.js";
import { wireBytes } from "../wire/ethernet.js";
import { PRIORITIES } from "../wire/pfc.js";
import { createQpCc, npSettings } from "./cc/cc.js";
import { CcDriver } from "./cc/cc-driver.js";
import { CmAgent } from "./cm-agent.js";
import {
  type Configure,
  type CreateQp,
  fail,
  type NicCommand,
  type NicReply,
  nextConfig,
  qpInit,
} from "./commands.js";
import type { NicConfig } from "./config.js";
import { HostPort } from "./l2/host-port.js";
import { PauseStall } from "./l2/pause-stall.js";
import { PauseState } from "./l2/pause-state.js";
import { PfcStorm } from "./l2/pfc-storm.js";
import { RxBuffer } from "./l2/rx-buffer.js";
import { TxArbiter } from "./l2/tx-arbiter.js";
import { HOST_PORT, PORT } from "./nic-ids.js";
import { NicShared, type NicTimers } from "./nic-shared.js";
import { type NicParts, nicStats } from "./nic-stats.js";
import { ReceivePath } from "./receive-path.js";
import type { CompletionRecord, NicStats } from "./stats-types.js";
import type { Message } from "./transport/message.js";
import { PostQueue } from "./transport/post-queue.js";
import { QueuePair } from "./transport/qp.js";
import { qpSettings } from "./transport/qp-attributes.js";
import { MSG_OP_NAMES } from "./transport/transport.js";
import { WC_STATUS_NAMES, WcStatus } from "./transport/work-completion.js";

/** The RDMA NIC device (one port, port 1; port 2 is the host stack's when NicConfig.hostPort is on). */
export class Nic implements Device<NicCommand, NicReply, NicStats> {
  readonly name: string;
  private readonly s: NicShared;
  private readonly port: TxPort;
  private readonly pause: PauseState;
  private readonly host: HostPort;
  private readonly arbiter: TxArbiter;
  private readonly cc: CcDriver;
  private readonly rxBuffer: RxBuffer;
  private readonly rx: ReceivePath;
  private readonly posts: PostQueue;
  private readonly cm: CmAgent;
  private readonly storm: PfcStorm;
  private readonly stall: PauseStall;
  private readonly parts: NicParts;
  private up = true;

  constructor(config: NicConfig, env: DeviceEnv) {
    this.name = config.name;
    // Timer kinds first (their handlers reach the parts built below only when a timer fires).
    const timers = new TimerRegistry();
    const s = new NicShared(config, env, timers, this.registerTimers(timers));
    this.s = s;
    const kick = (now: Nanoseconds) => this.port.kick(now);
    this.pause = new PauseState(s, kick);
    this.host = new HostPort(s, kick);
    this.arbiter = new TxArbiter(s, this.pause, this.host, kick, (qp, frame, now) =>
      this.afterDataSent(qp, frame, now),
    );
    this.port = new TxPort(PORT, config.port.rateBps, s.t.tx.id(PORT), env, (now) => {
      const frame = this.arbiter.choose(now);
      this.port.pulledVerified = this.arbiter.chosenVerified;
      this.port.pulledMore = this.arbiter.hasMore();
      return frame;
    });
    s.wakePort = (now) => this.port.wake(now);
    this.cc = new CcDriver(s, this.arbiter);
    this.stall = new PauseStall(s, s.t.pauseStall);
    this.rxBuffer = new RxBuffer(s, this.arbiter, this.stall, (frame, now) => this.rx.process(frame, now));
    this.rx = new ReceivePath(s, this.arbiter, this.cc, this.pause, this.host, this.rxBuffer, (qp, now) =>
      this.afterRequesterEvent(qp, now),
    );
    this.posts = new PostQueue(s, kick);
    this.cm = new CmAgent(s, (frame, now) => {
      this.arbiter.pushCnp(frame);
      kick(now);
    });
    this.rx.cm = this.cm;
    this.posts.onPosted = (qp, now) => this.cm.posted(qp, now);
    this.storm = new PfcStorm(s, this.arbiter, this.stall, s.t.pfcStorm);
    this.stall.onStop = (now) => {
      this.rxBuffer.stopPausing(now);
      this.storm.halt();
    };
    const { port, rx, rxBuffer, host, pause } = this;
    this.parts = { name: this.name, shared: s, port, rx, rxBuffer, host, pause };
  }

  get config(): NicConfig {
    return this.s.cfg;
  }

  start(_now: Nanoseconds): void {}

  receive(port: number, frame: Uint8Array, now: Nanoseconds, verified = false): void {
    if (port === HOST_PORT && this.s.cfg.hostPort) {
      this.host.fromHost(frame, now);
      return;
    }
    if (port !== PORT || !this.up) return;
    this.rx.fromWire(frame, now, verified);
  }

  /** ACKs, NAKs or responses may have opened the window, completed work or asked for a resend. */
  private afterRequesterEvent(qp: QueuePair, now: Nanoseconds): void {
    this.ensureRto(qp, now);
    if (qp.hasData()) this.port.kick(now);
  }

  private afterDataSent(qp: QueuePair, frame: Uint8Array, now: Nanoseconds): void {
    qp.paced(now, wireBytes(frame.length) * 8, this.s.lineRate);
    this.cc.onBytesSent(qp, frame.length, now);
    this.ensureRto(qp, now);
  }

  /** Keeps the QP's retransmission timer armed while it has anything outstanding. */
  private ensureRto(qp: QueuePair, _now: Nanoseconds): void {
    // timeout 0 (an infinite local ACK timeout): no timer at all.
    if (qp.rtoArmed || !qp.requester.outstanding || !Number.isFinite(qp.settings.rtoNs)) return;
    qp.rtoArmed = true;
    this.s.env.arm(this.s.t.rto.id(qp.slot), qp.requester.lastProgressAt + qp.settings.rtoNs);
  }

  fire(timer: number, now: Nanoseconds): void {
    this.s.timers.fire(timer, now);
  }

  /** Registers every timer kind with its handler (ids follow the order: keep it, runs are replayed by it). */
  private registerTimers(r: TimerRegistry): NicTimers {
    const qp = (i: number) => this.s.qps[i];
    const cc = (index: number) => (i: number, now: Nanoseconds) => {
      const q = qp(i);
      if (q !== undefined) this.cc.onTimer(q, index, now);
    };
    return {
      tx: r.register("tx", (_i, now) => this.port.onTimer(now)),
      wake: r.register("wake", (_i, now) => this.arbiter.onWake(now)),
      pauseExpiry: r.register("pfc-pause-expiry", (p, now) => this.pause.onExpire(p, now)),
      rto: r.register("rto", (i, now) => this.onRto(qp(i), now)),
      cc: [r.register("cc-0", cc(0)), r.register("cc-1", cc(1))],
      cnp: r.register("cnp", (i, now) => {
        const q = qp(i);
        if (q !== undefined) this.cc.onCnpTimer(q, now);
      }),
      post: r.register("post", (_i, now) => this.posts.onTimer(now)),
      rxDrain: r.register("rx-drain", (_i, now) => this.rxBuffer.onDrained(now)),
      xoffRefresh: r.register("pfc-xoff-refresh", (p, now) => this.rxBuffer.onRefresh(p, now)),
      pfcStorm: r.register("pfc-storm", (_i, now) => this.storm.onTimer(now)),
      pauseStall: r.register("pfc-stall", (_i, now) => this.stall.onTimer(now)),
    };
  }

  private onRto(qp: QueuePair | undefined, now: Nanoseconds): void {
    if (qp === undefined) return;
    qp.rtoArmed = false;
    const r = qp.requester;
    if (!r.outstanding) return;
    if (now >= r.lastProgressAt + qp.settings.rtoNs) {
      this.s.counters.localAckTimeoutErr[0]!++;
      r.onTimeout(now);
      this.s.mayHaveData(qp, now);
      this.port.kick(now);
    }
    this.ensureRto(qp, now);
  }

  setLinkState(port: number, up: boolean, now: Nanoseconds): void {
    if (port !== PORT || this.up === up) return;
    this.up = up;
    const env = this.s.env;
    if (up) {
      env.emit({ kind: EventKind.LinkUp, port });
      this.port.setUp(true, now);
      return;
    }
    env.emit({ kind: EventKind.LinkDown, port });
    // A frame on the wire is lost; the transport resends data, the rest is not worth keeping.
    this.port.setUp(false, now);
    this.arbiter.linkDown();
    for (let p = 0; p < PRIORITIES; p++) this.pause.unpause(p, now);
  }

  command(cmd: NicCommand, now: Nanoseconds): NicReply {
    switch (cmd.type) {
      case "create-qp":
        return this.createQp(cmd, now);
      case "post":
        return this.posts.post(cmd, now);
      case "configure":
        return this.configure(cmd, now);
      case "set-source-port":
        return this.setSourcePort(cmd.qpn, cmd.udpSrcPort);
      case "stop":
        return { ok: true, dropped: this.stopAll(now) };
      case "clear-counters":
        this.clearCounters();
        return { ok: true };
      case "pfc-storm": {
        const error = this.storm.set(cmd.priority, cmd.intervalNs, now);
        return error === null ? { ok: true } : fail(error);
      }
    }
  }

  private setSourcePort(qpn: number, udpSrcPort: number): NicReply {
    const qp = this.s.qpByNum.get(qpn);
    if (qp === undefined) return fail(`no QP ${qpn}`);
    if (!Number.isInteger(udpSrcPort) || udpSrcPort < 1 || udpSrcPort > 0xffff)
      return fail(`UDP source port ${udpSrcPort} is not in 1..65535`);
    qp.udpSrcPort = udpSrcPort;
    return { ok: true, udpSrcPort };
  }

  private createQp(cmd: CreateQp, now: Nanoseconds): NicReply {
    const s = this.s;
    const init = qpInit(cmd, s.qpByNum, TIMER_STRIDE, s.cfg.sourcePort);
    if (typeof init === "string") return fail(init);
    const own = cmd.transport === undefined ? null : cmd.transport;
    const qp = new QueuePair(
      init,
      s.builder,
      s.counters,
      own === null ? s.settings : qpSettings(s.settings, own),
      npSettings(s.cfg),
      (m, now, status) => this.completed(qp, m, now, status),
      (q, status, now) => this.qpFailed(q, status, now),
    );
    qp.attributes = own;
    if (cmd.replaces !== undefined) {
      s.counters.qpReconnects[0]!++;
      s.env.emit({ kind: EventKind.QpReconnect, qp: cmd.qpn, detail: `replaces ${cmd.replaces}` });
    }
    qp.setCc(createQpCc(s.cfg, s.lineRate), s.lineRate);
    if (cmd.cm !== undefined) this.cm.register(qp, cmd.cm);
    s.qps.push(qp);
    s.qpByNum.set(cmd.qpn, qp);
    s.mayHaveData(qp, now);
    return { ok: true, udpSrcPort: init.udpSrcPort };
  }

  private configure(cmd: Configure, now: Nanoseconds): NicReply {
    const s = this.s;
    const next = nextConfig(s.cfg, cmd);
    if (typeof next === "string") return fail(next);
    s.cfg = next;
    s.builder.configure(next);
    s.settings.ackReqEvery = next.transport.ackReqEvery;
    s.settings.rtoNs = next.transport.rto;
    s.settings.maxInflightPackets = next.transport.maxInflight;
    s.settings.nakRetryGuard = next.transport.nakRetryGuard;
    s.settings.retryCnt = next.transport.retryCnt;
    s.settings.rnrRetry = next.transport.rnrRetry;
    s.settings.minRnrTimer = next.transport.minRnrTimer;
    s.settings.recvDepth = next.transport.recvDepth;
    s.settings.recvRepostNs = next.transport.recvRepost;
    s.settings.reorderWindow = next.reorder.window;
    for (const qp of s.qps) {
      if (qp.attributes !== null) qpSettings(s.settings, qp.attributes, qp.settings);
      qp.responder.setReorderWindow(next.reorder.window);
      // A larger window may let a QP send again.
      s.mayHaveData(qp, now);
    }
    s.ackPrio = next.qos.dscpToPriority[next.qos.ackDscp]!;
    if ("cc" in cmd.settings || "dcqcn" in cmd.settings) for (const qp of s.qps) this.cc.reconfigure(qp, now);
    if (!next.rxBuffer.enabled) this.rxBuffer.disable(now);
    this.stall.configure(now);
    this.port.kick(now);
    return { ok: true };
  }

  /**
   * Scheduled posts are cancelled and every QP with work requests outstanding goes to the error state, its
   * requests flushed as `stopped` (an application that stops destroys its QPs); returns how many.
   */
  private stopAll(now: Nanoseconds): number {
    this.posts.stop(now);
    let stopped = 0;
    for (const qp of this.s.qps) {
      if (qp.requester.pendingMessages === 0) continue;
      stopped += qp.requester.pendingMessages;
      qp.qpError(WcStatus.Stopped, now);
    }
    return stopped;
  }

  private qpFailed(qp: QueuePair, status: WcStatus, now: Nanoseconds): void {
    this.s.counters.qpErrors[0]!++;
    this.s.env.emit({ kind: EventKind.QpError, qp: qp.qpn, detail: WC_STATUS_NAMES[status] });
    this.s.env.disarm(this.s.t.rto.id(qp.slot));
    qp.rtoArmed = false;
    this.port.kick(now);
  }

  private completed(qp: QueuePair, m: Message, now: Nanoseconds, status: WcStatus): void {
    const record: CompletionRecord = {
      flowId: m.flowId,
      qpn: qp.qpn,
      op: MSG_OP_NAMES[m.op],
      bytes: m.bytes,
      postedAt: m.postedAt,
      firstSentAt: m.firstSentAt,
      completedAt: now,
      fctNs: now - m.postedAt,
      retransmits: m.retransmits,
      status: WC_STATUS_NAMES[status],
    };
    const c = this.s.counters;
    this.s.flows.push(record);
    if (status === WcStatus.Success) {
      c.flowsCompleted[0]!++;
      this.s.env.emit({ kind: EventKind.FlowDone, qp: qp.qpn, detail: m.flowId });
      if (qp.requester.pendingMessages === 0) this.cm.idle(qp, now);
      return;
    }
    if (status === WcStatus.Flushed || status === WcStatus.Stopped) c.reqCqeFlushError[0]!++;
    else c.reqCqeError[0]!++;
    this.s.env.emit({ kind: EventKind.FlowFailed, qp: qp.qpn, detail: `${m.flowId} ${record.status}` });
  }

  private clearCounters(): void {
    const s = this.s;
    s.counterSet.clear();
    s.latency.clear();
    this.rx.rxPackets = 0;
    this.rx.rxBytes = 0;
    this.port.txFrames = 0;
    this.port.txBytes = 0;
    this.port.busyNs = 0;
    this.rxBuffer.clearCounters();
  }

  /** Completed work requests so far (the same records as `stats().detail.flows`). */
  get completions(): readonly CompletionRecord[] {
    return this.s.flows;
  }

  /** Every QP in creation order (QPs are never removed), for the lab's time series (read-only use). */
  get queuePairs(): readonly QueuePair[] {
    return this.s.qps;
  }

  /** The port's line rate, bits/s (what a QP without DCQCN sends at). */
  get lineRate(): number {
    return this.s.lineRate;
  }

  /** The NIC's counter registry (exporters read its declarations; read-only use). */
  get counters(): CounterSet {
    return this.s.counterSet;
  }

  /** The QP `qpn`, for tests and the lab (read-only use). */
  qp(qpn: number): QueuePair | undefined {
    return this.s.qpByNum.get(qpn);
  }

  /** High-water marks (the receive buffer's peak, the reorder depth, the latest post) restart from now. */
  clearPeaks(): void {
    this.rxBuffer.peakBytes = this.rxBuffer.bytes;
    this.s.counters.oooMaxDepth[0] = 0;
    this.s.counters.postLateMaxNs[0] = 0;
  }

  stats(now: Nanoseconds): NicStats {
    return nicStats(this.parts, this.up, now);
  }
}
