// What stages, the control plane and feature modules see of the switch they run in.

import type { DeviceEnv, Nanoseconds } from "../device/contract.js";
import type { CounterSet } from "../device/counters.js";
import type { EventLimiter } from "../device/event-limiter.js";
import type { TimerRegistry } from "../device/timers.js";
import type { LbStrategy } from "../lb/strategy.js";
import type { SwitchConfig } from "./config.js";
import type { SwitchDrops } from "./drops.js";
import type { Mmu } from "./mmu.js";
import type { PacketMeta } from "./packet-meta.js";
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
  /**
   * Admits (MMU only) and queues a frame the bridge forwards unchanged on `m.outPort` (features/l2-bridge.ts);
   * false when the MMU dropped it (counted).
   */
  enqueueBridged(m: PacketMeta, now: Nanoseconds): boolean;
  /** A received PFC paused or resumed `priority` on `port`: re-mask its queues and tell the features. */
  pauseChanged(port: number, priority: number, paused: boolean, now: Nanoseconds): void;
}
