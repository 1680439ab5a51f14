// Path navigation, network mode (H3C RoCE overview §1.4.4, "网侧预选"): the per-flow path table a controller
// installs (lb/path-table.ts), consulted by the forward stage before the ECMP strategy, with the costs H3C
// names against it — table capacity, the time to write each entry, the refresh after a failure — as settings
// (docs/path-navigation.md, "Network mode's costs"). While the table is empty the forward stage does not
// even look (no cost). Commands: `path-entries` replaces the table.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind } from "../../device/counters.js";
import { duration, overlay } from "../../device/setting-units.js";
import { type PathEntry, PathFailover, PathTable } from "../../lb/path-table.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import type { SwitchPort } from "../port.js";
import type { SwitchDetail } from "../stats-types.js";
import { defineFeature, type FeatureCommand, type FeatureReply, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    /** Most entries the table holds (vendors carve these out of the ACL/flow TCAM). */
    capacity: z.number().int().min(1).max(1_000_000).optional(),
    /** Time the switch takes to write one entry; writes are serial, so this is also the refresh rate. */
    installLatency: duration.optional(),
    /** What a port going down does to its entries: skipped at once, or lost until rewritten. */
    failover: z.enum([PathFailover.Fallback, PathFailover.Refresh]).optional(),
  })
  .strict();

export interface PathTableConfig {
  readonly capacity: number;
  /** ns per entry write. */
  readonly installLatency: Nanoseconds;
  readonly failover: PathFailover;
}

const COUNTERS = {
  path_table_hits: "packets forwarded by a path-navigation entry in force",
  path_table_fallbacks: "packets whose entry's next hop was down: ECMP forwarded them",
  path_table_overflows: "entries refused because the table was full",
  path_table_overflow_packets: "packets of flows whose entry did not fit the table: ECMP forwarded them",
  path_table_pending: "packets whose entry was not written yet: the previous entry or ECMP forwarded them",
  path_table_blackholed: "packets an entry sent to its dead port before the switch refreshed it (dropped)",
  path_table_writes: "entry writes: installs, changes and failover refreshes",
} as const;
type CounterName = keyof typeof COUNTERS;
const FIELD: Record<CounterName, keyof PathTable["counters"]> = {
  path_table_hits: "hits",
  path_table_fallbacks: "fallbacks",
  path_table_overflows: "overflows",
  path_table_overflow_packets: "overflowPackets",
  path_table_pending: "pending",
  path_table_blackholed: "blackholed",
  path_table_writes: "writes",
};

/** Replaces the switch's path table (an empty list clears it). */
export interface PathEntriesCommand {
  readonly type: "path-entries";
  readonly entries: readonly PathEntry[];
}

/**
 * Entries per switch. The order of a data-centre switch's ingress ACL/flow TCAM, a few thousand entries,
 * shared with every other ACL user (docs/path-navigation.md, "Network mode's costs").
 */
const DEFAULT_CAPACITY = 4096;
/**
 * One entry write: 1 ms. Rule installation on production switches takes milliseconds per rule and more as
 * the table fills (He et al., "Measuring Control Plane Latency in SDN-enabled Switches", SOSR 2015;
 * Kuźniar et al., Computer Networks 136, 2018); Hermes (Chen & Benson, CoNEXT 2017) is designed to
 * *guarantee* 5 ms.
 */
const DEFAULT_INSTALL_NS = 1_000_000;

class PathTableFeature implements SwitchFeature {
  readonly name = "pathTable";
  private table: PathTable | null = null;
  private entries: readonly PathEntry[] = [];

  constructor(private readonly ctx: SwitchContext) {
    for (const name of Object.keys(COUNTERS) as CounterName[]) {
      const field = FIELD[name];
      ctx.counters.computed(
        {
          name,
          kind: CounterKind.Counter,
          unit: name === "path_table_writes" ? "entries" : "packets",
          help: COUNTERS[name],
          labels: [],
        },
        () => this.table?.counters[field] ?? 0,
        () => {
          if (this.table !== null) this.table.counters[field] = 0;
        },
      );
    }
    ctx.counters.computed(
      {
        name: "path_table_entries",
        kind: CounterKind.Gauge,
        unit: "entries",
        help: "entries installed now",
        labels: [],
      },
      () => this.table?.size ?? 0,
      () => {},
    );
  }

  configure(cfg: SwitchConfig, now: Nanoseconds): void {
    const { capacity, installLatency, failover } = cfg.pathTable;
    const t = this.table;
    if (t?.capacity === capacity && t.timing.installNs === installLatency && t.timing.failover === failover)
      return;
    this.table = new PathTable(capacity, { installNs: installLatency, failover });
    this.install(this.entries, now);
  }

  linkChanged(port: SwitchPort, up: boolean, now: Nanoseconds): void {
    if (!up) this.table?.linkDown(port.port, now);
  }

  command(cmd: FeatureCommand, now: Nanoseconds): FeatureReply | undefined {
    if (cmd.type !== "path-entries") return undefined;
    const entries = (cmd as PathEntriesCommand).entries;
    if (!Array.isArray(entries)) return { ok: false, error: "path-entries needs an entries list" };
    for (const e of entries) {
      if (this.ctx.ports[e.port] === undefined)
        return { ok: false, error: `path entry names port ${e.port}, which ${this.ctx.name} does not have` };
    }
    this.entries = entries;
    // A full table is not an error: the flows that did not fit are forwarded by ECMP (and counted).
    this.install(entries, now);
    return { ok: true };
  }

  describe(now: Nanoseconds): SwitchDetail {
    const t = this.table;
    if (t === null || (t.size === 0 && t.counters.overflows === 0)) return {};
    return {
      pathTable: t.entries,
      pathTableState: { capacity: t.capacity, refused: t.lastRefused, pending: t.pendingEntries(now) },
    };
  }

  private install(entries: readonly PathEntry[], now: Nanoseconds): number {
    const t = this.table!;
    const refused = t.replace(entries, now);
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
    "out-port) installed by the controller and consulted before the ECMP strategy; `capacity` entries at " +
    "most (flows that do not fit go by ECMP), each written `installLatency` after the previous one; when " +
    "a port goes down, failover `fallback` skips its entries at once, `refresh` loses their packets until " +
    "the switch has rewritten each of them.",
  settings,
  defaults: (): PathTableConfig => ({
    capacity: DEFAULT_CAPACITY,
    installLatency: DEFAULT_INSTALL_NS,
    failover: PathFailover.Refresh,
  }),
  apply: (c: PathTableConfig, s) => overlay(c, s),
  create: (ctx) => new PathTableFeature(ctx),
});
