// A switch alone on a bench: a fake DeviceEnv that records what the switch transmits, arms and emits, a
// timer loop in emulated time, and helpers that play the peers on the far end of each port (ARP answers,
// UDP/RoCE frames, PFC frames). No lab and no simulator: tests see exactly what the switch does.

import type { DeviceEnv, Nanoseconds, TelemetryEvent, TimerId } from "../../src/device/contract.js";
import { createRandom } from "../../src/device/prng.js";
import type { LagConfig, PortConfig, Route, SwitchConfig } from "../../src/switch/config.js";
import type { FeatureModule } from "../../src/switch/features/feature.js";
import { applyLayer, defaultTunables, type TunablesLayer } from "../../src/switch/features/registry.js";
import { Switch, type SwitchCommand, type SwitchReply } from "../../src/switch/switch.js";
import { ArpOp, buildArpFrame } from "../../src/wire/arp.js";
import { readMac } from "../../src/wire/bytes.js";
import { EtherType, ethType } from "../../src/wire/ethernet.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { buildPfcFrame, PFC_DST_MAC } from "../../src/wire/pfc.js";
import { udpFrame } from "../helpers/frames.js";

export interface Sent {
  readonly port: number;
  /** When its last bit left (the port hands a frame over as its first bit leaves, stamped with that). */
  readonly t: Nanoseconds;
  readonly frame: Uint8Array;
  /** What the switch said of the frame's ICRC (DeviceEnv.transmit's `verified`). */
  readonly verified: boolean;
}

class FakeEnv implements DeviceEnv {
  now = 0;
  readonly sent: Sent[] = [];
  readonly events: TelemetryEvent[] = [];
  /** Armed timers: id -> [at, arming sequence]. */
  readonly timers = new Map<TimerId, [number, number]>();
  private seq = 0;
  private readonly rng = createRandom(1, "switch-harness");
  readonly random = (): number => this.rng.next();

  transmit(port: number, frame: Uint8Array, leftAt?: Nanoseconds, verified = false): void {
    this.sent.push({ port, t: leftAt ?? this.now, frame, verified });
  }
  arm(timer: TimerId, at: Nanoseconds): void {
    this.timers.set(timer, [at, this.seq++]);
  }
  disarm(timer: TimerId): void {
    this.timers.delete(timer);
  }
  emit(event: TelemetryEvent): void {
    this.events.push(event);
  }
}

export const RATE_BPS = 100e9;
/** The switch's port p: MAC 02:00:00:00:pp:00, address 10.0.p.0/31; its peer: 02:00:00:00:pp:01, 10.0.p.1. */
export const portMac = (p: number): number => 0x02_00_00_00_00_00 + p * 0x100;
export const peerMac = (p: number): number => portMac(p) + 1;
export const portIp = (p: number): number => ((10 << 24) | (p << 8)) >>> 0;
export const peerIp = (p: number): number => portIp(p) + 1;
/** Addresses behind ECMP routes: 10.9.0.0/16. */
export const REMOTE = ((10 << 24) | (9 << 16)) >>> 0;

export interface HarnessOptions {
  readonly ports?: number;
  /** Settings layers as validated settings (base units), applied over the defaults. */
  readonly settings?: TunablesLayer;
  /** Extra routes (each port's peer /32 and link /31 are always there). */
  readonly routes?: readonly Route[];
  readonly modules?: readonly FeatureModule[];
  /** Link aggregation groups (their members' peers are switches). */
  readonly lags?: readonly LagConfig[];
}

export class SwitchHarness {
  readonly env = new FakeEnv();
  readonly sw: Switch;
  readonly config: SwitchConfig;

  constructor(opts: HarnessOptions = {}) {
    const n = opts.ports ?? 4;
    const ports: PortConfig[] = [];
    const routes: Route[] = [];
    for (let p = 1; p <= n; p++) {
      ports.push({
        port: p,
        name: `eth${p}`,
        mac: portMac(p),
        ip: portIp(p),
        prefixLength: 31,
        rateBps: RATE_BPS,
        delayNs: 1000,
        peer: { node: `peer${p}`, port: 1, kind: "host" },
      });
      routes.push({ prefix: portIp(p), prefixLength: 31, nextHops: [{ port: p, via: 0 }] });
    }
    this.config = {
      name: "sw",
      ports,
      routes: [...routes, ...(opts.routes ?? [])],
      ...(opts.lags !== undefined ? { lags: opts.lags } : {}),
      maxFrameBytes: 4200,
      ...applyLayer(defaultTunables({ hashSeed: 0x5eed }), opts.settings ?? {}),
    };
    this.sw = new Switch(this.config, this.env, opts.modules);
  }

  get now(): number {
    return this.env.now;
  }

  /** Starts the switch and answers its ARP requests from every peer. */
  start(): this {
    this.sw.start(0);
    for (const p of this.config.ports) this.deliver(p.port, this.arpReply(p.port));
    this.run(this.now + 1000);
    this.env.sent.length = 0;
    return this;
  }

  /** A frame arrives on `port` now (`verified`: what its sender said of its ICRC, Device.receive). */
  deliver(port: number, frame: Uint8Array, verified = false): void {
    this.sw.receive(port, frame, this.env.now, verified);
  }

  /** Runs timers up to and including `until`. */
  run(until: Nanoseconds): void {
    for (;;) {
      let best: TimerId | null = null;
      let bestAt = Number.POSITIVE_INFINITY;
      let bestSeq = 0;
      for (const [id, [at, seq]] of this.env.timers) {
        if (at < bestAt || (at === bestAt && seq < bestSeq)) {
          best = id;
          bestAt = at;
          bestSeq = seq;
        }
      }
      if (best === null || bestAt > until) break;
      this.env.timers.delete(best);
      this.env.now = Math.max(this.env.now, bestAt);
      this.sw.fire(best, this.env.now);
    }
    this.env.now = Math.max(this.env.now, until);
  }

  command(cmd: SwitchCommand): SwitchReply {
    return this.sw.command(cmd, this.env.now);
  }

  counter(name: string): number {
    return this.sw.stats(this.env.now).counters[name] ?? 0;
  }

  portCounter(port: number, name: string): number {
    return this.sw.stats(this.env.now).ports.find((p) => p.port === port)?.counters[name] ?? 0;
  }

  queueCounter(port: number, queue: number, name: string): number {
    const ps = this.sw.stats(this.env.now).ports.find((p) => p.port === port);
    return ps?.queues?.[queue]?.counters[name] ?? 0;
  }

  /** Data frames (IPv4) the switch sent on `port`. */
  data(port: number): Sent[] {
    return this.env.sent.filter((s) => s.port === port && ethType(s.frame) === EtherType.IPv4);
  }

  /** PFC frames the switch sent on `port`. */
  pfc(port: number): Sent[] {
    return this.env.sent.filter(
      (s) =>
        s.port === port && ethType(s.frame) === EtherType.MacControl && readMac(s.frame, 0) === PFC_DST_MAC,
    );
  }

  arpReply(port: number): Uint8Array {
    return buildArpFrame({
      op: ArpOp.Reply,
      senderMac: peerMac(port),
      senderIp: peerIp(port),
      targetMac: portMac(port),
      targetIp: portIp(port),
    });
  }

  /** A UDP frame the peer of `from` sends to `dstIp` (RoCEv2 port unless given). */
  udp(
    from: number,
    dstIp: number,
    opts: { dscp?: number; ecn?: Ecn; bytes?: number; sport?: number; dport?: number; ttl?: number } = {},
  ): Uint8Array {
    return udpFrame({
      srcMac: peerMac(from),
      dstMac: portMac(from),
      srcIp: peerIp(from),
      dstIp,
      srcPort: opts.sport ?? 0xc000,
      dstPort: opts.dport ?? 4791,
      payloadLength: opts.bytes ?? 1000,
      dscp: opts.dscp ?? 26,
      ecn: opts.ecn ?? Ecn.Ect0,
      ...(opts.ttl !== undefined ? { ttl: opts.ttl } : {}),
    });
  }

  /** A PFC frame the peer of `port` sends: `quanta` for `priority` (0 resumes). */
  pfcFrame(port: number, priority: number, quanta: number): Uint8Array {
    const q: (number | null)[] = [null, null, null, null, null, null, null, null];
    q[priority] = quanta;
    return buildPfcFrame({ src: peerMac(port), quanta: q });
  }
}
