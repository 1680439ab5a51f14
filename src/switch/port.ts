// One switch port: its wire (TxPort, at line rate), its egress scheduler and queues, the MAC Control
// frames that jump the queues, and which of its queues a received PFC currently stops.

import type { DeviceEnv, Nanoseconds, TimerId } from "../device/contract.js";
import type { CounterDef, CounterSet } from "../device/counters.js";
import { Fifo } from "../device/fifo.js";
import type { ControlFrameSink } from "../device/l2/pfc-sender.js";
import { PortCounter } from "../device/l2/port-counters.js";
import { type PullFrame, TxPort } from "../device/tx-port.js";
import type { PortConfig } from "./config.js";
import type { EgressScheduler } from "./scheduler.js";

export class SwitchPort implements ControlFrameSink {
  readonly tx: TxPort;
  readonly sched: EgressScheduler;
  /** Frames that bypass the queues (PFC), sent at the next frame boundary. */
  readonly control = new Fifo<Uint8Array>();
  up = true;
  /** Priorities a received PFC pauses (bit p), and the queues that maps to (bit q). */
  pausedPriorities = 0;
  pausedQueues = 0;

  constructor(
    readonly cfg: PortConfig,
    env: DeviceEnv,
    txTimer: TimerId,
    sched: EgressScheduler,
    pull: PullFrame,
  ) {
    this.sched = sched;
    this.tx = new TxPort(cfg.port, cfg.rateBps, txTimer, env, pull);
  }

  get port(): number {
    return this.cfg.port;
  }

  sendControlFrame(frame: Uint8Array, now: Nanoseconds): boolean {
    if (!this.up) return false;
    this.control.push(frame);
    this.tx.kick(now);
    return true;
  }

  /** Recomputes the paused queues from the paused priorities through `priorityToQueue`. */
  updatePausedQueues(priorityToQueue: readonly number[]): void {
    let mask = 0;
    for (let p = 0; p < priorityToQueue.length; p++) {
      if ((this.pausedPriorities >> p) & 1) mask |= 1 << priorityToQueue[p]!;
    }
    this.pausedQueues = mask;
  }
}

/** The wire counters of every port (kept by its TxPort), on the switch's counter set. */
export function declareTxCounters(
  counters: CounterSet,
  ports: readonly (SwitchPort | undefined)[],
  portList: readonly SwitchPort[],
): void {
  const tx = (def: CounterDef, field: "txFrames" | "txBytes" | "busyNs" | "stalledNs") =>
    counters.computed(
      def,
      (i) => ports[i]?.tx[field] ?? 0,
      () => {
        for (const ps of portList) ps.tx[field] = 0;
      },
    );
  tx(PortCounter.txPackets, "txFrames");
  tx(PortCounter.txBytes, "txBytes");
  tx(PortCounter.txBusy, "busyNs");
  tx(PortCounter.txStalled, "stalledNs");
}
