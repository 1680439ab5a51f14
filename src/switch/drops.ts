// Why a switch drops a packet, and the accounting every drop goes through: the reason (drop_<reason>, with
// a rate-limited `drop` event), lossless or lossy, and the egress queue it was meant for.

import type { DeviceEnv, Nanoseconds } from "../device/contract.js";
import type { CounterSet } from "../device/counters.js";
import { DropCounter } from "../device/drops.js";
import type { EventLimiter } from "../device/event-limiter.js";
import { PRIORITIES } from "../wire/pfc.js";
import { SwitchCounter } from "./counter-defs.js";

export const DropReason = {
  /** A PFC-protected PG received more than its headroom after XOFF: the lossless promise broke. */
  HeadroomExhausted: "headroom_exhausted",
  /**
   * A headroom drop of a frame that arrived after a punctual upstream would have stopped (pause-overrun.ts):
   * the live lab's lateness with free clocks, counted in `dropped_lossless_late`, not `dropped_lossless`.
   */
  LateOverrun: "late_overrun",
  /** A lossy (or PFC-disabled) queue reached its dynamic egress threshold. */
  EgressLimit: "egress_limit",
  /** The shared pool is completely used. */
  BufferFull: "buffer_full",
  /** WRED dropped a Not-ECT packet. */
  Wred: "wred",
  NoRoute: "no_route",
  TtlExpired: "ttl_expired",
  LinkDown: "link_down",
  ArpUnresolved: "arp_unresolved",
  Malformed: "malformed",
  /** A yellow (elephant) packet over its lower egress threshold (features/elephant.ts). */
  Yellow: "yellow",
  /** The adaptive buffer's WRED on yellow packets (features/adaptive-buffer.ts). */
  AdaptiveWred: "adaptive_wred",
  /** RFC 6040: an outer CE on a Not-ECT inner packet at VXLAN decapsulation (features/vxlan-overlay.ts). */
  OverlayNotEct: "overlay_not_ect",
  /** The PFC watchdog's drop action on a stormed queue (features/pfc-watchdog.ts). */
  PfcWatchdog: "pfc_watchdog",
} as const;
export type DropReason = (typeof DropReason)[keyof typeof DropReason];

export const DROP_REASONS: readonly DropReason[] = Object.values(DropReason);

export class SwitchDrops {
  private readonly byReason: DropCounter<DropReason>;
  private readonly lossless: Float64Array;
  private readonly losslessLate: Float64Array;
  private readonly lossy: Float64Array;
  private readonly queueDropped: Float64Array;

  constructor(counters: CounterSet, limiter: EventLimiter, env: DeviceEnv, numPorts: number) {
    this.lossless = counters.add(SwitchCounter.droppedLossless);
    this.losslessLate = counters.add(SwitchCounter.droppedLosslessLate);
    this.lossy = counters.add(SwitchCounter.droppedLossy);
    this.byReason = new DropCounter(DROP_REASONS, counters, limiter, env, numPorts);
    this.queueDropped = counters.add(SwitchCounter.queueDropped);
  }

  /**
   * Counts a drop. `outPort`/`queue` are the egress it was meant for (-1 if not decided yet); the event
   * names the egress port, else the ingress port.
   */
  drop(
    reason: DropReason,
    lossless: boolean,
    inPort: number,
    outPort: number,
    queue: number,
    now: Nanoseconds,
  ): void {
    if (reason === DropReason.LateOverrun) this.losslessLate[0]!++;
    else if (lossless) this.lossless[0]!++;
    else this.lossy[0]!++;
    if (outPort >= 0 && queue >= 0) this.queueDropped[outPort * PRIORITIES + queue]!++;
    this.byReason.count(reason, outPort >= 0 ? outPort : Math.max(inPort, 0), queue, now);
  }
}
