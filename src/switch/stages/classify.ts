// Stage 2, classify: the trusted DSCP gives the 802.1p priority, which is also the ingress priority group;
// the priority gives the egress queue and whether the packet is lossless. Packets the switch originates
// and frames without IP take the control priority.

import type { QosConfig } from "../features/qos.js";
import { losslessMask } from "../features/qos.js";
import type { PacketMeta } from "../packet-meta.js";

export class Classifier {
  private dscpToPriority: readonly number[] = [];
  private priorityToQueue: readonly number[] = [];
  private lossless = 0;
  /** The control priority and its queue. */
  controlPriority = 7;
  controlQueue = 7;

  configure(qos: QosConfig): void {
    this.dscpToPriority = qos.dscpToPriority;
    this.priorityToQueue = qos.priorityToQueue;
    this.lossless = losslessMask(qos);
    this.controlPriority = qos.controlPriority;
    this.controlQueue = qos.priorityToQueue[qos.controlPriority]!;
  }

  /** Classifies a parsed IPv4 packet by its DSCP. */
  classify(m: PacketMeta): void {
    this.setPriority(m, this.dscpToPriority[m.dscp]!);
  }

  setPriority(m: PacketMeta, pg: number): void {
    m.pg = pg;
    m.queue = this.priorityToQueue[pg]!;
    m.lossless = ((this.lossless >> pg) & 1) === 1;
  }

  isLossless(pg: number): boolean {
    return ((this.lossless >> pg) & 1) === 1;
  }
}
