// What stages, the control plane and feature modules see of the switch they run in.

import type { DeviceEnv, Nanoseconds } from "../device/contract.js";
import type { CounterSet } from "../device/counters.js";
import type { EventLimiter } from "../device/event-limiter.js";
import type { TimerRegistry } from "../device/timers.js";
import type { LagSelector } from "../lb/lag-group.js";
import type { LbOverride } from "../lb/path-table.js";
import type { LbStrategy } from "../lb/strategy.js";
import type { SwitchConfig } from "./config.js";
import type { DropReason, SwitchDrops } from "./drops.js";
import type { Mmu } from "./mmu.js";
import type { PacketMeta } from "./packet-meta.js";
import type { PauseOverrun } from "./pause-overrun.js";
import type { PfcOverride } from "./pfc-override.js";
import type { SwitchPort } from "./port.js";

export interface SwitchContext {
  readonly name: string;
  readonly env: DeviceEnv;
  /** Ports by number (sparse), and the same ports in configuration order. */
  readonly ports: readonly (SwitchPort | undefined)[];
  readonly portList: readonly SwitchPort[];
  /** Highest port number + 1: the size of per-port tables. */
  readonly numPorts: number;
  readonly mmu: Mmu;
  readonly counters: CounterSet;
  readonly timers: TimerRegistry;
  readonly limiter: EventLimiter;
  readonly drops: SwitchDrops;
  /** The configuration in force. */
  readonly config: SwitchConfig;
  /** Installs the load-balancing strategy the forward stage uses. */
  setStrategy(strategy: LbStrategy): void;
  /** Installs (or, with null, removes) what the forward stage consults before the strategy. */
  setOverride(override: LbOverride | null): void;
  /** Installs (or, with null, removes) the link aggregation groups the forward stage resolves next hops to. */
  setLags(lags: LagSelector | null): void;
  /** Which next hops are usable changed without a port changing state (a LAG member left or joined). */
  nextHopsChanged(): void;
  /**
   * Admits (MMU only) and queues a frame the bridge forwards unchanged on `m.outPort` (features/l2-bridge.ts);
   * false when the MMU dropped it (counted).
   */
  enqueueBridged(m: PacketMeta, now: Nanoseconds): boolean;
  /** A received PFC paused or resumed `priority` on `port`: re-mask its queues and tell the features. */
  pauseChanged(port: number, priority: number, paused: boolean, now: Nanoseconds): void;
  /** Sends a frame the switch built, as it is (its own MACs), on `port`'s control queue (IPCC's CNPs). */
  sendControl(port: SwitchPort, frame: Uint8Array, now: Nanoseconds): void;
  /** Priorities on which a feature has switched PFC off per port (the PFC watchdog). */
  readonly pfcOverride: PfcOverride;
  /** Whether a headroom drop is the machine's lateness rather than the network's (set by the PFC feature). */
  readonly pauseOverrun: PauseOverrun;
  /** Drops every packet of one egress queue (buffer released, dequeued hooks run); returns how many. */
  flushQueue(port: number, queue: number, reason: DropReason, now: Nanoseconds): number;
}
