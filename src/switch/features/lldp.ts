// LLDP (IEEE 802.1AB): the switch's neighbour discovery, as a feature module so that it owns its config
// section, timer, counters and its part of the stats (the neighbour table `rocelab stats` shows and the
// path-navigation controller reads). The agent itself is control/lldp.ts.
//
// Off by default: LLDPDUs are frames on the wire, and the committed simulator experiments must reproduce
// exactly; the path-navigation controller switches it on (and a user can with `lldp: { enabled: true }`).
// 802.1AB's defaults: msgTxInterval 30 s, msgTxHold 4 (TTL = 4 × 30 s = 120 s).

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind } from "../../device/counters.js";
import { duration, overlay } from "../../device/setting-units.js";
import type { TimerKind } from "../../device/timers.js";
import { EtherType } from "../../wire/ethernet.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { LldpAgent } from "../control/lldp.js";
import { DropReason } from "../drops.js";
import type { PacketMeta } from "../packet-meta.js";
import type { SwitchPort } from "../port.js";
import type { SwitchDetail } from "../stats-types.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    enabled: z.boolean().optional(),
    /** msgTxInterval: how often every port sends its LLDPDU. */
    txInterval: duration.optional(),
    /** msgTxHold: TTL = txInterval × this (rounded up to whole seconds, as the TTL TLV carries). */
    holdMultiplier: z.number().int().min(1).max(100).optional(),
  })
  .strict();

export interface LldpConfig {
  readonly enabled: boolean;
  readonly txInterval: Nanoseconds;
  readonly holdMultiplier: number;
}

const NS_PER_S = 1e9;

/** The TTL TLV's value for a config: whole seconds, 1..65535. */
export function lldpTtlSeconds(c: LldpConfig): number {
  return Math.min(0xffff, Math.max(1, Math.ceil((c.txInterval * c.holdMultiplier) / NS_PER_S)));
}

class Lldp implements SwitchFeature {
  readonly name = "lldp";
  private readonly agent: LldpAgent;
  private readonly timer: TimerKind;
  private cfg: LldpConfig | null = null;
  private started = false;
  private armed = false;
  private readonly txFrames: Float64Array;
  private readonly rxFrames: Float64Array;
  private readonly aged: Float64Array;
  private readonly neighbours: Float64Array;

  constructor(private readonly ctx: SwitchContext) {
    this.agent = new LldpAgent(ctx.name, ctx.portList);
    this.timer = ctx.timers.register("lldp-tx", (_i, now) => this.tick(now));
    const add = (name: string, unit: string, help: string, gauge = false) =>
      ctx.counters.add({
        name,
        kind: gauge ? CounterKind.Gauge : CounterKind.Counter,
        unit,
        help,
        labels: [],
      });
    this.txFrames = add("lldp_tx_frames", "frames", "LLDPDUs sent (all ports)");
    this.rxFrames = add("lldp_rx_frames", "frames", "LLDPDUs received and understood");
    this.aged = add(
      "lldp_aged_neighbours",
      "neighbours",
      "neighbour entries forgotten when their TTL ran out",
    );
    this.neighbours = add("lldp_neighbours", "neighbours", "entries in the neighbour table now", true);
  }

  configure(cfg: SwitchConfig, now: Nanoseconds): void {
    const was = this.cfg?.enabled ?? false;
    const interval = this.cfg?.txInterval;
    this.cfg = cfg.lldp;
    this.agent.prepare(lldpTtlSeconds(cfg.lldp));
    if (!cfg.lldp.enabled) {
      if (this.armed) this.ctx.env.disarm(this.timer.id(0));
      this.armed = false;
      this.agent.forgetAll();
      this.neighbours[0] = 0;
      return;
    }
    if (!this.started) return;
    // Switched on at run time: announce now, then every interval; a new interval takes effect at once.
    if (!was || !this.armed) this.tick(now);
    else if (cfg.lldp.txInterval !== interval) this.schedule(now);
  }

  activeHooks(): readonly Hook[] {
    return this.cfg?.enabled ? [Hook.Ingress] : [];
  }

  start(now: Nanoseconds): void {
    this.started = true;
    if (this.cfg?.enabled) this.tick(now);
  }

  /** LLDP frames (EtherType 0x88cc, to the nearest-bridge address) are consumed here. */
  ingress(m: PacketMeta, now: Nanoseconds): boolean {
    if (m.etherType !== EtherType.LLDP) return true;
    const ps = this.ctx.ports[m.inPort]!;
    if (this.agent.receive(ps, m.frame, now)) this.rxFrames[0]!++;
    else this.ctx.drops.drop(DropReason.Malformed, false, m.inPort, -1, -1, now);
    this.neighbours[0] = this.agent.size;
    return false;
  }

  linkChanged(ps: SwitchPort, up: boolean, now: Nanoseconds): void {
    if (!this.cfg?.enabled) return;
    if (up) {
      if (this.agent.send(ps, now)) this.txFrames[0]!++;
    } else {
      this.agent.forgetPort(ps.port);
    }
    this.neighbours[0] = this.agent.size;
  }

  describe(now: Nanoseconds): SwitchDetail {
    if (!this.cfg?.enabled) return {};
    const table = this.agent.table(now);
    this.neighbours[0] = this.agent.size;
    return { lldp: table };
  }

  private tick(now: Nanoseconds): void {
    this.armed = false;
    if (!this.cfg?.enabled) return;
    this.aged[0]! += this.agent.age(now);
    for (const ps of this.ctx.portList) if (this.agent.send(ps, now)) this.txFrames[0]!++;
    this.neighbours[0] = this.agent.size;
    this.schedule(now);
  }

  private schedule(now: Nanoseconds): void {
    this.ctx.env.arm(this.timer.id(0), now + this.cfg!.txInterval);
    this.armed = true;
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly lldp: LldpConfig;
  }
}

export const lldpFeature = defineFeature({
  key: "lldp",
  doc:
    "LLDP (IEEE 802.1AB) on every port: an LLDPDU (chassis MAC, interface name, TTL, system name, the " +
    "port's IPv4 management address) every txInterval and when a port comes up; a neighbour table with " +
    "TTL = txInterval × holdMultiplier, cleared per port on carrier loss. Off by default (frames on the " +
    "wire); the path-navigation controller turns it on and reads the tables.",
  settings,
  defaults: (): LldpConfig => ({ enabled: false, txInterval: 30 * NS_PER_S, holdMultiplier: 4 }),
  apply: (c: LldpConfig, s) => overlay(c, s),
  create: (ctx) => new Lldp(ctx),
});
