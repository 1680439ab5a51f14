// Elephant/mice differentiated scheduling (H3C RoCE overview §1.4.3.3; H3C's and Huawei's "elephant flow"
// identification by flow rate and size): every packet of the subject priorities is counted against its
// flow (5-tuple and RoCEv2 Dest QP) in a bounded, aging flow table (lb/flow-table.ts). A flow becomes an
// elephant once it has carried `size` bytes and sent at least `rate` over one `window`; from then on, until
// its entry ages out, the configured actions apply to its packets. The document's three (H3C RoCE
// overview §1.4.3.3: "drop precedence, local precedence or dot1q priority"; the actions of H3C Comware's
// QoS traffic behaviours `remark drop-precedence`, `remark local-precedence`, `remark dot1p`, and
// `remark dscp`):
//   * local precedence: the egress `queue`;
//   * 802.1p priority: with `dot1p` set, the packet's 802.1p priority becomes `dot1p` and its egress queue
//     is the one qos.priorityToQueue gives that priority (the document: "mapped to a queue by local
//     precedence or dot1q priority"; `queue` is then not used). An 802.1Q-tagged frame leaves with the new
//     PCP; the routed ports of this fabric send untagged frames, so past this switch the remark lives on
//     only through `dscp`;
//   * DSCP: with `dscp` set, the packet leaves with that DSCP (incremental IPv4 checksum; the RoCEv2 ICRC
//     masks the traffic class), so the next switches, which trust DSCP, classify it by the new value;
//   * drop precedence: yellow with `dropPrecedence: yellow`.
// Mice keep the queue their priority gives them.
//
// A yellow packet of a lossy priority meets a lower dynamic egress threshold than green traffic
// (`yellowAlpha` × free shared buffer instead of `buffer.lossyAlpha` ×): under congestion the switch drops
// elephants first. The adaptive buffer (adaptive-buffer.ts) puts yellow packets under WRED as well.
//
// Lossless priorities: the ingress priority group stays the packet's priority (PFC accounting does not
// change), and the elephant queue is paused together with the priorities whose elephants it carries, so a
// PFC from downstream still stops them: remapping never turns a lossless flow lossy.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import { CounterKind, Label } from "../../device/counters.js";
import { duration, overlay, rate, ratio, size } from "../../device/setting-units.js";
import { FlowTable } from "../../lb/flow-table.js";
import { ipToString } from "../../wire/bytes.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { SwitchCounter } from "../counter-defs.js";
import { DropReason } from "../drops.js";
import { type PacketMeta, Verdict } from "../packet-meta.js";
import type { SwitchPort } from "../port.js";
import type { ElephantFlow, SwitchDetail } from "../stats-types.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";

export const DropPrecedence = {
  Green: "green",
  Yellow: "yellow",
} as const;
export type DropPrecedence = (typeof DropPrecedence)[keyof typeof DropPrecedence];

const priority = z.number().int().min(0).max(7);
const settings = z
  .object({
    enabled: z.boolean().optional(),
    rate: rate.optional(),
    size: size.optional(),
    window: duration.optional(),
    queue: priority.optional(),
    dropPrecedence: z.enum(["green", "yellow"]).optional(),
    dot1p: priority.nullable().optional(),
    dscp: z.number().int().min(0).max(63).nullable().optional(),
    yellowAlpha: ratio.optional(),
    priorities: z.array(priority).optional(),
    tableSize: z.number().int().min(1).max(1_000_000).optional(),
    aging: duration.optional(),
  })
  .strict();

export interface ElephantConfig {
  readonly enabled: boolean;
  /** An elephant sends at least this rate (bits/s) over one window... */
  readonly rate: number;
  /** ...and has carried at least this many bytes. */
  readonly size: number;
  /** Rate measurement window, ns. */
  readonly window: Nanoseconds;
  /** Egress queue of elephants. */
  readonly queue: number;
  readonly dropPrecedence: DropPrecedence;
  /** 802.1p priority elephants are remarked to (their queue follows it), or null: not remarked. */
  readonly dot1p: number | null;
  /** DSCP elephants leave with, or null: not remarked. */
  readonly dscp: number | null;
  /** Dynamic-threshold α of yellow packets of lossy priorities. */
  readonly yellowAlpha: number;
  /** Ingress priorities whose flows are classified. */
  readonly priorities: readonly number[];
  /** Flows tracked at once, and how long a silent flow is remembered. */
  readonly tableSize: number;
  readonly aging: Nanoseconds;
}

const KEY_WORDS = 4;
/** Flows a stats reply lists at most (the biggest). */
const DESCRIBE_LIMIT = 1024;

class Elephant implements SwitchFeature {
  readonly name = "elephant";
  private cfg!: ElephantConfig;
  private table: FlowTable | null = null;
  private total = new Float64Array(0);
  private windowStart = new Float64Array(0);
  private windowBytes = new Float64Array(0);
  private isElephant = new Uint8Array(0);
  private readonly key = new Uint32Array(KEY_WORDS);
  private subject = 0;
  private windowThreshold = 0;
  private yellow = false;
  /** The elephants' egress queue: `queue`, or the queue of the remarked 802.1p priority. */
  private queue = 0;
  private remarkDot1p = -1;
  private remarkDscp = -1;
  private readonly detected: Float64Array;
  private readonly elephantBytes: Float64Array;
  private readonly miceBytes: Float64Array;
  private readonly yellowDropped: Float64Array;
  private readonly remarked: Float64Array;

  constructor(private readonly ctx: SwitchContext) {
    const c = ctx.counters;
    this.detected = c.add(SwitchCounter.elephantFlowsDetected);
    const bytes = (name: string, help: string) =>
      c.add({ name, kind: CounterKind.Counter, unit: "bytes", help, labels: [Label.Port] });
    this.elephantBytes = bytes("elephant_bytes", "bytes of elephant flows received on the port");
    this.miceBytes = bytes("mice_bytes", "bytes of mice (classified, not elephant) received on the port");
    this.yellowDropped = c.add({
      name: "yellow_dropped",
      kind: CounterKind.Counter,
      unit: "packets",
      help: "yellow (elephant) packets dropped at their lower egress threshold",
      labels: [Label.Port, Label.Queue],
    });
    this.remarked = c.add(SwitchCounter.elephantRemarked);
    c.computed(SwitchCounter.elephantTableFlows, () => this.table?.size ?? 0);
  }

  configure(cfg: SwitchConfig): void {
    const prev = this.cfg;
    this.cfg = cfg.elephant;
    const e = cfg.elephant;
    this.subject = 0;
    for (const p of e.priorities) this.subject |= 1 << p;
    this.windowThreshold = (e.rate * e.window) / 8e9;
    this.yellow = e.dropPrecedence === DropPrecedence.Yellow;
    this.remarkDot1p = e.dot1p ?? -1;
    this.remarkDscp = e.dscp ?? -1;
    this.queue = e.dot1p === null ? e.queue : cfg.qos.priorityToQueue[e.dot1p]!;
    if (!e.enabled) {
      this.table = null;
      return;
    }
    if (this.table === null || prev.tableSize !== e.tableSize || prev.aging !== e.aging) {
      this.table = new FlowTable(e.tableSize, KEY_WORDS, e.aging);
      this.total = new Float64Array(e.tableSize);
      this.windowStart = new Float64Array(e.tableSize);
      this.windowBytes = new Float64Array(e.tableSize);
      this.isElephant = new Uint8Array(e.tableSize);
    }
  }

  activeHooks(): readonly Hook[] {
    if (!this.cfg.enabled) return [];
    return this.yellow
      ? [Hook.Classified, Hook.Admit, Hook.PauseChanged]
      : [Hook.Classified, Hook.PauseChanged];
  }

  classified(m: PacketMeta, now: Nanoseconds): void {
    if (!((this.subject >> m.pg) & 1) || m.inPort < 0) return;
    const table = this.table!;
    const k = this.key;
    k[0] = m.srcIp;
    k[1] = m.dstIp;
    k[2] = ((m.srcPort << 16) | m.dstPort) >>> 0;
    k[3] = ((m.protocol << 24) | (m.destQp & 0xff_ffff)) >>> 0;
    let s = table.lookup(k, now);
    if (s < 0) {
      s = table.insert(k, now);
      if (s < 0) {
        this.miceBytes[m.inPort]! += m.length;
        return;
      }
      this.total[s] = 0;
      this.windowStart[s] = now;
      this.windowBytes[s] = 0;
      this.isElephant[s] = 0;
    }
    this.total[s]! += m.length;
    if (now - this.windowStart[s]! >= this.cfg.window) {
      this.windowStart[s] = now;
      this.windowBytes[s] = 0;
    }
    this.windowBytes[s]! += m.length;
    if (
      this.isElephant[s] === 0 &&
      this.total[s]! >= this.cfg.size &&
      this.windowBytes[s]! >= this.windowThreshold
    ) {
      this.isElephant[s] = 1;
      this.detected[0]!++;
      this.ctx.env.emit({
        kind: EventKind.Info,
        port: m.inPort,
        priority: m.pg,
        detail: `elephant ${ipToString(m.srcIp)}:${m.srcPort} -> ${ipToString(m.dstIp)}:${m.dstPort}${m.destQp >= 0 ? ` qp ${m.destQp}` : ""}: to queue ${this.queue}${this.yellow ? ", yellow" : ""}${this.remarkText()}`,
      });
    }
    if (this.isElephant[s] === 1) {
      this.elephantBytes[m.inPort]! += m.length;
      m.queue = this.queue;
      m.yellow = this.yellow;
      if (this.remarkDot1p >= 0 || this.remarkDscp >= 0) {
        m.remarkDot1p = this.remarkDot1p;
        m.remarkDscp = this.remarkDscp;
        this.remarked[m.inPort]!++;
      }
    } else {
      this.miceBytes[m.inPort]! += m.length;
    }
  }

  private remarkText(): string {
    const dot1p = this.remarkDot1p >= 0 ? `, 802.1p ${this.remarkDot1p}` : "";
    return this.remarkDscp >= 0 ? `${dot1p}, dscp ${this.remarkDscp}` : dot1p;
  }

  describe(now: Nanoseconds): SwitchDetail {
    const table = this.table;
    if (table === null || table.size === 0) return {};
    const flows: ElephantFlow[] = table.liveSlots(now).map((s) => {
      const ports = table.keyWord(s, 2);
      const last = table.keyWord(s, 3);
      const qp = last & 0xff_ffff;
      return {
        srcIp: table.keyWord(s, 0),
        dstIp: table.keyWord(s, 1),
        srcPort: ports >>> 16,
        dstPort: ports & 0xffff,
        protocol: last >>> 24,
        destQp: qp === 0xff_ffff ? -1 : qp,
        bytes: this.total[s]!,
        elephant: this.isElephant[s] === 1,
      };
    });
    flows.sort((a, b) => b.bytes - a.bytes || a.srcIp - b.srcIp || a.destQp - b.destQp);
    return { elephants: flows.slice(0, DESCRIBE_LIMIT) };
  }

  /** Yellow packets of lossy priorities: a lower dynamic egress threshold. */
  admit(m: PacketMeta, now: Nanoseconds): boolean {
    if (!m.yellow) return true;
    const mmu = this.ctx.mmu;
    if (mmu.pfcProtected(m.pg)) return true;
    const limit =
      this.cfg.yellowAlpha * (mmu.sharedPoolBytes - mmu.sharedUsed) + this.ctx.config.buffer.reserve;
    if (mmu.egressDepth(m.outPort, m.queue) + m.length <= limit) return true;
    this.yellowDropped[m.outPort * PRIORITIES + m.queue]!++;
    this.ctx.drops.drop(DropReason.Yellow, m.lossless, m.inPort, m.outPort, m.queue, now);
    m.verdict = Verdict.Drop;
    return false;
  }

  pauseChanged(port: number): void {
    const ps = this.ctx.ports[port];
    if (ps !== undefined) this.pauseElephantQueue(ps);
  }

  reconfigurePort(ps: SwitchPort): void {
    if (this.cfg.enabled) this.pauseElephantQueue(ps);
  }

  /** The elephant queue stops while any lossless subject priority it carries is paused. */
  private pauseElephantQueue(ps: SwitchPort): void {
    const lossless = this.subject & ps.pausedPriorities & losslessBits(this.ctx.config.qos.lossless);
    if (lossless !== 0) ps.pausedQueues |= 1 << this.queue;
  }
}

function losslessBits(list: readonly number[]): number {
  let mask = 0;
  for (const p of list) mask |= 1 << p;
  return mask;
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly elephant: ElephantConfig;
  }
}

export const elephantFeature = defineFeature({
  key: "elephant",
  doc:
    "Elephant/mice differentiated scheduling (H3C RoCE overview §1.4.3.3): flows of the subject " +
    "priorities are tracked in an aging flow table; a flow that has carried `size` bytes and sent `rate` " +
    "over one `window` is an elephant, and its packets go to `queue` (or, remarked to 802.1p `dot1p`, to " +
    "that priority's queue), leave with DSCP `dscp` if set, and carry drop precedence " +
    "`dropPrecedence` (yellow packets of lossy priorities may fill only `yellowAlpha` × free shared " +
    "buffer). Lossless elephants keep their priority group, and their queue pauses with it.",
  settings,
  defaults: (): ElephantConfig => ({
    enabled: false,
    // "Elephants: 10 % of flows, 85 % of bytes" (H3C RoCE overview §1.4.3.3): a flow past 1 MB
    // sending at 10 Gb/s or more.
    rate: 10e9,
    size: 1_000_000,
    window: 100_000,
    queue: 1,
    dropPrecedence: DropPrecedence.Yellow,
    dot1p: null,
    dscp: null,
    yellowAlpha: 1,
    priorities: [0, 3],
    tableSize: 4096,
    aging: 1_000_000,
  }),
  apply: (c: ElephantConfig, s) => overlay(c, s as Partial<ElephantConfig>),
  create: (ctx) => new Elephant(ctx),
});
