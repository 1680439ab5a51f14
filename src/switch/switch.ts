// The switch core: an L3 leaf/spine switch with a shared-buffer MMU, PFC, ECN/WRED, strict-priority and
// DWRR scheduling and ECMP. A pure Device (see device/contract.ts): the same object runs in the simulator
// and inside a live switch process.
//
// Data path, top to bottom (ARCHITECTURE.md §4):
//   port → parse → classify (trusted DSCP → priority → queue) → forward (LPM route + ECMP hash)
//   → WRED/ECN decision → MMU admission (reserve / shared / headroom, PFC XOFF) → egress queue
//   → scheduler (strict, then DWRR; paused queues skipped) → [Fast ECN] → TxPort (line rate) → port.
// MAC rewrite and TTL decrement happen when the packet is queued; the ECN bits change in place with an
// incremental checksum update, so the ICRC of a RoCE packet stays valid (it masks TOS, TTL and checksum).

import type { Counters, Device, DeviceEnv, Nanoseconds, PortStats } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import { EventLimiter } from "../device/event-limiter.js";
import { Fifo } from "../device/fifo.js";
import { TxPort } from "../device/tx-port.js";
import {
  ALGORITHM_CRC16,
  ALGORITHM_CRC32,
  FIELD_DST_IP,
  FIELD_DST_PORT,
  FIELD_PROTOCOL,
  FIELD_SRC_IP,
  FIELD_SRC_PORT,
  FlowHasher,
} from "../lb/ecmp-hash.js";
import { ArpOp, buildArpFrame, parseArp } from "../wire/arp.js";
import { BROADCAST_MAC, internetChecksum, readMac, readU16, writeMac } from "../wire/bytes.js";
import { EtherType, ethPayloadOffset, ethType } from "../wire/ethernet.js";
import { buildIcmpFrame, IcmpTimeExceededCode, IcmpType, parseIcmp } from "../wire/icmp.js";
import {
  decrementIpv4Ttl,
  Ecn,
  IpProtocol,
  ipv4Dscp,
  ipv4Dst,
  ipv4Ecn,
  ipv4HeaderLength,
  ipv4Protocol,
  ipv4Src,
  ipv4TotalLength,
  ipv4Ttl,
  setIpv4Ecn,
} from "../wire/ipv4.js";
import { buildPfcFrame, PFC_DST_MAC, parseMacControl, quantaToNs } from "../wire/pfc.js";
import {
  type EcnQueueConfig,
  HashAlgorithm,
  HashField,
  type PortConfig,
  PRIORITIES,
  type Route,
  type SwitchConfig,
  type SwitchTunables,
} from "./config.js";
import { EcnAction, ecnDecision } from "./ecn.js";
import { Fib } from "./fib.js";
import { autoHeadroomBytes, DropReason, Mmu } from "./mmu.js";
import { EgressScheduler, type QueuedPacket } from "./scheduler.js";
import type { SwitchStats } from "./stats-types.js";

export type SwitchCommand =
  /** Replace whole sections of the run-time configuration (each given section is complete). */
  | { readonly type: "configure"; readonly tunables: Partial<SwitchTunables> }
  /** Install a new routing table (the lab recomputes it after a topology change). */
  | { readonly type: "set-routes"; readonly routes: readonly Route[] }
  | { readonly type: "clear-counters" };

export type SwitchReply = { readonly ok: true } | { readonly ok: false; readonly error: string };

// Timer ids: kind × TIMER_KIND + index.
const TIMER_KIND = 1_000_000;
const T_TX = 0;
const T_PAUSE_EXPIRE = 1;
const T_XOFF_REFRESH = 2;
const T_ARP = 3;

/** How often unresolved neighbours are asked again, and how many times. */
const ARP_RETRY_NS = 100_000;
const ARP_TRIES = 3;
/** Packets held per unresolved next hop. */
const ARP_PENDING_LIMIT = 64;
/** At most one drop/mark event per (port, queue, kind) per this interval. */
const EVENT_INTERVAL_NS = 10_000;

const DROP_REASONS = Object.values(DropReason);

interface PendingResolution {
  readonly port: number;
  readonly packets: { frame: Uint8Array; inPort: number; pg: number; ipOffset: number }[];
  tries: number;
}

class PortState {
  readonly tx: TxPort;
  readonly sched: EgressScheduler;
  /** Frames that bypass the queues: PFC, sent at the next frame boundary. */
  readonly control = new Fifo<Uint8Array>();
  up = true;
  /** Priorities a received PFC currently pauses (bit p), and the queues that maps to. */
  pausedPriorities = 0;
  pausedQueues = 0;
  readonly pauseUntil = new Float64Array(PRIORITIES);
  readonly pausedSince = new Float64Array(PRIORITIES);
  readonly xoffSince = new Float64Array(PRIORITIES);
  // Counters.
  rxPackets = 0;
  rxBytes = 0;
  readonly rxPause = new Float64Array(PRIORITIES);
  readonly rxResume = new Float64Array(PRIORITIES);
  readonly txPause = new Float64Array(PRIORITIES);
  readonly txResume = new Float64Array(PRIORITIES);
  /** ns our egress spent paused by the peer, per priority. */
  readonly pausedNs = new Float64Array(PRIORITIES);
  /** ns we held the peer paused (XOFF asserted), per priority. */
  readonly xoffNs = new Float64Array(PRIORITIES);
  readonly qTxPackets = new Float64Array(PRIORITIES);
  readonly qTxBytes = new Float64Array(PRIORITIES);
  readonly qEcnMarked = new Float64Array(PRIORITIES);
  readonly qWredDropped = new Float64Array(PRIORITIES);
  readonly qDropped = new Float64Array(PRIORITIES);

  constructor(
    readonly cfg: PortConfig,
    env: DeviceEnv,
    sched: EgressScheduler,
    pull: (now: Nanoseconds) => Uint8Array | null,
  ) {
    this.sched = sched;
    this.tx = new TxPort(cfg.port, cfg.rateBps, T_TX * TIMER_KIND + cfg.port, env, pull);
  }
}

export class Switch implements Device<SwitchCommand, SwitchReply, SwitchStats> {
  readonly name: string;
  private cfg: SwitchConfig;
  private readonly ports: (PortState | undefined)[] = [];
  private readonly portList: PortState[] = [];
  private readonly mmu: Mmu;
  private readonly fib: Fib;
  private hasher!: FlowHasher;
  private losslessMask = 0;
  private controlQueue = 7;
  private readonly localIps = new Map<number, number>();
  private readonly neighbors = new Map<number, { mac: number; port: number }>();
  private readonly pending = new Map<number, PendingResolution>();
  private readonly limiter = new EventLimiter(EVENT_INTERVAL_NS);
  private readonly drops = new Map<DropReason, number>();
  private droppedLossless = 0;
  private droppedLossy = 0;
  private icmpSent = 0;
  private arpSent = 0;
  private arpReceived = 0;
  private rxUnknown = 0;
  /** 802.3x link-level PAUSE frames received (PFC ports do not obey them). */
  private rxLinkPauseIgnored = 0;

  constructor(
    config: SwitchConfig,
    private readonly env: DeviceEnv,
  ) {
    this.name = config.name;
    this.cfg = config;
    const maxPort = Math.max(0, ...config.ports.map((p) => p.port));
    for (const p of config.ports) {
      const sched = new EgressScheduler(
        config.qos.strictQueues,
        config.qos.dwrrWeights,
        config.qos.dwrrQuantumBytes,
      );
      const state: PortState = new PortState(p, env, sched, (now): Uint8Array | null =>
        this.pull(state, now),
      );
      this.ports[p.port] = state;
      this.portList.push(state);
      this.localIps.set(p.ip, p.port);
    }
    this.applyQos();
    this.mmu = new Mmu(
      maxPort + 1,
      config.buffer,
      config.pfc,
      this.headrooms(maxPort + 1),
      this.losslessMask,
    );
    this.fib = new Fib(config.routes, (port) => this.ports[port]?.up ?? false);
    this.applyEcmp();
  }

  get config(): SwitchConfig {
    return this.cfg;
  }

  start(now: Nanoseconds): void {
    for (const p of this.portList) this.resolvePeer(p, now);
  }

  // ---------------------------------------------------------------------------------------------------
  // Receive path

  receive(port: number, frame: Uint8Array, now: Nanoseconds): void {
    const ps = this.ports[port];
    if (!ps?.up) return;
    ps.rxPackets++;
    ps.rxBytes += frame.length;
    if (frame.length < 14) {
      this.drop(ps, -1, DropReason.Malformed, false, now);
      return;
    }
    const type = ethType(frame);
    const l3 = ethPayloadOffset(frame);
    if (type === EtherType.MacControl) {
      this.receiveMacControl(ps, frame, l3, now);
      return;
    }
    const dstMac = readMac(frame, 0);
    if (dstMac !== ps.cfg.mac && dstMac !== BROADCAST_MAC) {
      // An L3 port only takes frames addressed to it (LLDP and other link-local multicast land here).
      this.rxUnknown++;
      return;
    }
    if (type === EtherType.ARP) {
      this.receiveArp(ps, frame, l3, now);
      return;
    }
    if (type !== EtherType.IPv4) {
      this.rxUnknown++;
      return;
    }
    this.receiveIpv4(ps, frame, l3, now);
  }

  private receiveIpv4(ps: PortState, frame: Uint8Array, ip: number, now: Nanoseconds): void {
    // A router checks what it relies on: version, header length, total length, header checksum.
    if (
      frame.length < ip + 20 ||
      frame[ip]! >>> 4 !== 4 ||
      ipv4HeaderLength(frame, ip) < 20 ||
      ip + ipv4TotalLength(frame, ip) > frame.length ||
      internetChecksum(frame, ip, ipv4HeaderLength(frame, ip)) !== 0
    ) {
      this.drop(ps, -1, DropReason.Malformed, false, now);
      return;
    }
    const dst = ipv4Dst(frame, ip);
    const pg = this.cfg.qos.dscpToPriority[ipv4Dscp(frame, ip)]!;
    const lossless = (this.losslessMask >> pg) & 1;
    if (this.localIps.has(dst)) {
      this.receiveLocal(ps, frame, ip, now);
      return;
    }
    if (ipv4Ttl(frame, ip) <= 1) {
      this.drop(ps, -1, DropReason.TtlExpired, lossless === 1, now);
      this.sendTimeExceeded(ps, frame, ip, now);
      return;
    }
    this.forward(frame, ps.cfg.port, pg, ip, now);
  }

  /** Routes a packet (received, or originated when `inPort` < 0) towards its destination. */
  private forward(frame: Uint8Array, inPort: number, pg: number, ip: number, now: Nanoseconds): void {
    const dst = ipv4Dst(frame, ip);
    const entry = this.fib.lookup(dst);
    const inState = inPort >= 0 ? this.ports[inPort]! : undefined;
    const lossless = ((this.losslessMask >> pg) & 1) === 1;
    if (entry === null) {
      this.drop(inState, -1, DropReason.NoRoute, lossless, now);
      return;
    }
    const live = entry.live;
    let hop = live[0]!;
    if (live.length > 1) {
      const proto = ipv4Protocol(frame, ip);
      let sport = 0;
      let dport = 0;
      const l4 = ip + ipv4HeaderLength(frame, ip);
      const fragment = readU16(frame, ip + 6) & 0x1fff;
      if (
        (proto === IpProtocol.UDP || proto === IpProtocol.TCP) &&
        fragment === 0 &&
        l4 + 4 <= frame.length
      ) {
        sport = readU16(frame, l4);
        dport = readU16(frame, l4 + 2);
      }
      hop = live[this.hasher.select(live.length, ipv4Src(frame, ip), dst, proto, sport, dport)]!;
    }
    const nextIp = hop.via !== 0 ? hop.via : dst;
    const neighbor = this.neighbors.get(nextIp);
    if (neighbor === undefined || neighbor.port !== hop.port) {
      this.holdForArp(frame, inPort, pg, ip, hop.port, nextIp, now);
      return;
    }
    this.enqueue(frame, inPort, pg, ip, hop.port, neighbor.mac, now);
  }

  private enqueue(
    frame: Uint8Array,
    inPort: number,
    pg: number,
    ip: number,
    outPort: number,
    dstMac: number,
    now: Nanoseconds,
  ): void {
    const out = this.ports[outPort]!;
    const inState = inPort >= 0 ? this.ports[inPort] : undefined;
    const queue = this.cfg.qos.priorityToQueue[pg]!;
    const lossless = ((this.losslessMask >> pg) & 1) === 1;
    const bytes = frame.length;
    // WRED/ECN at enqueue (unless Fast ECN decides at dequeue).
    const ecnCfg: EcnQueueConfig | undefined = this.cfg.ecn.queues[queue];
    let mark = false;
    if (ecnCfg !== undefined && !this.cfg.ecn.fast) {
      const action = ecnDecision(
        this.mmu.egressDepth(outPort, queue),
        ipv4Ecn(frame, ip),
        ecnCfg,
        this.env.random,
      );
      if (action === EcnAction.Drop) {
        out.qWredDropped[queue]!++;
        this.drop(inState, queue, DropReason.Wred, lossless, now, out);
        return;
      }
      mark = action === EcnAction.Mark;
    }
    const charged = this.mmu.admit(inPort, pg, outPort, queue, bytes);
    if (typeof charged === "string") {
      this.drop(inState, queue, charged, lossless, now, out);
      return;
    }
    if (mark) this.markCe(out, queue, frame, ip, now);
    // Rewrite for the next hop: MACs, TTL (only for what we forward, not what we originate).
    writeMac(frame, 0, dstMac);
    writeMac(frame, 6, out.cfg.mac);
    if (inPort >= 0) decrementIpv4Ttl(frame, ip);
    out.sched.enqueue({ frame, inPort, pg, queue, headroom: charged, ipOffset: ip, enqueuedAt: now });
    if (inState !== undefined && this.mmu.pfcProtected(pg) && !this.mmu.xoff[inPort * PRIORITIES + pg]) {
      if (this.mmu.shouldXoff(inPort, pg)) this.assertXoff(inState, pg, now);
    }
    out.tx.kick(now);
  }

  private markCe(out: PortState, queue: number, frame: Uint8Array, ip: number, now: Nanoseconds): void {
    setIpv4Ecn(frame, ip, Ecn.Ce);
    out.qEcnMarked[queue]!++;
    const count = this.limiter.admit(1_000_000 + out.cfg.port * PRIORITIES + queue, now);
    if (count > 0) this.env.emit({ kind: EventKind.EcnMark, port: out.cfg.port, priority: queue, count });
  }

  // ---------------------------------------------------------------------------------------------------
  // Transmit path

  /** The port's wire is free: the next frame is a pending PFC frame, else what the scheduler picks. */
  private pull(ps: PortState, now: Nanoseconds): Uint8Array | null {
    const control = ps.control.shift();
    if (control !== undefined) return control;
    const pkt = ps.sched.dequeue(ps.pausedQueues);
    if (pkt === null) return null;
    this.mmu.release(pkt.inPort, pkt.pg, ps.cfg.port, pkt.queue, pkt.frame.length, pkt.headroom);
    if (this.cfg.ecn.fast) {
      const ecnCfg = this.cfg.ecn.queues[pkt.queue];
      if (ecnCfg !== undefined) {
        const depth = this.mmu.egressDepth(ps.cfg.port, pkt.queue);
        const action = ecnDecision(depth, ipv4Ecn(pkt.frame, pkt.ipOffset), ecnCfg, this.env.random);
        // Too late to drop a Not-ECT packet that the scheduler already chose: Fast ECN only marks.
        if (action === EcnAction.Mark) this.markCe(ps, pkt.queue, pkt.frame, pkt.ipOffset, now);
      }
    }
    ps.qTxPackets[pkt.queue]!++;
    ps.qTxBytes[pkt.queue]! += pkt.frame.length;
    this.maybeXon(pkt, now);
    return pkt.frame;
  }

  private maybeXon(pkt: QueuedPacket, now: Nanoseconds): void {
    if (pkt.inPort < 0) return;
    const i = pkt.inPort * PRIORITIES + pkt.pg;
    if (this.mmu.xoff[i] && this.mmu.shouldXon(pkt.inPort, pkt.pg)) {
      this.releaseXoff(this.ports[pkt.inPort]!, pkt.pg, now, true);
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // PFC: pausing our upstream (XOFF/XON we send) and being paused (frames we receive)

  private assertXoff(ps: PortState, pg: number, now: Nanoseconds): void {
    this.mmu.xoff[ps.cfg.port * PRIORITIES + pg] = 1;
    ps.xoffSince[pg] = now;
    this.sendPfc(ps, pg, this.cfg.pfc.pauseQuanta, now);
    this.armRefresh(ps, pg, now);
    this.env.emit({ kind: EventKind.PfcXoff, port: ps.cfg.port, priority: pg });
  }

  /** Ends XOFF; `sendFrame` false when the link is gone and there is nobody to tell. */
  private releaseXoff(ps: PortState, pg: number, now: Nanoseconds, sendFrame: boolean): void {
    const i = ps.cfg.port * PRIORITIES + pg;
    if (!this.mmu.xoff[i]) return;
    this.mmu.xoff[i] = 0;
    ps.xoffNs[pg]! += now - ps.xoffSince[pg]!;
    this.env.disarm(T_XOFF_REFRESH * TIMER_KIND + i);
    if (sendFrame) {
      this.sendPfc(ps, pg, 0, now);
      this.env.emit({ kind: EventKind.PfcXon, port: ps.cfg.port, priority: pg });
    }
  }

  private armRefresh(ps: PortState, pg: number, now: Nanoseconds): void {
    const pauseNs = quantaToNs(this.cfg.pfc.pauseQuanta, ps.cfg.rateBps);
    const at = now + Math.max(1, Math.floor(pauseNs * this.cfg.pfc.refreshFraction));
    this.env.arm(T_XOFF_REFRESH * TIMER_KIND + ps.cfg.port * PRIORITIES + pg, at);
  }

  private sendPfc(ps: PortState, priority: number, quanta: number, now: Nanoseconds): void {
    if (!ps.up) return;
    const times: (number | null)[] = [null, null, null, null, null, null, null, null];
    times[priority] = quanta;
    ps.control.push(buildPfcFrame({ src: ps.cfg.mac, quanta: times }));
    if (quanta > 0) ps.txPause[priority]!++;
    else ps.txResume[priority]!++;
    ps.tx.kick(now);
  }

  private receiveMacControl(ps: PortState, frame: Uint8Array, l3: number, now: Nanoseconds): void {
    // Only the reserved MAC Control address is ours; anything else is counted like other foreign frames.
    if (readMac(frame, 0) !== PFC_DST_MAC) {
      this.rxUnknown++;
      return;
    }
    const parsed = parseMacControl(frame, l3);
    if (!parsed.ok) {
      this.drop(ps, -1, DropReason.Malformed, false, now);
      return;
    }
    const control = parsed.value;
    if (control.kind !== "pfc") {
      // 802.3x link-level PAUSE is not enabled on these ports (PFC is): counted, not obeyed.
      this.rxLinkPauseIgnored++;
      return;
    }
    for (let p = 0; p < PRIORITIES; p++) {
      if (!((control.enableVector >> p) & 1)) continue;
      const quanta = control.quanta[p]!;
      if (quanta > 0) {
        ps.rxPause[p]!++;
        const until = now + quantaToNs(quanta, ps.cfg.rateBps);
        ps.pauseUntil[p] = until;
        this.env.arm(T_PAUSE_EXPIRE * TIMER_KIND + ps.cfg.port * PRIORITIES + p, Math.ceil(until));
        if (!((ps.pausedPriorities >> p) & 1)) {
          ps.pausedPriorities |= 1 << p;
          ps.pausedSince[p] = now;
          this.updatePausedQueues(ps);
          this.env.emit({ kind: EventKind.PausedOn, port: ps.cfg.port, priority: p });
        }
      } else {
        ps.rxResume[p]!++;
        this.unpause(ps, p, now);
      }
    }
  }

  private unpause(ps: PortState, p: number, now: Nanoseconds): void {
    if (!((ps.pausedPriorities >> p) & 1)) return;
    ps.pausedPriorities &= ~(1 << p);
    ps.pausedNs[p]! += now - ps.pausedSince[p]!;
    this.env.disarm(T_PAUSE_EXPIRE * TIMER_KIND + ps.cfg.port * PRIORITIES + p);
    this.updatePausedQueues(ps);
    this.env.emit({ kind: EventKind.PausedOff, port: ps.cfg.port, priority: p });
    ps.tx.kick(now);
  }

  private updatePausedQueues(ps: PortState): void {
    let mask = 0;
    for (let p = 0; p < PRIORITIES; p++) {
      if ((ps.pausedPriorities >> p) & 1) mask |= 1 << this.cfg.qos.priorityToQueue[p]!;
    }
    ps.pausedQueues = mask;
  }

  // ---------------------------------------------------------------------------------------------------
  // Timers

  fire(timer: number, now: Nanoseconds): void {
    const kind = Math.floor(timer / TIMER_KIND);
    const index = timer % TIMER_KIND;
    switch (kind) {
      case T_TX:
        this.ports[index]?.tx.onTimer(now);
        break;
      case T_PAUSE_EXPIRE: {
        const ps = this.ports[Math.floor(index / PRIORITIES)];
        if (ps) this.unpause(ps, index % PRIORITIES, now);
        break;
      }
      case T_XOFF_REFRESH: {
        const ps = this.ports[Math.floor(index / PRIORITIES)];
        const pg = index % PRIORITIES;
        if (ps && this.mmu.xoff[index]) {
          // Still congested: pause again before the previous pause runs out.
          this.sendPfc(ps, pg, this.cfg.pfc.pauseQuanta, now);
          this.armRefresh(ps, pg, now);
        }
        break;
      }
      case T_ARP:
        this.retryArp(now);
        break;
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // ARP: answering for our port addresses, resolving next hops

  private receiveArp(ps: PortState, frame: Uint8Array, l3: number, now: Nanoseconds): void {
    const parsed = parseArp(frame, l3);
    if (!parsed.ok) {
      this.drop(ps, -1, DropReason.Malformed, false, now);
      return;
    }
    const arp = parsed.value;
    this.arpReceived++;
    if (this.inSubnet(ps.cfg, arp.senderIp) && arp.senderIp !== ps.cfg.ip) {
      this.learn(arp.senderIp, arp.senderMac, ps.cfg.port, now);
    }
    if (arp.op === ArpOp.Request && arp.targetIp === ps.cfg.ip) {
      this.sendControl(
        ps,
        buildArpFrame({
          op: ArpOp.Reply,
          senderMac: ps.cfg.mac,
          senderIp: ps.cfg.ip,
          targetMac: arp.senderMac,
          targetIp: arp.senderIp,
        }),
        now,
      );
      this.arpSent++;
    }
  }

  private inSubnet(p: PortConfig, ip: number): boolean {
    const mask = p.prefixLength === 0 ? 0 : (0xffff_ffff << (32 - p.prefixLength)) >>> 0;
    return (ip & mask) >>> 0 === (p.ip & mask) >>> 0;
  }

  private learn(ip: number, mac: number, port: number, now: Nanoseconds): void {
    this.neighbors.set(ip, { mac, port });
    const waiting = this.pending.get(ip);
    if (waiting === undefined) return;
    this.pending.delete(ip);
    if (waiting.port !== port) return;
    for (const pkt of waiting.packets)
      this.enqueue(pkt.frame, pkt.inPort, pkt.pg, pkt.ipOffset, port, mac, now);
  }

  private holdForArp(
    frame: Uint8Array,
    inPort: number,
    pg: number,
    ip: number,
    port: number,
    nextIp: number,
    now: Nanoseconds,
  ): void {
    let waiting = this.pending.get(nextIp);
    if (waiting === undefined) {
      waiting = { port, packets: [], tries: 1 };
      this.pending.set(nextIp, waiting);
      this.sendArpRequest(this.ports[port]!, nextIp, now);
      this.env.arm(T_ARP * TIMER_KIND, now + ARP_RETRY_NS);
    }
    if (waiting.packets.length >= ARP_PENDING_LIMIT) {
      const inState = inPort >= 0 ? this.ports[inPort] : undefined;
      this.drop(inState, -1, DropReason.ArpUnresolved, ((this.losslessMask >> pg) & 1) === 1, now);
      return;
    }
    waiting.packets.push({ frame, inPort, pg, ipOffset: ip });
  }

  private retryArp(now: Nanoseconds): void {
    for (const [ip, waiting] of this.pending) {
      const ps = this.ports[waiting.port]!;
      if (waiting.tries >= ARP_TRIES || !ps.up) {
        this.pending.delete(ip);
        for (const pkt of waiting.packets) {
          const inState = pkt.inPort >= 0 ? this.ports[pkt.inPort] : undefined;
          this.drop(inState, -1, DropReason.ArpUnresolved, ((this.losslessMask >> pkt.pg) & 1) === 1, now);
        }
        continue;
      }
      waiting.tries++;
      this.sendArpRequest(ps, ip, now);
    }
    let peersLeft = false;
    for (const ps of this.portList) {
      const peerIp = this.unresolvedPeer(ps);
      if (peerIp === null) continue;
      this.sendArpRequest(ps, peerIp, now);
      peersLeft = true;
    }
    if (this.pending.size > 0 || peersLeft) this.env.arm(T_ARP * TIMER_KIND, now + ARP_RETRY_NS);
  }

  private sendArpRequest(ps: PortState, targetIp: number, now: Nanoseconds): void {
    this.sendControl(
      ps,
      buildArpFrame({
        op: ArpOp.Request,
        senderMac: ps.cfg.mac,
        senderIp: ps.cfg.ip,
        targetMac: 0,
        targetIp,
      }),
      now,
    );
    this.arpSent++;
  }

  /** Ask for the peer's MAC as soon as a port is up, so the first data packets do not wait. */
  private resolvePeer(ps: PortState, now: Nanoseconds): void {
    const peerIp = this.unresolvedPeer(ps);
    if (peerIp === null) return;
    this.sendArpRequest(ps, peerIp, now);
    // Keep asking until the peer answers: in a live lab it may not be listening yet when we start, and a
    // neighbour learnt only when the first packets arrive costs the packets that overflow the ARP queue.
    this.env.arm(T_ARP * TIMER_KIND, now + ARP_RETRY_NS);
  }

  /** The /31 peer of a port that is up and not yet resolved, or null. */
  private unresolvedPeer(ps: PortState): number | null {
    if (!ps.up || ps.cfg.peer === null || ps.cfg.prefixLength !== 31) return null;
    const peerIp = (ps.cfg.ip ^ 1) >>> 0;
    return this.neighbors.has(peerIp) || this.pending.has(peerIp) ? null : peerIp;
  }

  /** Queues a frame the switch itself sends (ARP) on the control queue of `ps`. */
  private sendControl(ps: PortState, frame: Uint8Array, now: Nanoseconds): void {
    if (!ps.up) return;
    const queue = this.controlQueue;
    const charged = this.mmu.admit(-1, this.cfg.qos.controlPriority, ps.cfg.port, queue, frame.length);
    if (typeof charged === "string") {
      this.drop(undefined, queue, charged, false, now, ps);
      return;
    }
    ps.sched.enqueue({
      frame,
      inPort: -1,
      pg: this.cfg.qos.controlPriority,
      queue,
      headroom: 0,
      ipOffset: -1,
      enqueuedAt: now,
    });
    ps.tx.kick(now);
  }

  // ---------------------------------------------------------------------------------------------------
  // Packets for the switch itself, and ICMP it originates

  private receiveLocal(ps: PortState, frame: Uint8Array, ip: number, now: Nanoseconds): void {
    if (ipv4Protocol(frame, ip) !== IpProtocol.ICMP) return;
    const end = ip + ipv4TotalLength(frame, ip);
    const parsed = parseIcmp(frame, ip + ipv4HeaderLength(frame, ip), end);
    if (!parsed.ok || parsed.value.type !== IcmpType.EchoRequest) return;
    const echo = parsed.value;
    this.originate(
      buildIcmpFrame({
        srcMac: ps.cfg.mac,
        dstMac: 0,
        srcIp: ipv4Dst(frame, ip),
        dstIp: ipv4Src(frame, ip),
        message: {
          type: IcmpType.EchoReply,
          identifier: echo.identifier,
          sequence: echo.sequence,
          data: frame.subarray(echo.dataOffset, echo.dataOffset + echo.dataLength),
        },
        dscp: 48,
      }),
      now,
    );
  }

  private sendTimeExceeded(ps: PortState, frame: Uint8Array, ip: number, now: Nanoseconds): void {
    this.icmpSent++;
    this.originate(
      buildIcmpFrame({
        srcMac: ps.cfg.mac,
        dstMac: 0,
        // Like Linux with icmp_errors_use_inbound_ifaddr: the hop a trace shows is the port it came in on.
        srcIp: ps.cfg.ip,
        dstIp: ipv4Src(frame, ip),
        message: {
          type: IcmpType.TimeExceeded,
          code: IcmpTimeExceededCode.Ttl,
          original: frame.subarray(ip, ip + ipv4TotalLength(frame, ip)),
        },
        dscp: 48,
      }),
      now,
    );
  }

  private originate(frame: Uint8Array, now: Nanoseconds): void {
    this.forward(frame, -1, this.cfg.qos.controlPriority, 14, now);
  }

  // ---------------------------------------------------------------------------------------------------
  // Drops

  private drop(
    inState: PortState | undefined,
    queue: number,
    reason: DropReason,
    lossless: boolean,
    now: Nanoseconds,
    out?: PortState,
  ): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
    if (lossless) this.droppedLossless++;
    else this.droppedLossy++;
    if (out !== undefined && queue >= 0) out.qDropped[queue]!++;
    const port = out?.cfg.port ?? inState?.cfg.port ?? 0;
    const key = 2_000_000 + port * 64 + DROP_REASONS.indexOf(reason);
    const count = this.limiter.admit(key, now);
    if (count > 0) {
      this.env.emit({
        kind: EventKind.Drop,
        port,
        ...(queue >= 0 ? { priority: queue } : {}),
        count,
        detail: reason,
      });
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Link state

  setLinkState(port: number, up: boolean, now: Nanoseconds): void {
    const ps = this.ports[port];
    if (!ps || ps.up === up) return;
    ps.up = up;
    this.fib.invalidate();
    if (up) {
      ps.tx.setUp(true, now);
      this.env.emit({ kind: EventKind.LinkUp, port });
      this.resolvePeer(ps, now);
      return;
    }
    this.env.emit({ kind: EventKind.LinkDown, port });
    const lost = ps.tx.setUp(false, now);
    if (lost !== null) this.drop(undefined, -1, DropReason.LinkDown, false, now, ps);
    ps.control.drain();
    for (const pkt of ps.sched.flush()) {
      this.mmu.release(pkt.inPort, pkt.pg, port, pkt.queue, pkt.frame.length, pkt.headroom);
      const inState = pkt.inPort >= 0 ? this.ports[pkt.inPort] : undefined;
      this.drop(inState, pkt.queue, DropReason.LinkDown, ((this.losslessMask >> pkt.pg) & 1) === 1, now, ps);
      this.maybeXon(pkt, now);
    }
    // Nobody is left to pause us or to be paused by us on this port.
    for (let p = 0; p < PRIORITIES; p++) {
      this.unpause(ps, p, now);
      this.releaseXoff(ps, p, now, false);
    }
    for (const [ip, n] of this.neighbors) if (n.port === port) this.neighbors.delete(ip);
  }

  // ---------------------------------------------------------------------------------------------------
  // Control plane

  command(cmd: SwitchCommand, now: Nanoseconds): SwitchReply {
    switch (cmd.type) {
      case "set-routes":
        this.cfg = { ...this.cfg, routes: cmd.routes };
        this.fib.setRoutes(cmd.routes);
        return { ok: true };
      case "configure": {
        this.cfg = { ...this.cfg, ...cmd.tunables };
        this.applyQos();
        const numPorts = this.ports.length;
        this.mmu.reconfigure(this.cfg.buffer, this.cfg.pfc, this.headrooms(numPorts), this.losslessMask);
        this.applyEcmp();
        for (const ps of this.portList) {
          ps.sched.configure(
            this.cfg.qos.strictQueues,
            this.cfg.qos.dwrrWeights,
            this.cfg.qos.dwrrQuantumBytes,
          );
          this.updatePausedQueues(ps);
          // PFC switched off on a PG that was pausing its upstream: let the upstream go.
          for (let p = 0; p < PRIORITIES; p++) {
            if (!this.mmu.pfcProtected(p)) this.releaseXoff(ps, p, now, true);
          }
          ps.tx.kick(now);
        }
        return { ok: true };
      }
      case "clear-counters":
        this.clearCounters();
        return { ok: true };
    }
  }

  private applyQos(): void {
    this.losslessMask = 0;
    for (const p of this.cfg.qos.lossless) this.losslessMask |= 1 << p;
    this.controlQueue = this.cfg.qos.priorityToQueue[this.cfg.qos.controlPriority]!;
  }

  private applyEcmp(): void {
    const e = this.cfg.ecmp;
    const bits: Record<HashField, number> = {
      [HashField.SrcIp]: FIELD_SRC_IP,
      [HashField.DstIp]: FIELD_DST_IP,
      [HashField.Protocol]: FIELD_PROTOCOL,
      [HashField.SrcPort]: FIELD_SRC_PORT,
      [HashField.DstPort]: FIELD_DST_PORT,
    };
    let fields = 0;
    for (const f of e.fields) fields |= bits[f];
    this.hasher = new FlowHasher(
      fields,
      e.algorithm === HashAlgorithm.Crc16 ? ALGORITHM_CRC16 : ALGORITHM_CRC32,
      e.seed >>> 0,
    );
  }

  private headrooms(numPorts: number): number[] {
    const out = new Array<number>(numPorts).fill(0);
    const h = this.cfg.buffer.headroomBytes;
    for (const p of this.cfg.ports) {
      out[p.port] =
        h === "auto"
          ? autoHeadroomBytes(p.rateBps, p.delayNs, this.cfg.maxFrameBytes, this.cfg.pfc.headroomSlackNs)
          : h;
    }
    return out;
  }

  private clearCounters(): void {
    this.drops.clear();
    this.droppedLossless = 0;
    this.droppedLossy = 0;
    this.icmpSent = 0;
    this.arpSent = 0;
    this.arpReceived = 0;
    this.rxUnknown = 0;
    this.rxLinkPauseIgnored = 0;
    for (const ps of this.portList) {
      ps.rxPackets = 0;
      ps.rxBytes = 0;
      ps.tx.txFrames = 0;
      ps.tx.txBytes = 0;
      ps.tx.busyNs = 0;
      for (const a of [
        ps.rxPause,
        ps.rxResume,
        ps.txPause,
        ps.txResume,
        ps.pausedNs,
        ps.xoffNs,
        ps.qTxPackets,
        ps.qTxBytes,
        ps.qEcnMarked,
        ps.qWredDropped,
        ps.qDropped,
      ]) {
        a.fill(0);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Observability

  stats(now: Nanoseconds): SwitchStats {
    const counters: Counters = {
      dropped_lossless: this.droppedLossless,
      dropped_lossy: this.droppedLossy,
      buffer_used_bytes: this.mmu.used,
      buffer_shared_used_bytes: this.mmu.sharedUsed,
      buffer_shared_pool_bytes: this.mmu.sharedPoolBytes,
      buffer_shared_peak_bytes: this.mmu.sharedPeakBytes,
      buffer_headroom_used_bytes: this.mmu.headroomUsed,
      icmp_time_exceeded_sent: this.icmpSent,
      arp_sent: this.arpSent,
      arp_received: this.arpReceived,
      rx_not_for_us: this.rxUnknown,
      rx_link_pause_ignored: this.rxLinkPauseIgnored,
    };
    for (const reason of DROP_REASONS) counters[`drop_${reason}`] = this.drops.get(reason) ?? 0;
    const ports: PortStats[] = this.portList.map((ps) => {
      const port = ps.cfg.port;
      const c: Counters = {
        rx_packets: ps.rxPackets,
        rx_bytes: ps.rxBytes,
        tx_packets: ps.tx.txFrames,
        tx_bytes: ps.tx.txBytes,
        tx_busy_ns: ps.tx.busyNs,
        tx_stalled_ns: ps.tx.stalledNs,
        headroom_bytes: this.mmu.headroomOf(port),
      };
      for (let p = 0; p < PRIORITIES; p++) {
        c[`rx_pause_prio${p}`] = ps.rxPause[p]!;
        c[`rx_resume_prio${p}`] = ps.rxResume[p]!;
        c[`tx_pause_prio${p}`] = ps.txPause[p]!;
        c[`tx_resume_prio${p}`] = ps.txResume[p]!;
        const pausedNow = (ps.pausedPriorities >> p) & 1 ? now - ps.pausedSince[p]! : 0;
        c[`paused_ns_prio${p}`] = ps.pausedNs[p]! + pausedNow;
        const xoffNow = this.mmu.xoff[port * PRIORITIES + p] ? now - ps.xoffSince[p]! : 0;
        c[`xoff_ns_prio${p}`] = ps.xoffNs[p]! + xoffNow;
        const pg = this.mmu.pgUse(port, p);
        c[`pg${p}_bytes`] = pg.bytes;
        c[`pg${p}_headroom_bytes`] = pg.headroom;
        c[`pg${p}_headroom_peak_bytes`] = this.mmu.headroomPeak[port * PRIORITIES + p]!;
        c[`pg${p}_xoff`] = this.mmu.xoff[port * PRIORITIES + p]!;
      }
      const queues = [];
      for (let q = 0; q < PRIORITIES; q++) {
        queues.push({
          queue: q,
          depthBytes: this.mmu.egressDepth(port, q),
          paused: ((ps.pausedQueues >> q) & 1) === 1,
          counters: {
            tx_packets: ps.qTxPackets[q]!,
            tx_bytes: ps.qTxBytes[q]!,
            ecn_marked: ps.qEcnMarked[q]!,
            wred_dropped: ps.qWredDropped[q]!,
            dropped: ps.qDropped[q]!,
            watermark_bytes: this.mmu.egressPeak[port * PRIORITIES + q]!,
            packets: ps.sched.queues[q]!.length,
          },
        });
      }
      return { port, name: ps.cfg.name, up: ps.up, counters: c, queues };
    });
    return { kind: "switch", name: this.name, now, counters, ports };
  }
}
