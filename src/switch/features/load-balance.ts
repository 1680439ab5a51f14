// Load balancing beyond static ECMP, one setting away (`lb.mode`): LBN (lb/lbn.ts) and dynamic load
// balancing in its three modes (lb/dlb.ts) over the port quality of lb/port-quality.ts. The ecmp feature
// installs static ECMP; this one, configured after it, replaces the strategy when the mode is not `ecmp`,
// with the ecmp section's hash as the fallback (ports outside every LBN group, the enhanced failover's
// re-hash, DLB's table overflow). Changing the mode at run time (`set`) installs a new strategy.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind, Label } from "../../device/counters.js";
import { duration, size } from "../../device/setting-units.js";
import { Dlb, type DlbCounters, DlbMode } from "../../lb/dlb.js";
import { Lbn } from "../../lb/lbn.js";
import { PortQualityMeter } from "../../lb/port-quality.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { staticEcmp } from "./ecmp.js";
import { defineFeature, type SwitchFeature } from "./feature.js";

export const LbMode = {
  Ecmp: "ecmp",
  Lbn: "lbn",
  ...DlbMode,
} as const;
export type LbMode = (typeof LbMode)[keyof typeof LbMode];

const portKey = z.string().regex(/^(eth)?\d+$/, "a port: 5 or eth5");

const settings = z
  .object({
    mode: z.enum(["ecmp", "lbn", "dlb-eligibility", "dlb-fixed", "dlb-spray"]).optional(),
    lbn: z
      .object({
        /** LBN index per ingress port; ports left out are hashed by ECMP. Default: every port, index port − 1. */
        index: z.record(portKey, z.number().int().min(0).max(1023)).optional(),
        enhancedFailover: z.boolean().optional(),
      })
      .strict()
      .optional(),
    dlb: z
      .object({
        inactivityTime: duration.optional(),
        aging: duration.optional(),
        flowsets: z
          .number()
          .int()
          .min(1)
          .max(1 << 20)
          .optional(),
        sampleInterval: duration.optional(),
        loadWindow: duration.optional(),
        queueBand: size.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export interface LbnConfig {
  /** Ingress port -> LBN index; null: every port, index = port number − 1. */
  readonly index: Readonly<Record<number, number>> | null;
  /** Re-hash only the failed member's flows over the survivors (H3C's LBN enhancement). */
  readonly enhancedFailover: boolean;
}

export interface DlbConfig {
  /** Flowset inactivity time (eligibility mode), ns. */
  readonly inactivityTime: Nanoseconds;
  /** An idle flowset frees its table entry after this, ns. */
  readonly aging: Nanoseconds;
  /** Flowset table size, entries. */
  readonly flowsets: number;
  /** Port load sampling interval, ns. */
  readonly sampleInterval: Nanoseconds;
  /** Time constant of the port load's moving average, ns. */
  readonly loadWindow: Nanoseconds;
  /** Egress queue bytes per quality band. */
  readonly queueBand: number;
}

export interface LbConfig {
  readonly mode: LbMode;
  readonly lbn: LbnConfig;
  readonly dlb: DlbConfig;
}

class LoadBalance implements SwitchFeature {
  readonly name = "lb";
  private readonly dlbCounters: DlbCounters = { flowsetsCreated: 0, flowletMoves: 0, overflow: 0 };
  private readonly perPort: Float64Array;
  private dlb: Dlb | null = null;
  /** Flowsets aged in tables of strategies since replaced. */
  private agedBefore = 0;

  constructor(private readonly ctx: SwitchContext) {
    const c = ctx.counters;
    const dev = (name: string, help: string, read: () => number, reset: () => void) =>
      c.computed({ name, kind: CounterKind.Counter, unit: "flowsets", help, labels: [] }, read, reset);
    const d = this.dlbCounters;
    dev(
      "dlb_flowsets_created",
      "DLB flowset entries created",
      () => d.flowsetsCreated,
      () => {
        d.flowsetsCreated = 0;
      },
    );
    dev(
      "dlb_flowsets_aged",
      "DLB flowset entries freed after being idle for the aging time",
      () => this.aged(),
      () => {
        this.agedBefore = -(this.dlb?.table.counters.aged ?? 0);
      },
    );
    dev(
      "dlb_flowlet_moves",
      "flows DLB moved to another member after an inactivity gap",
      () => d.flowletMoves,
      () => {
        d.flowletMoves = 0;
      },
    );
    dev(
      "dlb_flowset_overflow",
      "new flows hashed by static ECMP because the flowset table was full",
      () => d.overflow,
      () => {
        d.overflow = 0;
      },
    );
    this.perPort = c.add({
      name: "dlb_member_packets",
      kind: CounterKind.Counter,
      unit: "packets",
      help: "packets DLB sent to this port as a member of an ECMP group",
      labels: [Label.Port],
    });
  }

  private aged(): number {
    return this.agedBefore + (this.dlb?.table.counters.aged ?? 0);
  }

  configure(cfg: SwitchConfig): void {
    const lb = cfg.lb;
    this.agedBefore = this.aged();
    this.dlb = null;
    if (lb.mode === LbMode.Ecmp) return;
    const fallback = staticEcmp(cfg.ecmp);
    if (lb.mode === LbMode.Lbn) {
      this.ctx.setStrategy(new Lbn(lbnIndex(this.ctx, lb.lbn), lb.lbn.enhancedFailover, fallback));
      return;
    }
    const d = lb.dlb;
    const meter = portQualityMeter(this.ctx, d);
    this.dlb = new Dlb(
      lb.mode,
      { inactivityNs: d.inactivityTime, agingNs: d.aging, flowsets: d.flowsets },
      meter,
      fallback,
      this.dlbCounters,
      this.perPort,
    );
    this.ctx.setStrategy(this.dlb);
  }
}

/** LBN index by ingress port (-1: no index) from the lb section (LAG members use it too). */
export function lbnIndex(ctx: SwitchContext, c: LbnConfig): Int32Array {
  const index = new Int32Array(ctx.numPorts).fill(-1);
  if (c.index === null) for (const p of ctx.portList) index[p.port] = p.port - 1;
  else
    for (const [port, i] of Object.entries(c.index)) if (Number(port) < index.length) index[Number(port)] = i;
  return index;
}

/** The port quality DLB picks by (a LAG's DLB over its members measures with its own meter). */
export function portQualityMeter(ctx: SwitchContext, d: DlbConfig): PortQualityMeter {
  const { ports, mmu } = ctx;
  return new PortQualityMeter(
    ctx.numPorts,
    { sampleNs: d.sampleInterval, windowNs: d.loadWindow, queueBandBytes: d.queueBand },
    {
      txBytes: (p, now) => ports[p]?.tx.sentBytes(now) ?? 0,
      queuedBytes: (p) => {
        let bytes = 0;
        for (let q = 0; q < PRIORITIES; q++) bytes += mmu.egressDepth(p, q);
        return bytes;
      },
      rateBps: (p) => ports[p]?.cfg.rateBps ?? 1,
    },
  );
}

function resolveIndex(index: Readonly<Record<string, number>>): Record<number, number> {
  const out: Record<number, number> = {};
  for (const [k, v] of Object.entries(index)) out[Number(k.replace(/^eth/, ""))] = v;
  return out;
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly lb: LbConfig;
  }
}

export const loadBalanceFeature = defineFeature({
  key: "lb",
  doc:
    "The load-balancing scheme (`mode`): static ECMP (the ecmp section), LBN (H3C's Load Balance Network: " +
    "ingress-port index mod group size over members ordered by peer IP, with the enhanced failover that " +
    "re-hashes only a failed member's flows), or DLB (Broadcom-style dynamic load balancing on a port " +
    "quality of average load and queue depth, eight bands each) in eligibility (flowlets after an " +
    "inactivity gap), fixed (first packet picks) or spray (every packet picks) mode.",
  settings,
  defaults: (): LbConfig => ({
    mode: LbMode.Ecmp,
    lbn: { index: null, enhancedFailover: false },
    dlb: {
      inactivityTime: 20_000,
      aging: 1_000_000,
      flowsets: 4096,
      sampleInterval: 1_000,
      loadWindow: 10_000,
      queueBand: 25_000,
    },
  }),
  apply: (c: LbConfig, s): LbConfig => ({
    mode: s.mode ?? c.mode,
    lbn: {
      index: s.lbn?.index !== undefined ? resolveIndex(s.lbn.index) : c.lbn.index,
      enhancedFailover: s.lbn?.enhancedFailover ?? c.lbn.enhancedFailover,
    },
    dlb: {
      inactivityTime: s.dlb?.inactivityTime ?? c.dlb.inactivityTime,
      aging: s.dlb?.aging ?? c.dlb.aging,
      flowsets: s.dlb?.flowsets ?? c.dlb.flowsets,
      sampleInterval: s.dlb?.sampleInterval ?? c.dlb.sampleInterval,
      loadWindow: s.dlb?.loadWindow ?? c.dlb.loadWindow,
      queueBand: s.dlb?.queueBand ?? c.dlb.queueBand,
    },
  }),
  create: (ctx) => new LoadBalance(ctx),
});
