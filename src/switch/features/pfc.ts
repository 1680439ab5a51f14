// Priority flow control (IEEE 802.1Qbb). Both directions of one port's PFC:
//   * being paused: a received PFC frame stops the queues of its priorities (device/l2/pfc-receiver.ts);
//     802.3x link-level PAUSE is counted and not obeyed (the ports run PFC);
//   * pausing the upstream: when an ingress priority group of a lossless priority crosses the MMU's XOFF
//     threshold (enqueued hook), XOFF goes out on the port it came in on, is refreshed while the PG stays
//     congested, and XON follows when the MMU says it may resume (dequeued hook) (device/l2/pfc-sender.ts).
// Switching PFC off on a priority at run time releases the upstream it was holding. A feature may switch
// PFC off on one port and priority (the watchdog, through ctx.pfcOverride): pauses received there are
// counted and not obeyed, and that port no longer pauses its peer on that priority.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind } from "../../device/counters.js";
import { PfcCounter } from "../../device/l2/pfc-counters.js";
import { PfcReceiver } from "../../device/l2/pfc-receiver.js";
import { PfcSender } from "../../device/l2/pfc-sender.js";
import { duration, overlay, ratio, size } from "../../device/setting-units.js";
import { readMac } from "../../wire/bytes.js";
import { PFC_DST_MAC, PRIORITIES, parseMacControl } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { SwitchCounter } from "../counter-defs.js";
import { DropReason } from "../drops.js";
import { autoHeadroomBytes } from "../mmu.js";
import { FrameKind, type PacketMeta } from "../packet-meta.js";
import type { OverrunJudge } from "../pause-overrun.js";
import type { PfcOffHandler } from "../pfc-override.js";
import type { SwitchPort } from "../port.js";
import { defineFeature, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    enabled: z.boolean().optional(),
    /** "dynamic" (α × free shared buffer) or a static size. */
    xoff: z.union([z.literal("dynamic"), size]).optional(),
    alpha: ratio.optional(),
    resumeOffset: size.optional(),
    pauseQuanta: z.number().int().min(1).max(0xffff).optional(),
    refresh: z.number().gt(0).lt(1).optional(),
    headroomSlack: duration.optional(),
    attributeLateness: z.boolean().optional(),
  })
  .strict();

export interface PfcConfig {
  readonly enabled: boolean;
  /** "dynamic": XOFF at α × (free shared buffer) of shared use (Choudhury-Hahne DT, as in HPCC's MMU); a
   * number: XOFF when the PG's whole use reaches that many bytes (the vendor "xoff-threshold"). */
  readonly xoff: "dynamic" | number;
  /** α of the dynamic threshold. */
  readonly alpha: number;
  /** XON when use falls this far below the XOFF threshold (and headroom is empty), bytes. */
  readonly resumeOffset: number;
  /** Pause time carried by XOFF frames, quanta of 512 bit times (0xffff: the longest). */
  readonly pauseQuanta: number;
  /** XOFF is re-sent after this fraction of the pause time while still congested (0 < f < 1). */
  readonly refresh: number;
  /** Extra reaction time added to the automatic headroom (slow peers, live-runtime jitter), ns. */
  readonly headroomSlack: Nanoseconds;
  /**
   * Count a lossless frame that arrived later than a punctual upstream could have sent it (more than the
   * link's PFC reaction time after XOFF, within the pause) and found the headroom full as a drop of the
   * machine's lateness (`dropped_lossless_late`, reason `late_overrun`), not of the network. The live lab
   * sets it with free clocks, where a late process can do that; elsewhere every drop is the network's.
   */
  readonly attributeLateness: boolean;
}

class Pfc implements SwitchFeature, PfcOffHandler, OverrunJudge {
  readonly name = "pfc";
  private readonly receivers: (PfcReceiver | undefined)[] = [];
  private readonly senders: (PfcSender | undefined)[] = [];
  private readonly linkPauseIgnored: Float64Array;
  /** Per port: emulated ns from XOFF until a punctual upstream's frames stop arriving. */
  private readonly reactionNs: Float64Array;

  constructor(private readonly ctx: SwitchContext) {
    const c = ctx.counters;
    const rx = {
      rxPause: c.add(PfcCounter.rxPause),
      rxResume: c.add(PfcCounter.rxResume),
      pausedNs: new Float64Array(ctx.numPorts * PRIORITIES),
      transitions: c.add(PfcCounter.rxPauseTransition),
    };
    const tx = {
      txPause: c.add(PfcCounter.txPause),
      txResume: c.add(PfcCounter.txResume),
      xoffNs: new Float64Array(ctx.numPorts * PRIORITIES),
    };
    const expiry = ctx.timers.register("pfc-pause-expiry", (i, now) =>
      this.receivers[Math.floor(i / PRIORITIES)]?.unpause(i % PRIORITIES, now),
    );
    const refresh = ctx.timers.register("pfc-xoff-refresh", (i, now) =>
      this.senders[Math.floor(i / PRIORITIES)]?.refresh(i % PRIORITIES, now),
    );
    for (const ps of ctx.portList) {
      const base = ps.port * PRIORITIES;
      const { port, rateBps, mac } = ps.cfg;
      this.receivers[port] = new PfcReceiver(port, rateBps, ctx.env, expiry, base, { ...rx, base }, ctx);
      this.senders[port] = new PfcSender(port, mac, rateBps, ctx.env, refresh, base, { ...tx, base }, ps);
    }
    const split = (i: number): [PfcReceiver | undefined, PfcSender | undefined, number] => {
      const port = Math.floor(i / PRIORITIES);
      return [this.receivers[port], this.senders[port], i % PRIORITIES];
    };
    c.computed(
      PfcCounter.rxPauseDuration,
      (i, now) => {
        const [r, , p] = split(i);
        return r?.pausedNsAt(p, now) ?? 0;
      },
      () => rx.pausedNs.fill(0),
    );
    c.computed(
      PfcCounter.txPauseDuration,
      (i, now) => {
        const [, s, p] = split(i);
        return s?.xoffNsAt(p, now) ?? 0;
      },
      () => tx.xoffNs.fill(0),
    );
    c.computed(SwitchCounter.pgXoff, (i) => {
      const [, s, p] = split(i);
      return s?.isXoff(p) ? 1 : 0;
    });
    this.linkPauseIgnored = c.add({
      name: "rx_link_pause_ignored",
      kind: CounterKind.Counter,
      unit: "frames",
      help: "802.3x link-level PAUSE frames received; the ports run PFC and do not obey them",
      labels: [],
    });
    ctx.pfcOverride.setHandler(this);
    this.reactionNs = new Float64Array(ctx.numPorts);
  }

  pfcSwitchedOff(port: number, priority: number, now: Nanoseconds): void {
    this.receivers[port]?.unpause(priority, now);
    this.senders[port]?.release(priority, now, true);
  }

  configure(cfg: SwitchConfig): void {
    this.ctx.mmu.setPfc(cfg.pfc);
    for (const s of this.senders) s?.configure(cfg.pfc.pauseQuanta, cfg.pfc.refresh);
    // The physical reaction window (automatic headroom without slack, in time at the port's rate).
    for (const p of cfg.ports)
      this.reactionNs[p.port] =
        (autoHeadroomBytes(p.rateBps, p.delayNs, cfg.maxFrameBytes) * 8e9) / p.rateBps;
    this.ctx.pauseOverrun.judge = cfg.pfc.attributeLateness ? this : null;
  }

  overrun(port: number, pg: number, now: Nanoseconds): boolean {
    return this.senders[port]?.pastReaction(pg, now, this.reactionNs[port]!) ?? false;
  }

  /** MAC Control frames to the reserved address are ours; everything else passes on. */
  ingress(m: PacketMeta, now: Nanoseconds): boolean {
    if (m.kind !== FrameKind.MacControl || readMac(m.frame, 0) !== PFC_DST_MAC) return true;
    const parsed = parseMacControl(m.frame, m.l3);
    if (!parsed.ok) {
      this.ctx.drops.drop(DropReason.Malformed, false, m.inPort, -1, -1, now);
      return false;
    }
    const control = parsed.value;
    if (control.kind === "pfc")
      this.receivers[m.inPort]?.receive(control, now, this.ctx.pfcOverride.off[m.inPort]);
    else this.linkPauseIgnored[0]!++;
    return false;
  }

  /** A lossless PG over its threshold pauses the port it came in on. */
  enqueued(m: PacketMeta, now: Nanoseconds): void {
    if (m.inPort < 0 || !this.ctx.mmu.pfcProtected(m.pg) || this.ctx.pfcOverride.isOff(m.inPort, m.pg))
      return;
    const s = this.senders[m.inPort]!;
    if (!s.isXoff(m.pg) && this.ctx.mmu.shouldXoff(m.inPort, m.pg)) s.assert(m.pg, now);
  }

  /** A packet left the buffer: its PG may release the upstream. */
  dequeued(m: PacketMeta, now: Nanoseconds): void {
    if (m.inPort < 0) return;
    const s = this.senders[m.inPort]!;
    if (s.isXoff(m.pg) && this.ctx.mmu.shouldXon(m.inPort, m.pg)) s.release(m.pg, now, true);
  }

  /** PFC switched off on a PG that was pausing its upstream: let the upstream go. */
  reconfigurePort(ps: SwitchPort, now: Nanoseconds): void {
    const s = this.senders[ps.port]!;
    for (let p = 0; p < PRIORITIES; p++) if (!this.ctx.mmu.pfcProtected(p)) s.release(p, now, true);
  }

  /** Nobody is left to pause us or to be paused by us on a port whose link went down. */
  linkChanged(ps: SwitchPort, up: boolean, now: Nanoseconds): void {
    if (up) return;
    const r = this.receivers[ps.port]!;
    const s = this.senders[ps.port]!;
    for (let p = 0; p < PRIORITIES; p++) {
      r.unpause(p, now);
      s.release(p, now, false);
    }
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly pfc: PfcConfig;
  }
}

export const pfcFeature = defineFeature({
  key: "pfc",
  doc:
    "IEEE 802.1Qbb priority flow control on the lossless priorities: XOFF when an ingress PG crosses its " +
    "threshold (dynamic α × free shared buffer, or static bytes), refreshed after `refresh` of the pause " +
    "time, XON `resumeOffset` below the threshold once the headroom is empty; received pauses stop the " +
    "priority's queue for quanta × 512 bit times or until a resume.",
  settings,
  defaults: (): PfcConfig => ({
    enabled: true,
    // HPCC: pfc_a_shift 3, α = 1/8.
    xoff: "dynamic",
    alpha: 1 / 8,
    // HPCC: resume_offset 3 KB.
    resumeOffset: 3072,
    pauseQuanta: 0xffff,
    refresh: 0.5,
    headroomSlack: 0,
    attributeLateness: false,
  }),
  apply: (c: PfcConfig, s) => overlay(c, s),
  create: (ctx) => new Pfc(ctx),
});
