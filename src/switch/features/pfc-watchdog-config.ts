// The PFC watchdog's section of a switch's configuration, its counters and its command: shared by the
// watchdog (pfc-watchdog.ts) and its two semantics — SONiC's pfcwd (in pfc-watchdog.ts) and H3C's PFC
// deadlock detection (pfc-watchdog-h3c.ts). docs/pfc-watchdog.md says which vendor does what.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { type CounterDef, CounterKind, Label } from "../../device/counters.js";
import { duration } from "../../device/setting-units.js";
import type { FeatureCommand } from "./feature.js";

/** Whose watchdog the switch runs: SONiC's pfcwd, or H3C's (Comware) PFC deadlock detection. */
export const WatchdogSemantics = { Sonic: "sonic", H3c: "h3c" } as const;
export type WatchdogSemantics = (typeof WatchdogSemantics)[keyof typeof WatchdogSemantics];

export const settings = z
  .object({
    enabled: z.boolean().optional(),
    semantics: z.enum([WatchdogSemantics.Sonic, WatchdogSemantics.H3c]).optional(),
    pollInterval: duration.optional(),
    /** Deadlocks (h3c) or storms (sonic) within `triggerWindow` that latch PFC off (0: never latch). */
    triggerLimit: z.number().int().min(0).max(1000).optional(),
    triggerWindow: duration.optional(),
    // SONiC's pfcwd.
    detectionTime: duration.optional(),
    restorationTime: duration.optional(),
    action: z.enum(["drop", "forward"]).optional(),
    // H3C: `priority-flow-control deadlock cos <cos> interval`, `… deadlock auto-recover cos <cos> delay`,
    // `… deadlock auto-recover action`, `… deadlock recover-mode { auto | manual }`.
    interval: duration.optional(),
    autoRecoverDelay: duration.optional(),
    autoRecoverAction: z.enum(["drop", "forward"]).optional(),
    recoverMode: z.enum(["auto", "manual"]).optional(),
  })
  .strict();

export interface PfcWatchdogConfig {
  readonly enabled: boolean;
  readonly semantics: WatchdogSemantics;
  /** How often the watchdog looks, ns (SONiC POLL_INTERVAL; H3C's detection timer precision). */
  readonly pollInterval: Nanoseconds;
  /** The triggerLimit-th storm / deadlock within triggerWindow latches PFC off until `pfc-enable`. */
  readonly triggerLimit: number;
  /** The window of the trigger limit, ns (0: no window, every one since the last `pfc-enable`). */
  readonly triggerWindow: Nanoseconds;
  /** sonic: a queue paused this long without sending is stormed, ns (SONiC detection_time). */
  readonly detectionTime: Nanoseconds;
  /** sonic: a stormed queue that received no pause frame this long is restored, ns (restoration_time). */
  readonly restorationTime: Nanoseconds;
  /** sonic: what happens to a stormed queue. */
  readonly action: "drop" | "forward";
  /** h3c: a priority continuously in XOFF this long is deadlocked, ns (deadlock detection interval). */
  readonly interval: Nanoseconds;
  /** h3c: how long the interface's PFC and detection stay off after a deadlock, ns (auto-recover delay). */
  readonly autoRecoverDelay: Nanoseconds;
  /** h3c: what happens to the deadlocked priority's packets while PFC is off. */
  readonly autoRecoverAction: "drop" | "forward";
  /** h3c: `auto` brings PFC back after autoRecoverDelay; `manual` waits for `pfc-enable`. */
  readonly recoverMode: "auto" | "manual";
}

export const pfcWatchdogDefaults = (): PfcWatchdogConfig => ({
  enabled: true,
  // SONiC's, the default: it is what every committed experiment ran with (docs/pfc-watchdog.md).
  semantics: WatchdogSemantics.Sonic,
  // SONiC's defaults (sonic-utilities `pfcwd start_default`, sonic-swss pfcwdorch): detection 200 ms,
  // restoration 200 ms, polling 200 ms, action drop; on by default, as `pfcwd start_default` starts it on
  // every lossless queue. Its first poll comes 200 ms in, so runs shorter than that are not touched by it.
  pollInterval: 200e6,
  triggerLimit: 0,
  triggerWindow: 1e9,
  detectionTime: 200e6,
  restorationTime: 200e6,
  action: "drop",
  // H3C's numeric defaults are not in the public pages consulted: the same scale as SONiC's, so that
  // switching semantics changes the mechanism and not the time scale. Forward: H3C's configuration guide
  // describes recovery as PFC off "so that packets can be forwarded properly".
  interval: 200e6,
  autoRecoverDelay: 200e6,
  autoRecoverAction: "forward",
  recoverMode: "auto",
});

/** Restores (or latches) PFC on a port and priority the watchdog switched off; under h3c, the port. */
export interface PfcEnableCommand extends FeatureCommand {
  readonly type: "pfc-enable";
  readonly port: number;
  readonly priority: number;
}

export const WatchdogState = { Monitoring: 0, Stormed: 1, Latched: 2 } as const;

const PORT_PRIORITY = [Label.Port, Label.Priority] as const;
const def = (name: string, kind: CounterKind, unit: string, help: string): CounterDef => ({
  name: `pfcwd_${name}`,
  key: `pfcwd_prio{priority}_${name}`,
  kind,
  unit,
  help,
  labels: PORT_PRIORITY,
});

/** The watchdog's counters per (port, priority), after `show pfcwd stats` (STORM DETECTED/RESTORED, TX/RX
 * DROP, TX OK) and `show pfcwd status`; under h3c a deadlock counts as a storm of the priority that was
 * found in XOFF. */
export const PfcWatchdogCounter = {
  detected: def(
    "storm_detected",
    CounterKind.Counter,
    "events",
    "PFC storms / deadlocks detected on this queue",
  ),
  restored: def(
    "storm_restored",
    CounterKind.Counter,
    "events",
    "PFC storms / deadlocks this queue recovered from",
  ),
  latched: def(
    "latched",
    CounterKind.Counter,
    "events",
    "times the trigger limit (or h3c's manual recover mode) forced PFC off until `pfc-enable`",
  ),
  txDrop: def("tx_drop", CounterKind.Counter, "packets", "packets for the stormed queue dropped"),
  rxDrop: def("rx_drop", CounterKind.Counter, "packets", "packets received on the stormed priority dropped"),
  txOk: def("tx_ok", CounterKind.Counter, "packets", "packets sent from the queue while stormed (forward)"),
  state: def("state", CounterKind.Gauge, "state", "0 monitoring, 1 stormed (recovering), 2 latched"),
} as const;
