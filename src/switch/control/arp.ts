// ARP (RFC 826) on routed ports: answer for the port's own address, learn neighbours on the port's
// subnet, resolve next hops (packets wait, a bounded number per next hop, while a request is retried), and
// ask for every /31 peer as soon as its port is up (knowing it at once when the lab's address plan gives
// its MAC) so the first data packets do not wait.

import type { DeviceEnv, Nanoseconds } from "../../device/contract.js";
import { CounterKind, type CounterSet } from "../../device/counters.js";
import type { TimerKind, TimerRegistry } from "../../device/timers.js";
import { ArpOp, buildArpFrame, parseArp } from "../../wire/arp.js";
import type { PortConfig } from "../config.js";
import { DropReason, type SwitchDrops } from "../drops.js";
import type { PacketMeta } from "../packet-meta.js";
import type { SwitchPort } from "../port.js";

/** How often unresolved neighbours are asked again, and how many times. */
const ARP_RETRY_NS = 100_000;
const ARP_TRIES = 3;
/** Packets held per unresolved next hop. */
const ARP_PENDING_LIMIT = 64;

/** A packet waiting for its next hop's MAC. */
export interface HeldPacket {
  readonly frame: Uint8Array;
  readonly inPort: number;
  readonly pg: number;
  readonly lossless: boolean;
  readonly l3: number;
}

interface PendingResolution {
  readonly port: number;
  readonly packets: HeldPacket[];
  tries: number;
}

/** What the ARP agent needs from the switch. */
export interface ArpHost {
  readonly ports: readonly (SwitchPort | undefined)[];
  readonly portList: readonly SwitchPort[];
  readonly drops: SwitchDrops;
  /** Queue a frame without IP on the port's control queue. */
  sendControl(port: SwitchPort, frame: Uint8Array, now: Nanoseconds): void;
  /** A held packet's next hop answered: send it on through admission. */
  release(packet: HeldPacket, port: number, mac: number, now: Nanoseconds): void;
}

export class ArpAgent {
  private readonly neighbors = new Map<number, { mac: number; port: number }>();
  /** Neighbours that answered (or asked) on the wire; a peer known only from the address plan is not. */
  private readonly confirmed = new Set<number>();
  private readonly pending = new Map<number, PendingResolution>();
  private readonly timer: TimerKind;
  private readonly sent: Float64Array;
  private readonly received: Float64Array;

  constructor(
    private readonly host: ArpHost,
    private readonly env: DeviceEnv,
    timers: TimerRegistry,
    counters: CounterSet,
  ) {
    this.timer = timers.register("arp-retry", (_i, now) => this.retry(now));
    const counter = (name: string, help: string) =>
      counters.add({ name, kind: CounterKind.Counter, unit: "frames", help, labels: [] });
    this.sent = counter("arp_sent", "ARP requests and replies sent");
    this.received = counter("arp_received", "ARP frames received");
  }

  /** The MAC of `ip` if it is a resolved neighbour on `port`, else -1. */
  lookup(ip: number, port: number): number {
    const n = this.neighbors.get(ip);
    return n !== undefined && n.port === port ? n.mac : -1;
  }

  receive(ps: SwitchPort, frame: Uint8Array, l3: number, now: Nanoseconds): void {
    const parsed = parseArp(frame, l3);
    if (!parsed.ok) {
      this.host.drops.drop(DropReason.Malformed, false, ps.port, -1, -1, now);
      return;
    }
    const arp = parsed.value;
    this.received[0]!++;
    if (inSubnet(ps.cfg, arp.senderIp) && arp.senderIp !== ps.cfg.ip) {
      this.learn(arp.senderIp, arp.senderMac, ps.port, now);
    }
    if (arp.op === ArpOp.Request && arp.targetIp === ps.cfg.ip) {
      this.host.sendControl(
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
      this.sent[0]!++;
    }
  }

  /** Holds `m` (routed to `m.outPort` via `m.nextHopIp`) until the next hop answers. */
  hold(m: PacketMeta, now: Nanoseconds): void {
    const nextIp = m.nextHopIp;
    let waiting = this.pending.get(nextIp);
    if (waiting === undefined) {
      waiting = { port: m.outPort, packets: [], tries: 1 };
      this.pending.set(nextIp, waiting);
      this.sendRequest(this.host.ports[m.outPort]!, nextIp, now);
      this.env.arm(this.timer.id(0), now + ARP_RETRY_NS);
    }
    if (waiting.packets.length >= ARP_PENDING_LIMIT) {
      this.host.drops.drop(DropReason.ArpUnresolved, m.lossless, m.inPort, -1, -1, now);
      return;
    }
    waiting.packets.push({ frame: m.frame, inPort: m.inPort, pg: m.pg, lossless: m.lossless, l3: m.l3 });
  }

  /** Ask for the peer's MAC as soon as a port is up, and keep asking until it answers. */
  resolvePeer(ps: SwitchPort, now: Nanoseconds): void {
    const peerIp = this.unresolvedPeer(ps);
    if (peerIp === null) return;
    this.sendRequest(ps, peerIp, now);
    // In a live lab the peer may not be listening yet when we start, and a neighbour learnt only when the
    // first packets arrive costs the packets that overflow the ARP queue.
    this.env.arm(this.timer.id(0), now + ARP_RETRY_NS);
    // The address plan names the peer's MAC: known from link-up, so no packet ever waits for (or is
    // dropped by) the first resolution; the request above still goes out and its reply refreshes it.
    const known = ps.cfg.peer?.mac;
    if (known !== undefined) this.neighbors.set(peerIp, { mac: known, port: ps.port });
  }

  /** A port went down: its neighbours are gone. */
  forgetPort(port: number): void {
    for (const [ip, n] of this.neighbors) {
      if (n.port !== port) continue;
      this.neighbors.delete(ip);
      this.confirmed.delete(ip);
    }
  }

  private learn(ip: number, mac: number, port: number, now: Nanoseconds): void {
    this.neighbors.set(ip, { mac, port });
    this.confirmed.add(ip);
    const waiting = this.pending.get(ip);
    if (waiting === undefined) return;
    this.pending.delete(ip);
    if (waiting.port !== port) return;
    for (const pkt of waiting.packets) this.host.release(pkt, port, mac, now);
  }

  private retry(now: Nanoseconds): void {
    for (const [ip, waiting] of this.pending) {
      const ps = this.host.ports[waiting.port]!;
      if (waiting.tries >= ARP_TRIES || !ps.up) {
        this.pending.delete(ip);
        for (const pkt of waiting.packets) {
          this.host.drops.drop(DropReason.ArpUnresolved, pkt.lossless, pkt.inPort, -1, -1, now);
        }
        continue;
      }
      waiting.tries++;
      this.sendRequest(ps, ip, now);
    }
    let peersLeft = false;
    for (const ps of this.host.portList) {
      const peerIp = this.unresolvedPeer(ps);
      if (peerIp === null) continue;
      this.sendRequest(ps, peerIp, now);
      peersLeft = true;
    }
    if (this.pending.size > 0 || peersLeft) this.env.arm(this.timer.id(0), now + ARP_RETRY_NS);
  }

  private sendRequest(ps: SwitchPort, targetIp: number, now: Nanoseconds): void {
    this.host.sendControl(
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
    this.sent[0]!++;
  }

  /** The /31 peer of a port that is up and not yet resolved, or null. */
  private unresolvedPeer(ps: SwitchPort): number | null {
    if (!ps.up || ps.cfg.peer === null || ps.cfg.prefixLength !== 31) return null;
    const peerIp = (ps.cfg.ip ^ 1) >>> 0;
    return this.confirmed.has(peerIp) || this.pending.has(peerIp) ? null : peerIp;
  }
}

function inSubnet(p: PortConfig, ip: number): boolean {
  const mask = p.prefixLength === 0 ? 0 : (0xffff_ffff << (32 - p.prefixLength)) >>> 0;
  return (ip & mask) >>> 0 === (p.ip & mask) >>> 0;
}
