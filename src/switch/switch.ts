// The switch: an L3 leaf/spine router with a shared-buffer MMU, PFC, ECN/WRED, strict-priority and DWRR
// scheduling and ECMP, as a pure Device (device/contract.ts): the same object runs in the simulator and
// inside a live switch process. This file is the shell — ports, the order of the stages, timer and command
// dispatch. The data path reads top to bottom (docs/architecture.md):
//
//   parse → [ingress] → classify → [classified] → forward (route + LB strategy) → admit ([admit], MMU)
//   → egress queue → [enqueued] … schedule → [dequeued] → rewrite → port
//
// Bracketed names are feature hooks (features/feature.ts); the features are listed in features/registry.ts.

import type { Device, DeviceEnv, Nanoseconds, TimerId } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import { CounterKind, CounterSet, Label } from "../device/counters.js";
import { EventLimiter } from "../device/event-limiter.js";
import { PortCounter } from "../device/l2/port-counters.js";
import { TimerRegistry } from "../device/timers.js";
import type { LagSelector } from "../lb/lag-group.js";
import type { LbOverride } from "../lb/path-table.js";
import type { LbStrategy } from "../lb/strategy.js";
import { PRIORITIES } from "../wire/pfc.js";
import type { Route, SwitchConfig, SwitchTunables } from "./config.js";
import type { SwitchContext } from "./context.js";
import { ArpAgent, type ArpHost, type HeldPacket } from "./control/arp.js";
import { IcmpAgent } from "./control/icmp.js";
import { DROP_REASONS, DropReason, SwitchDrops } from "./drops.js";
import type { FeatureCommand, FeatureModule, FeatureReply, SwitchFeature } from "./features/feature.js";
import { HookSet } from "./features/hooks.js";
import { FEATURE_MODULES, type FeatureCommands } from "./features/registry.js";
import { Fib } from "./fib.js";
import { Mmu } from "./mmu.js";
import { FrameKind, PacketMeta } from "./packet-meta.js";
import { PauseOverrun } from "./pause-overrun.js";
import { PfcOverride } from "./pfc-override.js";
import { declareTxCounters, SwitchPort } from "./port.js";
import { EgressScheduler } from "./scheduler.js";
import { Admission } from "./stages/admit.js";
import { Classifier } from "./stages/classify.js";
import { Egress } from "./stages/egress.js";
import { Forwarder } from "./stages/forward.js";
import { parseFrame, parseIpv4 } from "./stages/parse.js";
import { SwitchStatsView } from "./stats.js";
import type { SwitchDetail, SwitchStats } from "./stats-types.js";

export type SwitchCommand =
  /** Replace whole sections of the run-time configuration (each given section is complete). */
  | { readonly type: "configure"; readonly tunables: Partial<SwitchTunables> }
  /** Install a new routing table (the lab recomputes it after a topology change). */
  | { readonly type: "set-routes"; readonly routes: readonly Route[] }
  | { readonly type: "clear-counters" }
  | FeatureCommands;

export type SwitchReply = FeatureReply;

/** At most one drop/mark event per (port, queue, kind) per this interval. */
const EVENT_INTERVAL_NS = 10_000;
/** Where a frame the switch originates has its IPv4 header. */
const ORIGINATED_L3 = 14;

export class Switch implements Device<SwitchCommand, SwitchReply, SwitchStats>, SwitchContext, ArpHost {
  readonly name: string;
  readonly ports: (SwitchPort | undefined)[] = [];
  readonly portList: SwitchPort[] = [];
  readonly numPorts: number;
  readonly mmu: Mmu;
  readonly counters: CounterSet;
  readonly timers = new TimerRegistry();
  readonly limiter = new EventLimiter(EVENT_INTERVAL_NS);
  readonly drops: SwitchDrops;
  readonly pfcOverride: PfcOverride;
  readonly pauseOverrun = new PauseOverrun();
  private cfg: SwitchConfig;
  private readonly features: SwitchFeature[];
  private readonly hooks = new HookSet();
  private readonly fib: Fib;
  private readonly classifier = new Classifier();
  private readonly forwarder: Forwarder;
  private readonly admission: Admission;
  private readonly egress: Egress;
  private readonly arp: ArpAgent;
  private readonly icmp: IcmpAgent;
  private readonly statsView: SwitchStatsView;
  /** The packet being received, and packets the switch originates or releases after ARP. */
  private readonly rx = new PacketMeta();
  private readonly own = new PacketMeta();
  private readonly localIps = new Set<number>();
  private readonly rxPackets: Float64Array;
  private readonly rxBytes: Float64Array;
  private readonly rxNotForUs: Float64Array;
  private lags: LagSelector | null = null;

  /** `modules`: the feature modules to run (default: all of features/registry.ts). */
  constructor(
    config: SwitchConfig,
    readonly env: DeviceEnv,
    modules: readonly FeatureModule[] = FEATURE_MODULES,
  ) {
    this.name = config.name;
    this.cfg = config;
    this.numPorts = Math.max(0, ...config.ports.map((p) => p.port)) + 1;
    this.counters = new CounterSet({
      [Label.Port]: this.numPorts,
      [Label.Priority]: PRIORITIES,
      [Label.Queue]: PRIORITIES,
      [Label.Reason]: DROP_REASONS.length,
    });
    const txTimer = this.timers.register("tx", (port, now) => this.ports[port]?.tx.onTimer(now));
    for (const p of config.ports) {
      const ps: SwitchPort = new SwitchPort(p, env, txTimer.id(p.port), new EgressScheduler(), (now) =>
        this.egress.pull(ps, now),
      );
      this.ports[p.port] = ps;
      this.portList.push(ps);
      this.localIps.add(p.ip);
    }
    this.rxPackets = this.counters.add(PortCounter.rxPackets);
    this.rxBytes = this.counters.add(PortCounter.rxBytes);
    declareTxCounters(this.counters, this.ports, this.portList);
    this.rxNotForUs = this.counters.add({
      name: "rx_not_for_us",
      kind: CounterKind.Counter,
      unit: "frames",
      help: "frames not addressed to the port, or of a protocol the switch does not run",
      labels: [],
    });
    this.mmu = new Mmu(this.numPorts, config.buffer, config.pfc, new Array(this.numPorts).fill(0), 0);
    this.drops = new SwitchDrops(this.counters, this.limiter, env, this.numPorts);
    this.pfcOverride = new PfcOverride(this.numPorts);
    this.fib = new Fib(config.routes, (p) => {
      const up = this.ports[p]?.up ?? false;
      return this.lags === null ? up : this.lags.hopUp(p, up);
    });
    this.forwarder = new Forwarder(this.fib);
    this.admission = new Admission(this.mmu, this.drops, this.hooks, this.pauseOverrun);
    this.egress = new Egress(this.ports, this.mmu, this.drops, this.hooks, this.classifier, this.counters);
    this.features = modules.map((m) => m.create(this));
    this.arp = new ArpAgent(this, env, this.timers, this.counters);
    this.icmp = new IcmpAgent((frame, now) => this.originate(frame, now), this.counters);
    this.statsView = new SwitchStatsView(this.counters);
    this.applyConfig(0);
  }

  get config(): SwitchConfig {
    return this.cfg;
  }

  start(now: Nanoseconds): void {
    for (const p of this.portList) this.arp.resolvePeer(p, now);
    for (const f of this.features) f.start?.(now);
  }

  // ---------------------------------------------------------------------------------------------------
  // The data path

  receive(port: number, frame: Uint8Array, now: Nanoseconds, verified = false): void {
    const ps = this.ports[port];
    if (!ps?.up) return;
    this.rxPackets[port]!++;
    this.rxBytes[port]! += frame.length;
    const m = this.rx;
    const kind = parseFrame(m, frame, port, ps.cfg.mac);
    m.verified = verified;
    const ingress = this.hooks.ingress;
    for (let i = 0; i < ingress.length; i++) if (!ingress[i]!.ingress!(m, now)) return;
    if (kind !== FrameKind.Ipv4) {
      this.receiveOther(ps, m, now);
      return;
    }
    if (this.localIps.has(m.dstIp)) {
      this.icmp.receiveLocal(ps, m, now);
      return;
    }
    this.classifier.classify(m);
    const classified = this.hooks.classified;
    for (let i = 0; i < classified.length; i++) classified[i]!.classified!(m, now);
    if (m.ttl <= 1) {
      // An expired TTL is a diagnostic (traceroute), never a broken lossless promise.
      this.drops.drop(DropReason.TtlExpired, false, port, -1, -1, now);
      this.icmp.timeExceeded(ps, m, now);
      return;
    }
    this.forward(m, now);
  }

  /** Routes a packet (received, or originated when `m.inPort` < 0), then admits and queues it. */
  private forward(m: PacketMeta, now: Nanoseconds): void {
    if (!this.forwarder.route(m, now)) {
      // Unroutable non-RoCE packets are garbage, not traffic the lossless class should have kept.
      this.drops.drop(DropReason.NoRoute, m.lossless && m.bthOpcode >= 0, m.inPort, -1, -1, now);
      return;
    }
    if (!this.ports[m.outPort]!.up) {
      // Only a path-navigation entry not yet refreshed after its port failed routes here (lb/path-table.ts).
      this.drops.drop(DropReason.LinkDown, false, m.inPort, m.outPort, -1, now);
      return;
    }
    const mac = this.arp.lookup(m.nextHopIp, m.outPort);
    if (mac < 0) {
      this.arp.hold(m, now);
      return;
    }
    m.nextHopMac = mac;
    if (this.admission.admit(m, now)) this.egress.enqueue(m, now);
  }

  private receiveOther(ps: SwitchPort, m: PacketMeta, now: Nanoseconds): void {
    if (m.kind === FrameKind.Malformed) this.drops.drop(DropReason.Malformed, false, ps.port, -1, -1, now);
    else if (m.kind === FrameKind.Arp) this.arp.receive(ps, m.frame, m.l3, now);
    else this.rxNotForUs[0]!++;
  }

  /** A frame the switch built (ICMP): routed like a received packet, at the control priority. */
  private originate(frame: Uint8Array, now: Nanoseconds): void {
    const m = this.own;
    m.reset(frame, -1);
    parseIpv4(m, ORIGINATED_L3);
    this.classifier.setPriority(m, this.classifier.controlPriority);
    this.forward(m, now);
  }

  // ArpHost
  sendControl(port: SwitchPort, frame: Uint8Array, now: Nanoseconds): void {
    this.egress.sendControl(port, frame, now);
  }

  release(pkt: HeldPacket, port: number, mac: number, now: Nanoseconds): void {
    const m = this.own;
    m.reset(pkt.frame, pkt.inPort);
    parseIpv4(m, pkt.l3);
    this.classifier.setPriority(m, pkt.pg);
    m.outPort = port;
    m.nextHopMac = mac;
    if (this.admission.admit(m, now)) this.egress.enqueue(m, now);
  }

  // SwitchContext
  setStrategy(strategy: LbStrategy): void {
    this.forwarder.setStrategy(strategy);
  }

  /** The load-balancing strategy the forward stage uses now. */
  get strategy(): LbStrategy | null {
    return this.forwarder.currentStrategy;
  }

  setOverride(override: LbOverride | null): void {
    this.forwarder.setOverride(override);
  }

  setLags(lags: LagSelector | null): void {
    this.lags = lags;
    this.forwarder.setLags(lags);
    this.fib.invalidate();
  }

  nextHopsChanged(): void {
    this.fib.invalidate();
  }

  enqueueBridged(m: PacketMeta, now: Nanoseconds): boolean {
    if (!this.admission.charge(m, now)) return false;
    this.egress.enqueue(m, now);
    return true;
  }

  pauseChanged(port: number, priority: number, paused: boolean, now: Nanoseconds): void {
    const ps = this.ports[port]!;
    if (paused) ps.pausedPriorities |= 1 << priority;
    else ps.pausedPriorities &= ~(1 << priority);
    ps.updatePausedQueues(this.cfg.qos.priorityToQueue);
    const hooks = this.hooks.pauseChanged;
    for (let i = 0; i < hooks.length; i++) hooks[i]!.pauseChanged!(port, priority, paused, now);
    if (!paused) ps.tx.kick(now);
  }

  flushQueue(port: number, queue: number, reason: DropReason, now: Nanoseconds): number {
    const ps = this.ports[port];
    return ps === undefined ? 0 : this.egress.flushQueue(ps, queue, reason, now);
  }

  // ---------------------------------------------------------------------------------------------------
  // Timers, link state, commands, stats

  fire(timer: TimerId, now: Nanoseconds): void {
    this.timers.fire(timer, now);
  }

  setLinkState(port: number, up: boolean, now: Nanoseconds): void {
    const ps = this.ports[port];
    if (!ps || ps.up === up) return;
    ps.up = up;
    this.fib.invalidate();
    if (up) {
      ps.tx.setUp(true, now);
      this.env.emit({ kind: EventKind.LinkUp, port });
      for (const f of this.features) f.linkChanged?.(ps, true, now);
      this.arp.resolvePeer(ps, now);
      return;
    }
    this.env.emit({ kind: EventKind.LinkDown, port });
    if (ps.tx.setUp(false, now) !== null) this.drops.drop(DropReason.LinkDown, false, -1, port, -1, now);
    ps.control.drain();
    this.egress.flush(ps, now);
    for (const f of this.features) f.linkChanged?.(ps, false, now);
    this.arp.forgetPort(port);
  }

  command(cmd: SwitchCommand, now: Nanoseconds): SwitchReply {
    switch (cmd.type) {
      case "set-routes":
        this.cfg = { ...this.cfg, routes: cmd.routes };
        this.fib.setRoutes(cmd.routes);
        return { ok: true };
      case "configure":
        this.cfg = { ...this.cfg, ...cmd.tunables };
        this.applyConfig(now);
        for (const ps of this.portList) ps.tx.kick(now);
        return { ok: true };
      case "clear-counters":
        this.counters.clear();
        return { ok: true };
      default:
        return this.featureCommand(cmd, now);
    }
  }

  private featureCommand(cmd: FeatureCommand, now: Nanoseconds): SwitchReply {
    for (const f of this.features) {
      const reply = f.command?.(cmd, now);
      if (reply !== undefined) return reply;
    }
    return { ok: false, error: `unknown switch command ${cmd.type}` };
  }

  /** Hands the configuration to the stages and features, rebuilds the hook arrays, aligns every port. */
  private applyConfig(now: Nanoseconds): void {
    this.classifier.configure(this.cfg.qos);
    for (const f of this.features) f.configure(this.cfg, now);
    this.hooks.collect(this.features);
    for (const ps of this.portList) for (const f of this.features) f.reconfigurePort?.(ps, now);
  }

  /** High-water marks (queue watermarks, headroom and shared-pool peaks) restart from the present level. */
  clearPeaks(): void {
    this.mmu.clearPeaks();
  }

  stats(now: Nanoseconds): SwitchStats {
    const stats = this.statsView.stats(this.name, now, this.portList, this.mmu);
    let detail: SwitchDetail | undefined;
    for (const f of this.features) {
      const d = f.describe?.(now);
      if (d !== undefined && Object.keys(d).length > 0) detail = { ...detail, ...d };
    }
    return detail === undefined ? stats : { ...stats, detail };
  }
}
