// Path navigation, network mode (H3C RoCE overview §1.4.4, "网侧预选"): the per-flow path table a controller
// installs (lb/path-table.ts), consulted by the forward stage before the ECMP strategy. While the table is
// empty the forward stage does not even look (no cost). Commands: `path-entries` replaces the table.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind } from "../../device/counters.js";
import { overlay } from "../../device/setting-units.js";
import { type PathEntry, PathTable } from "../../lb/path-table.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import type { SwitchDetail } from "../stats-types.js";
import { defineFeature, type FeatureCommand, type FeatureReply, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    /** Most entries the table holds (vendors carve these out of the ACL/flow TCAM). */
    capacity: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict();

export interface PathTableConfig {
  readonly capacity: number;
}

/** Replaces the switch's path table (an empty list clears it). */
export interface PathEntriesCommand {
  readonly type: "path-entries";
  readonly entries: readonly PathEntry[];
}

class PathTableFeature implements SwitchFeature {
  readonly name = "pathTable";
  private table: PathTable | null = null;
  private entries: readonly PathEntry[] = [];

  constructor(private readonly ctx: SwitchContext) {
    const counter = (name: string, help: string, gauge = false) =>
      ctx.counters.computed(
        {
          name,
          kind: gauge ? CounterKind.Gauge : CounterKind.Counter,
          unit: name.endsWith("entries") ? "entries" : "packets",
          help,
          labels: [],
        },
        () => this.read(name),
        () => this.clear(name),
      );
    counter("path_table_hits", "packets forwarded by a path-navigation entry");
    counter("path_table_fallbacks", "packets whose entry's next hop was down: ECMP forwarded them");
    counter("path_table_overflows", "entries refused because the table was full");
    counter("path_table_entries", "entries installed now", true);
  }

  private read(name: string): number {
    const t = this.table;
    if (t === null) return 0;
    if (name === "path_table_hits") return t.counters.hits;
    if (name === "path_table_fallbacks") return t.counters.fallbacks;
    if (name === "path_table_overflows") return t.counters.overflows;
    return t.size;
  }

  private clear(name: string): void {
    const t = this.table;
    if (t === null) return;
    if (name === "path_table_hits") t.counters.hits = 0;
    else if (name === "path_table_fallbacks") t.counters.fallbacks = 0;
    else if (name === "path_table_overflows") t.counters.overflows = 0;
  }

  configure(cfg: SwitchConfig): void {
    const capacity = cfg.pathTable.capacity;
    if (this.table?.capacity === capacity) return;
    this.table = new PathTable(capacity);
    this.install(this.entries);
  }

  command(cmd: FeatureCommand, _now: Nanoseconds): FeatureReply | undefined {
    if (cmd.type !== "path-entries") return undefined;
    const entries = (cmd as PathEntriesCommand).entries;
    if (!Array.isArray(entries)) return { ok: false, error: "path-entries needs an entries list" };
    for (const e of entries) {
      if (this.ctx.ports[e.port] === undefined)
        return { ok: false, error: `path entry names port ${e.port}, which ${this.ctx.name} does not have` };
    }
    this.entries = entries;
    const refused = this.install(entries);
    return refused === 0
      ? { ok: true }
      : { ok: false, error: `${refused} of ${entries.length} entries did not fit the table` };
  }

  describe(): SwitchDetail {
    return this.table === null || this.table.size === 0 ? {} : { pathTable: this.table.entries };
  }

  private install(entries: readonly PathEntry[]): number {
    const t = this.table!;
    const refused = t.replace(entries);
    this.ctx.setOverride(t.size > 0 ? t : null);
    return refused;
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly pathTable: PathTableConfig;
  }
}

export const pathTableFeature = defineFeature({
  key: "pathTable",
  doc:
    "Path navigation, network mode: exact-match entries (source IP, destination IP, UDP source port → " +
    "out-port) installed by the controller and consulted before the ECMP strategy; an entry whose next " +
    "hop is down is skipped and ECMP forwards the packet (fallback to the FIB).",
  settings,
  defaults: (): PathTableConfig => ({ capacity: 4096 }),
  apply: (c: PathTableConfig, s) => overlay(c, s),
  create: (ctx) => new PathTableFeature(ctx),
});
