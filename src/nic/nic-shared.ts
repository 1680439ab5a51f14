// The state every part of the NIC reads: the current configuration, the QP table, the NIC-wide counters,
// the frame builder and the drop accounting. One object per NIC, handed to each part at construction.

import type { DeviceEnv, Nanoseconds } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import { EventLimiter } from "../device/event-limiter.js";
import type { NicConfig } from "./config.js";
import { NicCounters } from "./counters.js";
import { FrameBuilder } from "./frames.js";
import { Histogram } from "./histogram.js";
import { DROP_REASONS, DropReason, EVENT_INTERVAL_NS, KEY_DROP, PORT } from "./nic-ids.js";
import type { QueuePair } from "./qp.js";
import type { CompletionRecord } from "./stats-types.js";
import type { TransportSettings } from "./transport.js";

/** Starts the port's transmitter if it is idle. */
export type Kick = (now: Nanoseconds) => void;

export class NicShared {
  cfg: NicConfig;
  readonly settings: TransportSettings;
  readonly counters = new NicCounters();
  readonly builder: FrameBuilder;
  readonly limiter = new EventLimiter(EVENT_INTERVAL_NS);
  /** Drops per reason, indexed as DROP_REASONS. */
  readonly drops = new Float64Array(DROP_REASONS.length);
  readonly qps: QueuePair[] = [];
  readonly qpByNum = new Map<number, QueuePair>();
  readonly flows: CompletionRecord[] = [];
  /** One-way delay of every received data packet. */
  readonly latency = new Histogram();
  readonly dataPrio: number;
  ackPrio: number;
  readonly cnpPrio: number;

  constructor(
    config: NicConfig,
    readonly env: DeviceEnv,
  ) {
    this.cfg = config;
    this.settings = {
      mtu: config.mtu,
      ackReqEvery: config.ackReqEvery,
      maxInflightPackets: config.maxInflightPackets,
      nakRetryGuard: config.nakRetryGuard,
    };
    this.builder = new FrameBuilder(config);
    this.dataPrio = config.dscpToPriority[config.dataDscp]!;
    this.ackPrio = config.dscpToPriority[config.ackDscp]!;
    this.cnpPrio = config.dscpToPriority[config.cnpDscp]!;
  }

  get lineRate(): number {
    return this.cfg.port.rateBps;
  }

  drop(reason: DropReason, now: Nanoseconds): void {
    const i = DROP_REASONS.indexOf(reason);
    this.drops[i]!++;
    if (reason === DropReason.Malformed) this.counters.rxMalformed++;
    const count = this.limiter.admit(KEY_DROP + i, now);
    if (count > 0) this.env.emit({ kind: EventKind.Drop, port: PORT, count, detail: reason });
  }
}
