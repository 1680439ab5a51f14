// IPCC, intelligent proactive congestion control: the congested switch notifies the RoCE senders itself.
// Classic ECN only marks at the congestion point; the mark travels on to the receiver, whose NIC (the
// DCQCN notification point) sends a CNP back along the whole path. With IPCC the switch keeps a RoCEv2
// flow table (ipcc-flows.ts) and, for every IPCC queue, once per `period` computes from the queue's trend
// and buffer occupancy how many CNPs to send (ipcc-curve.ts, the four cases), and sends real RoCEv2 CNPs
// (BTH opcode 0x81, DSCP 48, valid ICRC: wire/roce.ts buildCnpFrame) to the senders' QPs straight back out
// of each flow's ingress port. The senders' DCQCN reaction points treat them as any CNP.
//
// Flows are chosen round robin over the table, so successive periods spread CNPs over all the queue's
// active flows. Only RoCEv2 traffic is covered (IPCC needs the BTH's QP numbers).

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import { CounterKind, Label } from "../../device/counters.js";
import { duration, fraction, overlay, size } from "../../device/setting-units.js";
import type { TimerKind } from "../../device/timers.js";
import { PRIORITIES } from "../../wire/pfc.js";
import { buildCnpFrame, CNP_DEFAULT_DSCP } from "../../wire/roce.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import type { PacketMeta } from "../packet-meta.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";
import { IpccCase, type IpccCurve, ipccCase, ipccCnpCount } from "./ipcc-curve.js";
import { IpccFlows, LearnSource } from "./ipcc-flows.js";

const curveSettings = z
  .object({
    risingLow: fraction.optional(),
    risingHigh: fraction.optional(),
    fallingLow: fraction.optional(),
    fallingHigh: fraction.optional(),
    highOccupancy: fraction.optional(),
    minDepth: size.optional(),
    trendBytes: size.optional(),
  })
  .strict();

const settings = z
  .object({
    enabled: z.boolean().optional(),
    /** Egress queues IPCC watches. */
    queues: z.array(z.number().int().min(0).max(7)).optional(),
    /** Egress ports IPCC watches: "all" or interface names. */
    ports: z
      .union([z.literal("all"), z.array(z.string().regex(/^eth\d+$/, "an interface name, ethN"))])
      .optional(),
    period: duration.optional(),
    /** A flow counts as active on its queue if it carried data this recently. */
    active: duration.optional(),
    /** Takes effect at start, like `flows`. */
    aging: duration.optional(),
    /** Flow-table capacity (entries; one per direction of a connection). Takes effect at start. */
    flows: z.number().int().min(1).max(65536).optional(),
    dscp: z.number().int().min(0).max(63).optional(),
    curve: curveSettings.optional(),
  })
  .strict();

export interface IpccConfig {
  readonly enabled: boolean;
  readonly queues: readonly number[];
  /** Egress ports watched: "all", or interface names (ethN). */
  readonly ports: "all" | readonly string[];
  /** How often each IPCC queue is evaluated, ns. */
  readonly period: Nanoseconds;
  readonly active: Nanoseconds;
  /** Flow entries not refreshed for this long are removed, ns. */
  readonly aging: Nanoseconds;
  readonly flows: number;
  /** DSCP of the CNPs the switch sends (ConnectX cnp_dscp 48). */
  readonly dscp: number;
  readonly curve: IpccCurve;
}

const CASES = [
  IpccCase.Idle,
  IpccCase.RisingLow,
  IpccCase.RisingHigh,
  IpccCase.FallingLow,
  IpccCase.FallingHigh,
] as const;
const DETAIL = CASES.map((c) => `ipcc ${c}`);

class Ipcc implements SwitchFeature {
  readonly name = "ipcc";
  private cfg: IpccConfig;
  private readonly flows: IpccFlows;
  private readonly timer: TimerKind;
  private armed = false;
  private lastSweep = 0;
  private cursor = 0;
  private readonly watched = new Uint8Array(PRIORITIES);
  private readonly watchedPort: Uint8Array;
  private readonly prevDepth: Float64Array;
  private readonly caseOf: Uint8Array;
  private readonly activeFlows: Int32Array;
  private readonly owed: Int32Array;
  private readonly cnpSent: Float64Array;
  private readonly cnpNoQp: Float64Array;
  private readonly base = { inserts: 0, aged: 0, full: 0 };
  private readonly keyBase: number;

  constructor(private readonly ctx: SwitchContext) {
    this.cfg = ctx.config.ipcc;
    this.flows = new IpccFlows(this.cfg.flows, this.cfg.aging);
    const n = ctx.numPorts * PRIORITIES;
    this.watchedPort = new Uint8Array(ctx.numPorts);
    this.prevDepth = new Float64Array(n);
    this.caseOf = new Uint8Array(n);
    this.activeFlows = new Int32Array(n);
    this.owed = new Int32Array(n);
    this.timer = ctx.timers.register("ipcc-period", (_i, now) => this.tick(now));
    this.keyBase = ctx.limiter.keys(n);
    const c = ctx.counters;
    const q = [Label.Port, Label.Queue] as const;
    this.cnpSent = c.add({
      name: "ipcc_cnp_sent",
      kind: CounterKind.Counter,
      unit: "packets",
      help: "CNPs IPCC sent for congestion on this egress queue",
      labels: q,
    });
    this.cnpNoQp = c.add({
      name: "ipcc_cnp_no_qp",
      kind: CounterKind.Counter,
      unit: "packets",
      help: "CNPs IPCC owed a flow whose sender QP it has not learned (no CM exchange, no reverse traffic)",
      labels: q,
    });
    const t = this.flows.table;
    const gauge = (name: string, help: string, read: () => number) =>
      c.computed({ name, kind: CounterKind.Gauge, unit: "entries", help, labels: [] }, read);
    const counter = (name: string, help: string, key: keyof typeof this.base) =>
      c.computed(
        { name, kind: CounterKind.Counter, unit: "entries", help, labels: [] },
        () => t.counters[key] - this.base[key],
        () => {
          this.base[key] = t.counters[key];
        },
      );
    gauge("ipcc_flow_entries", "RoCEv2 flow-table entries in use", () => t.size);
    counter("ipcc_flows_learned", "RoCEv2 flow-table entries created", "inserts");
    const learned = this.flows.learned;
    const learnedBase = new Float64Array(learned.length);
    const bySource = (name: string, help: string, i: LearnSource) =>
      c.computed(
        { name, kind: CounterKind.Counter, unit: "entries", help, labels: [] },
        () => learned[i]! - learnedBase[i]!,
        () => {
          learnedBase[i] = learned[i]!;
        },
      );
    bySource(
      "ipcc_flows_learned_cm",
      "RoCEv2 flow-table entries created from an RDMA CM REQ/REP exchange (both QPs known)",
      LearnSource.Cm,
    );
    bySource(
      "ipcc_flows_learned_data",
      "RoCEv2 flow-table entries created from a data packet (SEND, WRITE, READ response)",
      LearnSource.Data,
    );
    bySource(
      "ipcc_flows_learned_ack",
      "RoCEv2 flow-table entries created from a packet without payload (ACK/NAK, READ request)",
      LearnSource.Ack,
    );
    const removed = this.flows.removedCm;
    let removedBase = 0;
    c.computed(
      {
        name: "ipcc_flows_removed_cm",
        kind: CounterKind.Counter,
        unit: "entries",
        help: "RoCEv2 flow-table entries removed by an RDMA CM DREQ (connection teardown)",
        labels: [],
      },
      () => removed[0]! - removedBase,
      () => {
        removedBase = removed[0]!;
      },
    );
    counter("ipcc_flows_aged", "RoCEv2 flow-table entries removed after aging out", "aged");
    counter("ipcc_flows_full", "RoCEv2 flows not learned because the table was full", "full");
  }

  configure(cfg: SwitchConfig): void {
    this.cfg = cfg.ipcc;
    this.watched.fill(0);
    for (const q of this.cfg.queues) this.watched[q] = 1;
    const ports = this.cfg.ports;
    for (const ps of this.ctx.portList) {
      this.watchedPort[ps.port] = ports === "all" || ports.includes(ps.cfg.name) ? 1 : 0;
    }
  }

  activeHooks(): readonly Hook[] {
    return this.cfg.enabled ? [Hook.Enqueued] : [];
  }

  /** Learns every queued RoCEv2 packet; the first one (after idle) starts the period timer. */
  enqueued(m: PacketMeta, now: Nanoseconds): void {
    if (m.bthOpcode < 0) return;
    this.flows.learn(m, now);
    if (!this.armed) {
      this.armed = true;
      this.ctx.env.arm(this.timer.id(0), now + this.cfg.period);
    }
  }

  private tick(now: Nanoseconds): void {
    this.armed = false;
    if (!this.cfg.enabled) return;
    if (now - this.lastSweep >= this.cfg.aging) {
      this.lastSweep = now;
      this.flows.table.sweep(now);
    }
    if (this.evaluate()) this.notify(now);
    if (this.flows.table.size > 0) {
      this.armed = true;
      this.ctx.env.arm(this.timer.id(0), now + this.cfg.period);
    }
  }

  /** Classifies every watched queue; true when some queue's case calls for CNPs. */
  private evaluate(): boolean {
    const { mmu, portList } = this.ctx;
    const curve = this.cfg.curve;
    const pool = mmu.sharedPoolBytes;
    let any = false;
    for (const ps of portList) {
      for (let q = 0; q < PRIORITIES; q++) {
        if (this.watched[q] === 0 || this.watchedPort[ps.port] === 0) continue;
        const i = ps.port * PRIORITIES + q;
        const depth = mmu.egressDepth(ps.port, q);
        const kase = ipccCase(depth, this.prevDepth[i]!, pool, curve);
        this.prevDepth[i] = depth;
        this.caseOf[i] = CASES.indexOf(kase);
        if (ipccCnpCount(kase, 1, curve) > 0) any = true;
        else this.caseOf[i] = 0;
      }
    }
    return any;
  }

  /** Counts each congested queue's active flows, then sends the CNPs its case calls for, round robin. */
  private notify(now: Nanoseconds): void {
    const f = this.flows;
    const cap = f.capacity;
    const active = this.cfg.active;
    this.activeFlows.fill(0);
    for (let s = 0; s < cap; s++) {
      if (!f.activeData(s, now, active)) continue;
      const i = f.outPort[s]! * PRIORITIES + f.queue[s]!;
      if (this.caseOf[i] !== 0) this.activeFlows[i]!++;
    }
    for (let i = 0; i < this.owed.length; i++) {
      this.owed[i] =
        this.caseOf[i] === 0
          ? 0
          : ipccCnpCount(CASES[this.caseOf[i]!]!, this.activeFlows[i]!, this.cfg.curve);
    }
    let last = -1;
    for (let n = 0; n < cap; n++) {
      const s = (this.cursor + n) % cap;
      if (!f.activeData(s, now, active)) continue;
      const i = f.outPort[s]! * PRIORITIES + f.queue[s]!;
      if (this.owed[i]! <= 0) continue;
      this.owed[i]!--;
      last = s;
      this.sendCnp(s, i, now);
    }
    if (last >= 0) this.cursor = (last + 1) % cap;
  }

  private sendCnp(s: number, i: number, now: Nanoseconds): void {
    const f = this.flows;
    const qp = f.senderQp(s, now);
    if (qp < 0) {
      this.cnpNoQp[i]!++;
      return;
    }
    const port = this.ctx.ports[f.inPort[s]!];
    if (port === undefined || !port.up) return;
    const frame = buildCnpFrame({
      srcMac: port.cfg.mac,
      dstMac: f.prevMac[s]!,
      srcIp: port.cfg.ip,
      dstIp: f.srcIp[s]!,
      udpSrcPort: f.udpPort[s]!,
      destQp: qp,
      dscp: this.cfg.dscp,
    });
    this.ctx.sendControl(port, frame, now);
    this.cnpSent[i]!++;
    const count = this.ctx.limiter.admit(this.keyBase + i, now);
    if (count > 0) {
      this.ctx.env.emit({
        kind: EventKind.CnpSent,
        port: Math.floor(i / PRIORITIES),
        priority: i % PRIORITIES,
        qp,
        count,
        detail: DETAIL[this.caseOf[i]!],
      });
    }
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly ipcc: IpccConfig;
  }
}

export const ipccFeature = defineFeature({
  key: "ipcc",
  doc:
    "IPCC (intelligent proactive congestion control, H3C): the switch keeps a RoCEv2 flow table keyed " +
    "(source IP, destination IP, Dest QP), learned from RDMA CM REQ/REP, first data packets and ACKs, and, per watched queue and period, sends the senders real RoCEv2 CNPs itself, as " +
    "many as the queue's length trend and buffer occupancy call for (four cases, a configurable curve).",
  settings,
  defaults: (): IpccConfig => ({
    enabled: false,
    queues: [3],
    ports: "all",
    period: 20_000,
    active: 100_000,
    aging: 1_000_000,
    flows: 1024,
    dscp: CNP_DEFAULT_DSCP,
    curve: {
      risingLow: 0.25,
      risingHigh: 1,
      fallingLow: 0,
      fallingHigh: 0.25,
      highOccupancy: 0.03,
      minDepth: 100_000,
      trendBytes: 4096,
    },
  }),
  apply: (c: IpccConfig, s): IpccConfig => ({
    ...overlay(c, { ...s, curve: undefined }),
    curve: overlay(c.curve, s.curve),
  }),
  create: (ctx) => new Ipcc(ctx),
});
