// AI ECN inside the switch (`ecn.ai`): per watched queue and period, the features H3C lists (queue
// depth mean and peak, output rate, marking rate, PFC pauses, the share of mice and elephant bytes) are
// sampled from the packets the WRED/ECN feature sees; then
//   local    the switch runs the controller (ai-ecn-controller.ts) and rewrites the queue's thresholds;
//   central  the switch only publishes the features (an `info` event per queue and period, detail
//            `{"aiEcn":"features",...}`), and the lab's analyser decides and pushes `ecn-thresholds`;
//   model    the switch matches the queue's traffic against patterns trained offline and takes the
//            thresholds of the one it resembles, or corrects online as local does (ai-ecn-model-mode.ts).
// Flows are told apart by their 5-tuple in a bounded flow table (lb/flow-table.ts). A flow is an elephant
// once it has carried traffic in `elephantPeriods` periods more than it has been silent (a leaky streak:
// mice finish within a period or two, elephants persist, even when DCQCN or a pause slows them for a
// while); the others are mice. The shares are of the period's bytes, smoothed over periods (EWMA, gain
// 1/2) so that one paused period does not swing the thresholds.

import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import type { Counter } from "../../device/counters.js";
import { CounterKind, Label } from "../../device/counters.js";
import type { TimerKind } from "../../device/timers.js";
import { FlowTable } from "../../lb/flow-table.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import type { EcnQueueConfig } from "../ecn.js";
import type { PacketMeta } from "../packet-meta.js";
import { AI_ECN_DEFAULTS, type AiEcnConfig, xoffBound } from "./ai-ecn-config.js";
import {
  type AiEcnControl,
  type AiEcnFeatures,
  type AiEcnState,
  aiEcnStep,
  safeThresholds,
  templateOf,
} from "./ai-ecn-controller.js";
import { AiEcnModelMode } from "./ai-ecn-model-mode.js";

export { AI_ECN_DEFAULTS, type AiEcnConfig, aiEcnSettings, applyAiEcn, xoffBound } from "./ai-ecn-config.js";

export class AiEcnTuner {
  private cfg: AiEcnConfig = AI_ECN_DEFAULTS;
  private switchCfg: SwitchConfig;
  private readonly flows: FlowTable;
  private readonly flowBytes: Float64Array;
  private readonly flowPeriod: Float64Array;
  private readonly flowQueue: Int8Array;
  private readonly flowPort: Int16Array;
  private readonly streak: Int16Array;
  private readonly miceEwma = new Float64Array(PRIORITIES).fill(-1);
  private readonly key = new Uint32Array(4);
  private readonly timer: TimerKind;
  private armed = false;
  private periodNo = 0;
  private readonly watched = new Uint8Array(PRIORITIES);
  private readonly state: AiEcnState[] = [];
  // Per (port, queue), this period.
  private readonly packets: Float64Array;
  private readonly bytes: Float64Array;
  private readonly marks: Float64Array;
  private readonly depthSum: Float64Array;
  private readonly peak: Float64Array;
  private readonly depthBefore: Float64Array;
  private readonly mice = new Float64Array(PRIORITIES);
  private readonly elephants = new Float64Array(PRIORITIES);
  private txPause: Counter | undefined;
  private readonly pausesBefore = new Float64Array(PRIORITIES);
  private readonly changes: Float64Array;
  // Model mode: per (port, queue) this period, flows seen and elephants among them; per queue, the busiest port.
  private readonly activeFlows: Float64Array;
  private readonly elephantFlows: Float64Array;
  private readonly modelPort = new Int16Array(PRIORITIES).fill(-1);
  private readonly load = new Float64Array(PRIORITIES);
  private readonly model: AiEcnModelMode;

  constructor(
    private readonly ctx: SwitchContext,
    private readonly write: (queue: number, t: EcnQueueConfig) => void,
  ) {
    this.switchCfg = ctx.config;
    const cap = ctx.config.ecn.ai.flows;
    this.flows = new FlowTable(cap, 4, 10 * ctx.config.ecn.ai.period);
    this.flowBytes = new Float64Array(cap);
    this.flowPeriod = new Float64Array(cap).fill(-1);
    this.flowQueue = new Int8Array(cap);
    this.flowPort = new Int16Array(cap);
    this.streak = new Int16Array(cap);
    const n = ctx.numPorts * PRIORITIES;
    this.packets = new Float64Array(n);
    this.bytes = new Float64Array(n);
    this.marks = new Float64Array(n);
    this.depthSum = new Float64Array(n);
    this.peak = new Float64Array(n);
    this.depthBefore = new Float64Array(n);
    this.activeFlows = new Float64Array(n);
    this.elephantFlows = new Float64Array(n);
    for (let q = 0; q < PRIORITIES; q++) this.state.push({ level: -1, offset: 0, quiet: 0 });
    this.timer = ctx.timers.register("ai-ecn-period", (_i, now) => this.tick(now));
    this.changes = ctx.counters.add({
      name: "ai_ecn_changes",
      kind: CounterKind.Counter,
      unit: "events",
      help: "ECN threshold changes AI ECN made (local and model modes)",
      labels: [],
    });
    ctx.counters.computed(
      {
        name: "ai_ecn_level",
        kind: CounterKind.Gauge,
        unit: "level",
        help: "AI ECN's current template level for the queue (0: shallowest; -1: not tuned yet)",
        labels: [Label.Port, Label.Queue],
      },
      (i) =>
        this.cfg.mode === "local" || this.cfg.mode === "model" ? this.state[i % PRIORITIES]!.level : -1,
    );
    this.model = new AiEcnModelMode(ctx);
  }

  get mode(): AiEcnConfig["mode"] {
    return this.cfg.mode;
  }

  configure(cfg: SwitchConfig): void {
    this.switchCfg = cfg;
    this.cfg = cfg.ecn.ai;
    this.watched.fill(0);
    for (const q of this.cfg.queues) this.watched[q] = 1;
  }

  /** A packet joined queue `m.queue` of `m.outPort` (after WRED/ECN decided whether to mark it). */
  enqueued(m: PacketMeta, now: Nanoseconds): void {
    const q = m.queue;
    if (this.watched[q] === 0 || m.outPort < 0) return;
    const i = m.outPort * PRIORITIES + q;
    const depth = this.ctx.mmu.egressDepth(m.outPort, q);
    this.packets[i]!++;
    this.bytes[i]! += m.length;
    this.depthSum[i]! += depth;
    if (depth > this.peak[i]!) this.peak[i] = depth;
    if (m.mark) this.marks[i]!++;
    const k = this.key;
    k[0] = m.srcIp;
    k[1] = m.dstIp;
    k[2] = m.srcPort;
    k[3] = (m.dstPort << 8) | m.protocol;
    const inserts = this.flows.counters.inserts;
    const s = this.flows.insert(k, now);
    if (s >= 0) {
      if (this.flows.counters.inserts !== inserts) this.streak[s] = 0;
      if (this.flowPeriod[s] !== this.periodNo) {
        this.flowPeriod[s] = this.periodNo;
        this.flowBytes[s] = 0;
      }
      this.flowBytes[s]! += m.length;
      this.flowQueue[s] = q;
      this.flowPort[s] = m.outPort;
    }
    if (!this.armed) {
      this.armed = true;
      this.ctx.env.arm(this.timer.id(0), now + this.cfg.period);
    }
  }

  private tick(now: Nanoseconds): void {
    this.armed = false;
    if (this.cfg.mode === "off") return;
    this.shares();
    let traffic = false;
    for (let q = 0; q < PRIORITIES; q++) {
      if (this.watched[q] === 0) continue;
      const f = this.features(q);
      if (f.packets > 0) traffic = true;
      if (this.cfg.mode === "local") this.decide(q, f);
      else if (this.cfg.mode === "model") this.decideModel(q, f);
      else this.publish(q, f);
    }
    this.packets.fill(0);
    this.bytes.fill(0);
    this.marks.fill(0);
    this.depthSum.fill(0);
    this.peak.fill(0);
    this.periodNo++;
    if (traffic) {
      this.armed = true;
      this.ctx.env.arm(this.timer.id(0), now + this.cfg.period);
    }
  }

  /** Mice and elephant bytes of the period, per queue. */
  private shares(): void {
    this.mice.fill(0);
    this.elephants.fill(0);
    this.activeFlows.fill(0);
    this.elephantFlows.fill(0);
    for (let s = 0; s < this.flows.capacity; s++) {
      const pq = this.flowPort[s]! * PRIORITIES + this.flowQueue[s]!;
      if (this.flowPeriod[s] !== this.periodNo) {
        if (this.streak[s]! > 0) this.streak[s]!--;
        // Model mode's flow counts: a flow held back by PFC still counts within the flow table's aging
        // window (ten periods), an elephant while its streak lasts.
        const seen = this.flowPeriod[s]!;
        if (seen >= 0 && this.periodNo - seen <= 10) this.activeFlows[pq]!++;
        if (this.streak[s]! >= this.cfg.elephantPeriods) this.elephantFlows[pq]!++;
        continue;
      }
      if (this.streak[s]! < 1000) this.streak[s]!++;
      const b = this.flowBytes[s]!;
      this.activeFlows[pq]!++;
      if (this.streak[s]! >= this.cfg.elephantPeriods) {
        this.elephants[this.flowQueue[s]!]! += b;
        this.elephantFlows[pq]!++;
      } else this.mice[this.flowQueue[s]!]! += b;
    }
  }

  private features(q: number): AiEcnFeatures {
    const { mmu, portList } = this.ctx;
    let packets = 0;
    let depthSum = 0;
    let peak = 0;
    let marks = 0;
    let busiest = -1;
    let busiestBytes = -1;
    let out = 0;
    let mostSent = -1;
    for (const ps of portList) {
      const i = ps.port * PRIORITIES + q;
      const depth = mmu.egressDepth(ps.port, q);
      packets += this.packets[i]!;
      depthSum += this.depthSum[i]!;
      marks += this.marks[i]!;
      if (this.peak[i]! > peak) peak = this.peak[i]!;
      const sent = this.bytes[i]! - (depth - this.depthBefore[i]!);
      this.depthBefore[i] = depth;
      if (this.bytes[i]! > busiestBytes) {
        busiestBytes = this.bytes[i]!;
        busiest = ps.port;
        out = (sent * 8 * 1e9) / (this.cfg.period * ps.cfg.rateBps);
      }
      // Model mode looks at the port that sent the most (the busiest by arrivals may be an idle one while
      // PFC holds the congested port's senders back); its demand is what arrived plus the backlog left.
      if (sent > mostSent) {
        mostSent = sent;
        this.modelPort[q] = ps.port;
        this.load[q] = ((this.bytes[i]! + depth) * 8 * 1e9) / (this.cfg.period * ps.cfg.rateBps);
      }
    }
    const total = this.mice[q]! + this.elephants[q]!;
    if (total > 0) {
      const share = this.mice[q]! / total;
      const e = this.miceEwma[q]!;
      this.miceEwma[q] = e < 0 ? share : (e + share) / 2;
    }
    const mice = Math.max(0, this.miceEwma[q]!);
    return {
      packets,
      meanDepth: packets > 0 ? depthSum / packets : 0,
      peakDepth: peak,
      utilisation: busiest < 0 ? 0 : Math.min(1, Math.max(0, out)),
      markRate: packets > 0 ? marks / packets : 0,
      pauses: this.pausesOf(q),
      miceShare: total > 0 ? mice : 0,
      elephantShare: total > 0 ? 1 - mice : 0,
    };
  }

  /** XOFF frames the switch sent, over all ports, for the priorities of queue `q`, since the last period. */
  private pausesOf(q: number): number {
    this.txPause ??= this.ctx.counters.find("tx_prio_pause");
    const c = this.txPause;
    if (c === undefined) return 0;
    let n = 0;
    const map = this.switchCfg.qos.priorityToQueue;
    for (const ps of this.ctx.portList) {
      for (let p = 0; p < PRIORITIES; p++) {
        if (map[p] === q) n += this.ctx.counters.read(c, ps.port * PRIORITIES + p, 0);
      }
    }
    const delta = Math.max(0, n - this.pausesBefore[q]!);
    this.pausesBefore[q] = n;
    return delta;
  }

  private decide(q: number, f: AiEcnFeatures): void {
    if (f.packets === 0) return;
    const s = this.state[q]!;
    const first = s.level < 0;
    if (first) s.level = Math.round(f.elephantShare * (this.cfg.levels - 1));
    const reason = aiEcnStep(f, s, this.cfg);
    if (reason === null && !first) return;
    const t = safeThresholds(
      templateOf(s.level, this.cfg),
      xoffBound(this.switchCfg, this.ctx.mmu.sharedPoolBytes),
      this.cfg.safety,
    );
    this.write(q, t);
    this.changes[0]!++;
    this.ctx.env.emit({
      kind: EventKind.Info,
      priority: q,
      value: t.kmax,
      detail:
        `ai-ecn queue ${q} level ${s.level}: kmin ${t.kmin} kmax ${t.kmax} pmax ${t.pmax.toFixed(2)} ` +
        `(${reason ?? "first decision"}; mice ${(f.miceShare * 100).toFixed(0)} %, ` +
        `util ${(f.utilisation * 100).toFixed(0)} %, pauses ${f.pauses})`,
    });
  }

  private decideModel(q: number, f: AiEcnFeatures): void {
    const b = this.modelPort[q]!;
    const i = b < 0 ? -1 : b * PRIORITIES + q;
    const d = this.model.decide(
      q,
      f,
      {
        elephantFlows: i < 0 ? 0 : this.elephantFlows[i]!,
        activeFlows: i < 0 ? 0 : this.activeFlows[i]!,
        elephantShare: f.elephantShare,
        load: b < 0 ? 0 : this.load[q]!,
      },
      this.state[q]!,
      this.cfg,
      xoffBound(this.switchCfg, this.ctx.mmu.sharedPoolBytes),
    );
    if (d === null) return;
    const t = d.thresholds;
    this.write(q, t);
    this.changes[0]!++;
    this.ctx.env.emit({
      kind: EventKind.Info,
      priority: q,
      value: t.kmax,
      detail: `ai-ecn model queue ${q}: kmin ${t.kmin} kmax ${t.kmax} pmax ${t.pmax.toFixed(2)} (${d.reason})`,
    });
  }

  /** The controller's knobs, handed to the central analyser with the features. */
  private control(): AiEcnControl {
    const c = this.cfg;
    return {
      levels: c.levels,
      low: c.low,
      high: c.high,
      utilTarget: c.utilTarget,
      maxOffset: c.maxOffset,
      decayPeriods: c.decayPeriods,
      safety: c.safety,
      wDelay: c.wDelay,
      wPfc: c.wPfc,
    };
  }

  private publish(q: number, f: AiEcnFeatures): void {
    if (f.packets === 0) return;
    this.ctx.env.emit({
      kind: EventKind.Info,
      priority: q,
      detail: JSON.stringify({
        aiEcn: "features",
        queue: q,
        xoff: xoffBound(this.switchCfg, this.ctx.mmu.sharedPoolBytes),
        features: f,
        control: this.control(),
      }),
    });
  }
}
