// The PFC counters both devices keep per (port, priority), declared once under mlx5's names (ethtool -S of
// a ConnectX port: rx_prio<p>_pause, rx_prio<p>_pause_duration, tx_prio<p>_pause, ...; see NVIDIA's
// "Understanding mlx5 ethtool Counters"). Durations are in emulated nanoseconds (mlx5 reports µs). Reports,
// the TUI and exporters read these definitions instead of spelling or matching names.

import { type CounterDef, CounterKind, Label, statsKey } from "../counters.js";

const PORT_PRIORITY = [Label.Port, Label.Priority] as const;

function perPriority(name: string, key: string, unit: string, help: string): CounterDef {
  return { name, key, kind: CounterKind.Counter, unit, help, labels: PORT_PRIORITY };
}

export const PfcCounter = {
  rxPause: perPriority("rx_prio_pause", "rx_prio{priority}_pause", "frames", "PFC pause frames received"),
  rxResume: perPriority("rx_prio_resume", "rx_prio{priority}_resume", "frames", "PFC resume frames received"),
  rxPauseDuration: perPriority(
    "rx_prio_pause_duration_ns",
    "rx_prio{priority}_pause_duration",
    "ns",
    "time the peer's PFC kept this priority paused",
  ),
  rxPauseTransition: perPriority(
    "rx_prio_pause_transition",
    "rx_prio{priority}_pause_transition",
    "events",
    "pauses of this priority that ended",
  ),
  txPause: perPriority(
    "tx_prio_pause",
    "tx_prio{priority}_pause",
    "frames",
    "PFC XOFF frames sent (refreshes included)",
  ),
  txResume: perPriority("tx_prio_resume", "tx_prio{priority}_resume", "frames", "PFC XON frames sent"),
  txPauseDuration: perPriority(
    "tx_prio_pause_duration_ns",
    "tx_prio{priority}_pause_duration",
    "ns",
    "time this port held its peer paused (XOFF asserted)",
  ),
} as const;

const keys = new Map<CounterDef, string[]>();

/** The stats key of a per-priority PFC counter for priority `p` (on any port). */
export function pfcKey(def: CounterDef, p: number): string {
  let list = keys.get(def);
  if (list === undefined) {
    list = Array.from({ length: 8 }, (_, q) => statsKey(def, [0, q]));
    keys.set(def, list);
  }
  return list[p]!;
}
