// The shared buffer: its size, the reserve per (port, priority group), the dynamic threshold of lossy
// queues, the PFC headroom of lossless PGs and which accounting the MMU follows (`mmu`: rocelab's default,
// or HPCC's ns-3 SwitchMmu). The MMU (mmu.ts) does the accounting; this module owns the settings and the
// occupancy gauges.

import { z } from "zod";
import { CounterKind, Label } from "../../device/counters.js";
import { overlay, ratio, size } from "../../device/setting-units.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { SwitchCounter } from "../counter-defs.js";
import { autoHeadroomBytes, hpccNs3HeadroomBytes, MmuMode } from "../mmu.js";
import { defineFeature, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    size: size.optional(),
    reserve: size.optional(),
    lossyAlpha: ratio.optional(),
    headroom: z.union([z.literal("auto"), size]).optional(),
    mmu: z.enum([MmuMode.Default, MmuMode.HpccNs3]).optional(),
  })
  .strict();

export interface BufferConfig {
  /** Total shared-memory buffer, bytes. */
  readonly size: number;
  /** Guaranteed bytes per (ingress port, priority group). */
  readonly reserve: number;
  /** Dynamic-threshold α for lossy queues: a queue may hold α × (free shared buffer). */
  readonly lossyAlpha: number;
  /** PFC headroom per (port, lossless priority group), bytes; "auto" sizes it from the link (see mmu.ts). */
  readonly headroom: number | "auto";
  /**
   * The MMU's accounting. "default": a reserve per (port, PG) and a headroom per (port, lossless PG) leave
   * the shared pool, and a packet gives back what it was charged. "hpcc-ns3": HPCC's ns-3 SwitchMmu (one
   * reserve and one headroom per port leave the pool, headroom is emptied first, `auto` headroom is three
   * one-way bandwidth-delay products), for comparisons with that simulator (docs/fidelity.md).
   */
  readonly mmu: MmuMode;
}

/** Headroom of every port's lossless PGs, bytes, indexed by port number. */
export function headrooms(cfg: SwitchConfig, numPorts: number): number[] {
  const out = new Array<number>(numPorts).fill(0);
  const h = cfg.buffer.headroom;
  for (const p of cfg.ports) out[p.port] = h === "auto" ? autoHeadroomOf(cfg, p.rateBps, p.delayNs) : h;
  return out;
}

/** `headroom: auto` on a port of this rate and delay, under the switch's MMU accounting. */
export function autoHeadroomOf(cfg: SwitchConfig, rateBps: number, delayNs: number): number {
  if (cfg.buffer.mmu === MmuMode.HpccNs3) return hpccNs3HeadroomBytes(rateBps, delayNs);
  return autoHeadroomBytes(rateBps, delayNs, cfg.maxFrameBytes, cfg.pfc.headroomSlack);
}

class Buffer implements SwitchFeature {
  readonly name = "buffer";

  constructor(private readonly ctx: SwitchContext) {
    const { counters, mmu } = ctx;
    counters.computed(SwitchCounter.bufferUsed, () => mmu.used);
    counters.computed(SwitchCounter.bufferSharedUsed, () => mmu.sharedUsed);
    counters.computed(SwitchCounter.bufferSharedPool, () => mmu.sharedPoolBytes);
    counters.computed(SwitchCounter.bufferSharedPeak, () => mmu.sharedPeakBytes);
    counters.computed(SwitchCounter.bufferHeadroomUsed, () => mmu.headroomUsed);
    counters.computed(SwitchCounter.portHeadroom, (port) => mmu.headroomOf(port));
    const pg = (name: string, key: string, help: string, read: (port: number, p: number) => number): void =>
      counters.computed(
        { name, key, kind: CounterKind.Gauge, unit: "bytes", help, labels: [Label.Port, Label.Priority] },
        (i) => read(Math.floor(i / PRIORITIES), i % PRIORITIES),
      );
    pg("pg_bytes", "pg{priority}_bytes", "bytes the ingress PG holds outside headroom", (port, p) =>
      mmu.pgUsed(port, p),
    );
    pg(
      "pg_headroom_bytes",
      "pg{priority}_headroom_bytes",
      "bytes the ingress PG holds in headroom",
      (port, p) => mmu.pgHeadroomUsed(port, p),
    );
    pg(
      "pg_headroom_peak_bytes",
      "pg{priority}_headroom_peak_bytes",
      "high-water mark of the PG's headroom",
      (port, p) => mmu.headroomPeak(port * PRIORITIES + p),
    );
    counters.computed(SwitchCounter.watermark, (i) => mmu.egressPeak(i));
  }

  configure(cfg: SwitchConfig): void {
    this.ctx.mmu.setBuffer(cfg.buffer, headrooms(cfg, this.ctx.numPorts), cfg.ports.length);
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly buffer: BufferConfig;
  }
}

export const bufferFeature = defineFeature({
  key: "buffer",
  doc:
    "A Broadcom-style shared buffer as in HPCC's ns-3 switch MMU: a reserve per (ingress port, priority " +
    "group), a shared pool, PFC headroom per lossless PG (`auto`: a link round trip, three frames, the PFC " +
    "frame and `pfc.headroomSlack`), lossy queues bounded by a dynamic threshold (Choudhury & Hahne). " +
    "`mmu: hpcc-ns3` follows HPCC's ns-3 SwitchMmu instead (docs/switch.md).",
  settings,
  defaults: (): BufferConfig => ({
    // HPCC's ns-3 runs use 32 MB at 100 Gb/s (github.com/alibaba-edu/High-Precision-Congestion-Control).
    size: 32 * 1024 * 1024,
    // HPCC: 4 KB reserved per (port, queue).
    reserve: 4096,
    // SONiC's dynamic buffer model default (dynamic_th 0, α = 1).
    lossyAlpha: 1,
    headroom: "auto",
    mmu: MmuMode.Default,
  }),
  apply: (c: BufferConfig, s) => overlay(c, s),
  create: (ctx) => new Buffer(ctx),
});
