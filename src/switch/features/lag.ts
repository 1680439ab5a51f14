// Link aggregation (IEEE 802.1AX, formerly 802.3ad; H3C "Ethernet link aggregation"): the groups the
// topology declares (`lags`, scenario/lag.ts) reach the switch as SwitchConfig.lags; this module builds
// them (lb/lag-group.ts), picks each group's member strategy — a hash of the group's fields, or LBN / DLB
// over the members with the lb section's settings, as H3C applies LBN and DLB to aggregation groups — and
// runs LACP on the members of `mode: lacp` groups (control/lacp.ts, LACPDUs of wire/lacp.ts). A static
// member carries traffic while its link is up; an LACP member while both ends are collecting and
// distributing. Its own section holds the LACP identities (802.1AX's defaults).

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { fmix32 } from "../../device/prng.js";
import { overlay } from "../../device/setting-units.js";
import type { TimerKind } from "../../device/timers.js";
import { Dlb, type DlbMode } from "../../lb/dlb.js";
import { LagGroup, LagSet } from "../../lb/lag-group.js";
import { Lbn } from "../../lb/lbn.js";
import type { LbStrategy } from "../../lb/strategy.js";
import { ETHERNET_HEADER_LENGTH } from "../../wire/ethernet.js";
import { parseLacpdu, SLOW_PROTOCOLS_ETHERTYPE } from "../../wire/lacp.js";
import type { LagBalance, LagConfig, SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { LacpPort, selectPorts } from "../control/lacp.js";
import { DropReason } from "../drops.js";
import type { PacketMeta } from "../packet-meta.js";
import type { SwitchPort } from "../port.js";
import type { SwitchDetail } from "../stats-types.js";
import { hashStrategy } from "./ecmp.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";
import { LagCounters, lagTable } from "./lag-state.js";
import { lbnIndex, portQualityMeter } from "./load-balance.js";

const settings = z
  .object({
    /** LACP actor system priority (802.1AX default 32768; lower wins the choice of aggregator). */
    systemPriority: z.number().int().min(0).max(0xffff).optional(),
    /** LACP actor port priority of every member (802.1AX default 32768). */
    portPriority: z.number().int().min(0).max(0xffff).optional(),
    /** How members share in groups that do not say (H3C's global load-sharing mode): hash, lbn or dlb-*. */
    balance: z.enum(["hash", "lbn", "dlb-eligibility", "dlb-fixed", "dlb-spray"]).optional(),
  })
  .strict();

export interface LagSettingsConfig {
  readonly systemPriority: number;
  readonly portPriority: number;
  readonly balance: LagBalance;
}

/** Mixed into the ECMP seed for member hashing, so an ECMP choice then a member choice do not polarise. */
const MEMBER_SEED_SALT = 0x1a6_8023;

class Lag implements SwitchFeature {
  readonly name = "lag";
  private readonly groups: readonly LagConfig[];
  private set: LagSet | null = null;
  /** LACP state by port (members of lacp groups only). */
  private readonly lacp = new Map<number, LacpPort>();
  private readonly counters: LagCounters;
  private readonly txTimer: TimerKind;
  private readonly expireTimer: TimerKind;
  private started = false;

  constructor(private readonly ctx: SwitchContext) {
    this.groups = ctx.config.lags ?? [];
    this.counters = new LagCounters(ctx.counters);
    this.txTimer = ctx.timers.register("lacp-tx", (port, now) => this.periodic(port, now));
    this.expireTimer = ctx.timers.register("lacp-expire", (port, now) => this.expire(port, now));
    const system = Math.min(...ctx.portList.map((p) => p.cfg.mac));
    for (const g of this.groups) {
      if (g.mode !== "lacp") continue;
      for (const m of g.members) {
        const ps = ctx.ports[m.port];
        if (ps === undefined) continue;
        const actor = {
          systemPriority: 32768,
          system,
          key: g.key,
          portPriority: 32768,
          fast: g.rate === "fast",
        };
        this.lacp.set(m.port, new LacpPort(m.port, ps.cfg.mac, actor));
      }
    }
  }

  configure(cfg: SwitchConfig): void {
    if (this.groups.length === 0) return;
    for (const [port, lp] of this.lacp) {
      const g = this.groupOf(port)!;
      lp.setActor({
        systemPriority: cfg.lag.systemPriority,
        system: lp.actorInfo().system,
        key: g.key,
        portPriority: cfg.lag.portPriority,
        fast: g.rate === "fast",
      });
    }
    const groups = this.groups.map(
      (g) => new LagGroup(g.name, g.members, this.ctx.numPorts, this.strategy(g, cfg)),
    );
    this.set = new LagSet(groups, this.ctx.numPorts, this.counters.memberFrames);
    for (const g of groups) for (const m of g.group.members) g.setActive(m.port, this.memberActive(m.port));
    this.ctx.setLags(this.set);
    this.counters.refresh(this.set, this.lacp);
  }

  activeHooks(): readonly Hook[] {
    return this.groups.length > 0 ? [Hook.Ingress] : [];
  }

  start(now: Nanoseconds): void {
    this.started = true;
    for (const [port, lp] of this.lacp) if (this.ctx.ports[port]?.up) this.send(lp, now, true);
  }

  /** Slow Protocols frames (EtherType 0x8809) are consumed here: LACPDUs run the member's LACP. */
  ingress(m: PacketMeta, now: Nanoseconds): boolean {
    if (m.etherType !== SLOW_PROTOCOLS_ETHERTYPE) return true;
    const parsed = parseLacpdu(m.frame, ETHERNET_HEADER_LENGTH);
    if (!parsed.ok) {
      this.ctx.drops.drop(DropReason.Malformed, false, m.inPort, -1, -1, now);
      return false;
    }
    this.counters.rxPdus[m.inPort]!++;
    const lp = this.lacp.get(m.inPort);
    if (lp === undefined) return false; // LACP on a port of no lacp group: not ours to aggregate
    lp.receive(parsed.value, now);
    this.ctx.env.arm(this.expireTimer.id(lp.port), lp.expiresAt);
    this.update(this.groupOf(lp.port)!, now);
    return false;
  }

  linkChanged(ps: SwitchPort, up: boolean, now: Nanoseconds): void {
    const g = this.groupOf(ps.port);
    if (g === null) return;
    const lp = this.lacp.get(ps.port);
    if (lp !== undefined) {
      if (!up) {
        lp.forgetPartner();
        lp.ntt = false; // nothing can be sent on a dead link
        this.ctx.env.disarm(this.txTimer.id(ps.port));
        this.ctx.env.disarm(this.expireTimer.id(ps.port));
      } else if (this.started) {
        this.send(lp, now, true);
      }
    }
    this.update(g, now);
  }

  describe(): SwitchDetail {
    if (this.set === null) return {};
    this.counters.refresh(this.set, this.lacp);
    const { lag, ecmp } = this.ctx.config;
    return { lag: lagTable(this.groups, lag.balance, ecmp.fields, this.set, this.lacp, this.ctx.ports) };
  }

  private strategy(g: LagConfig, cfg: SwitchConfig): LbStrategy {
    const hash = hashStrategy(
      g.hash ?? cfg.ecmp.fields,
      cfg.ecmp.algorithm,
      fmix32((cfg.ecmp.seed ^ MEMBER_SEED_SALT) >>> 0),
    );
    const balance = g.balance ?? cfg.lag.balance;
    if (balance === "hash") return hash;
    if (balance === "lbn") return new Lbn(lbnIndex(this.ctx, cfg.lb.lbn), cfg.lb.lbn.enhancedFailover, hash);
    const d = cfg.lb.dlb;
    return new Dlb(
      balance as DlbMode,
      { inactivityNs: d.inactivityTime, agingNs: d.aging, flowsets: d.flowsets },
      portQualityMeter(this.ctx, d),
      hash,
      { flowsetsCreated: 0, flowletMoves: 0, overflow: 0 },
      new Float64Array(this.ctx.numPorts),
    );
  }

  private groupOf(port: number): LagConfig | null {
    for (const g of this.groups) if (g.members.some((m) => m.port === port)) return g;
    return null;
  }

  private memberActive(port: number): boolean {
    if (!(this.ctx.ports[port]?.up ?? false)) return false;
    const lp = this.lacp.get(port);
    return lp === undefined || lp.active;
  }

  /** Reruns selection and mux over a group, sends what changed, and updates the distributor. */
  private update(g: LagConfig, now: Nanoseconds): void {
    const ports = g.members.map((m) => this.lacp.get(m.port)).filter((p) => p !== undefined);
    if (ports.length > 0) {
      selectPorts(ports, (p) => this.ctx.ports[p]?.up ?? false);
      for (const lp of ports) lp.runMux();
      for (const lp of ports) if (lp.ntt && this.ctx.ports[lp.port]?.up) this.send(lp, now, false);
    }
    const group = this.set?.groupAt(g.members[0]!.port);
    if (group === undefined || group === null) return;
    let changed = false;
    for (const m of g.members) {
      if (group.setActive(m.port, this.memberActive(m.port))) {
        changed = true;
        this.counters.changes[m.port]!++;
      }
    }
    if (changed) this.ctx.nextHopsChanged();
    this.counters.refresh(this.set!, this.lacp);
  }

  /** Sends the member's LACPDU; `rearm` restarts the periodic timer from now. */
  private send(lp: LacpPort, now: Nanoseconds, rearm: boolean): void {
    const ps = this.ctx.ports[lp.port];
    if (ps?.sendControlFrame(lp.frame(), now)) this.counters.txPdus[lp.port]!++;
    if (rearm) this.ctx.env.arm(this.txTimer.id(lp.port), now + lp.periodNs);
  }

  private periodic(port: number, now: Nanoseconds): void {
    const lp = this.lacp.get(port);
    if (lp !== undefined && this.ctx.ports[port]?.up) this.send(lp, now, true);
  }

  private expire(port: number, now: Nanoseconds): void {
    const lp = this.lacp.get(port);
    if (lp === undefined || lp.expiresAt < 0 || lp.expiresAt > now) return;
    lp.forgetPartner();
    this.counters.timeouts[port]!++;
    this.update(this.groupOf(port)!, now);
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly lag: LagSettingsConfig;
  }
}

export const lagFeature = defineFeature({
  key: "lag",
  doc:
    "Link aggregation (IEEE 802.1AX / 802.3ad): the topology's `lags` groups, one next hop each for " +
    "routing; the member chosen by the group's hash fields, or by LBN or DLB with the lb section's " +
    "settings; static groups use every member whose link is up, LACP groups (real LACPDUs, fast 1 s or " +
    "slow 30 s, timeout 3 × the period) the members collecting and distributing at both ends. This " +
    "section holds LACP's system and port priority (default 32768) and the balance of groups that do " +
    "not set their own (H3C's global load-sharing mode).",
  settings,
  defaults: (): LagSettingsConfig => ({ systemPriority: 32768, portPriority: 32768, balance: "hash" }),
  apply: (c: LagSettingsConfig, s) => overlay(c, s),
  create: (ctx) => new Lag(ctx),
});
