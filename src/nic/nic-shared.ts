// The state every part of the NIC reads: the current configuration, the QP table, the NIC-wide counters,
// the frame builder and the drop accounting. One object per NIC, handed to each part at construction.

import type { DeviceEnv, Nanoseconds } from "../device/contract.js";
import { CounterSet, Label } from "../device/counters.js";
import { DropCounter } from "../device/drops.js";
import { EventLimiter } from "../device/event-limiter.js";
import { TIMER_STRIDE, type TimerKind, type TimerRegistry } from "../device/timers.js";
import { PRIORITIES } from "../wire/pfc.js";
import type { NicConfig } from "./config.js";
import { declareNicCounters, type NicCounters } from "./counters.js";
import { Histogram } from "./histogram.js";
import { DROP_REASONS, type DropReason, EVENT_INTERVAL_NS, HOST_PORT, PORT } from "./nic-ids.js";
import type { CompletionRecord } from "./stats-types.js";
import { FrameBuilder } from "./transport/frames.js";
import type { QueuePair } from "./transport/qp.js";
import { QpSet } from "./transport/qp-set.js";
import type { TransportSettings } from "./transport/transport.js";

/** Starts the port's transmitter if it is idle. */
export type Kick = (now: Nanoseconds) => void;

/** The NIC's timer kinds (registered by the shell, nic.ts, in this order). */
export interface NicTimers {
  readonly tx: TimerKind;
  readonly wake: TimerKind;
  readonly pauseExpiry: TimerKind;
  readonly rto: TimerKind;
  /** The congestion control's timers of each QP (cc/cc.ts, CC_TIMERS of them). */
  readonly cc: readonly TimerKind[];
  readonly cnp: TimerKind;
  readonly post: TimerKind;
  readonly rxDrain: TimerKind;
  readonly xoffRefresh: TimerKind;
  readonly pfcStorm: TimerKind;
  readonly pauseStall: TimerKind;
}

export class NicShared {
  cfg: NicConfig;
  readonly settings: TransportSettings;
  readonly counters: NicCounters;
  readonly builder: FrameBuilder;
  readonly limiter = new EventLimiter(EVENT_INTERVAL_NS);
  /** The counters declared on the registry (per port and priority: PFC; per reason: drops). */
  readonly counterSet = new CounterSet({
    [Label.Port]: HOST_PORT + 1,
    [Label.Priority]: PRIORITIES,
    [Label.Reason]: DROP_REASONS.length,
  });
  readonly drops: DropCounter<DropReason>;
  /** Event-limiter keys per QP slot: CNPs sent, rate cuts, payload mismatches. */
  readonly keyCnp: number;
  readonly keyCut: number;
  readonly keyMismatch: number;
  readonly qps: QueuePair[] = [];
  readonly qpByNum = new Map<number, QueuePair>();
  /**
   * QPs that may have data to send: a superset of those whose `hasData()` is true. Whatever can give a QP
   * work (a post, a packet for it, its retransmission timer, a new configuration) adds it with `mayHaveData`;
   * the transmit arbiter drops it again when it finds it has none.
   */
  readonly txCandidates = new QpSet();
  readonly flows: CompletionRecord[] = [];
  /** One-way delay of every received data packet. */
  readonly latency = new Histogram();
  readonly dataPrio: number;
  ackPrio: number;
  readonly cnpPrio: number;

  constructor(
    config: NicConfig,
    readonly env: DeviceEnv,
    /** The NIC's timer kinds, by handler (the shell registers them: nic.ts). */
    readonly timers: TimerRegistry,
    readonly t: NicTimers,
  ) {
    this.cfg = config;
    this.settings = {
      mtu: config.mtu,
      ackReqEvery: config.transport.ackReqEvery,
      rtoNs: config.transport.rto,
      maxInflightPackets: config.transport.maxInflight,
      nakRetryGuard: config.transport.nakRetryGuard,
      retryCnt: config.transport.retryCnt,
      rnrRetry: config.transport.rnrRetry,
      minRnrTimer: config.transport.minRnrTimer,
      recvDepth: config.transport.recvDepth,
      recvRepostNs: config.transport.recvRepost,
      reorderWindow: config.reorder.window,
    };
    this.builder = new FrameBuilder(config);
    const q = config.qos;
    this.dataPrio = q.dscpToPriority[q.dataDscp]!;
    this.ackPrio = q.dscpToPriority[q.ackDscp]!;
    this.cnpPrio = q.cnpPriority;
    this.counters = declareNicCounters(this.counterSet);
    this.drops = new DropCounter(DROP_REASONS, this.counterSet, this.limiter, env, HOST_PORT + 1);
    this.keyCnp = this.limiter.keys(TIMER_STRIDE);
    this.keyCut = this.limiter.keys(TIMER_STRIDE);
    this.keyMismatch = this.limiter.keys(TIMER_STRIDE);
  }

  get lineRate(): number {
    return this.cfg.port.rateBps;
  }

  /**
   * Set by the NIC to its port's `wake`: work added without a kick must still be pulled at the end of the
   * frame on the wire (TxPort.pulledMore).
   */
  wakePort: (now: Nanoseconds) => void = () => {};

  /** `qp` may have work to send now (see `txCandidates`); the port looks when its wire frees. */
  mayHaveData(qp: QueuePair, now: Nanoseconds): void {
    this.txCandidates.add(qp.slot);
    this.wakePort(now);
  }

  drop(reason: DropReason, now: Nanoseconds): void {
    this.drops.count(reason, PORT, -1, now);
  }
}
