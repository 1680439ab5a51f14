// Deadlock prevention by port groups: ports are configured into groups (a leaf's uplinks, a ring's two
// ring ports); a packet that enters and leaves through ports of the same group — spine → leaf → spine, the
// bounce a failure or a stale route makes — is high-risk, and the switch rewrites its DSCP and moves it to
// another queue through a configured `dscp → (dscp', queue')` remap, so that the next hop classifies it into
// another priority group and the cyclic buffer dependency is broken (the idea of Tagger: Hu et al.,
// "Tagger: Practical PFC Deadlock Prevention in Data Center Networks", CoNEXT 2017). Only DSCP-carrying
// (IPv4) traffic is remapped. Each remap is applied once per switch; a chain 26 → 30 → 8 bounds how many
// bounces stay lossless, the last step into a lossy class ending any cycle (as Tagger's last tag does).

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind, Label } from "../../device/counters.js";
import { overlay } from "../../device/setting-units.js";
import { DSCP_VALUES, setIpv4Dscp } from "../../wire/ipv4.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import type { PacketMeta } from "../packet-meta.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";

const port = z.number().int().min(1).max(255);
const dscp = z
  .number()
  .int()
  .min(0)
  .max(DSCP_VALUES - 1);

const settings = z
  .object({
    enabled: z.boolean().optional(),
    /** Port groups: each a list of port numbers (N of ethN); a port belongs to at most one group. */
    groups: z
      .array(z.array(port).min(2))
      .refine((gs) => new Set(gs.flat()).size === gs.flat().length, { message: "a port is in two groups" })
      .optional(),
    /** What a high-risk packet with DSCP `dscp` becomes: DSCP `toDscp` in egress queue `queue`. */
    remap: z
      .array(
        z
          .object({
            dscp,
            toDscp: dscp,
            queue: z
              .number()
              .int()
              .min(0)
              .max(PRIORITIES - 1),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

export interface DeadlockPreventionConfig {
  readonly enabled: boolean;
  readonly groups: readonly (readonly number[])[];
  readonly remap: readonly { readonly dscp: number; readonly toDscp: number; readonly queue: number }[];
}

class DeadlockPrevention implements SwitchFeature {
  readonly name = "deadlockPrevention";
  private enabled = false;
  /** Per port: its group, or -1. */
  private readonly group: Int16Array;
  /** Per DSCP: the DSCP it becomes (-1: not remapped) and the queue it moves to. */
  private readonly toDscp = new Int16Array(DSCP_VALUES).fill(-1);
  private readonly toQueue = new Uint8Array(DSCP_VALUES);
  private readonly remapped: Float64Array;

  constructor(ctx: SwitchContext) {
    this.group = new Int16Array(ctx.numPorts).fill(-1);
    this.remapped = ctx.counters.add({
      name: "deadlock_remapped",
      kind: CounterKind.Counter,
      unit: "packets",
      help: "packets that entered and left through one port group, given a new DSCP and queue",
      labels: [Label.Port, Label.Queue],
    });
  }

  configure(cfg: SwitchConfig): void {
    const c = cfg.deadlockPrevention;
    this.enabled = c.enabled;
    this.group.fill(-1);
    c.groups.forEach((ports, g) => {
      for (const p of ports) if (p < this.group.length) this.group[p] = g;
    });
    this.toDscp.fill(-1);
    for (const r of c.remap) {
      this.toDscp[r.dscp] = r.toDscp;
      this.toQueue[r.dscp] = r.queue;
    }
  }

  activeHooks(): readonly Hook[] {
    return this.enabled ? [Hook.Admit] : [];
  }

  /** Out-port known, before the MMU: a packet bouncing within a group gets its new DSCP and queue. */
  admit(m: PacketMeta, _now: Nanoseconds): boolean {
    if (m.inPort < 0 || m.l3 < 0) return true;
    const g = this.group[m.inPort]!;
    if (g < 0 || g !== this.group[m.outPort]) return true;
    const next = this.toDscp[m.dscp]!;
    if (next < 0) return true;
    this.remapped[m.outPort * PRIORITIES + this.toQueue[m.dscp]!]!++;
    m.queue = this.toQueue[m.dscp]!;
    m.dscp = next;
    setIpv4Dscp(m.frame, m.l3, next);
    m.verified = false; // a remark: the receiver checks the frame again (PacketMeta.verified)
    return true;
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly deadlockPrevention: DeadlockPreventionConfig;
  }
}

export const deadlockPreventionFeature = defineFeature({
  key: "deadlockPrevention",
  doc:
    "Port groups: a packet entering and leaving through ports of one group (spine → leaf → spine) gets " +
    "a new DSCP and egress queue from the `remap` table, so the next hop puts it in another priority " +
    "group and a cyclic buffer dependency cannot close (Tagger, CoNEXT 2017). IPv4 (DSCP) traffic only.",
  settings,
  defaults: (): DeadlockPreventionConfig => ({ enabled: false, groups: [], remap: [] }),
  apply: (c: DeadlockPreventionConfig, s) => overlay(c, s),
  create: (ctx) => new DeadlockPrevention(ctx),
});
