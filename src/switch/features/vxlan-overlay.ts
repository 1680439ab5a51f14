// ECN over VXLAN (H3C RoCE overview §1.4.3.2 "ECN Overlay"; VXLAN is RFC 7348, ECN in tunnels RFC 6040). A
// leaf that is a VTEP encapsulates what its hosts send to hosts behind another VTEP, and decapsulates what
// arrives for its own VTEP address:
//   * encapsulation (classified hook, on packets from a host port): outer Ethernet/IPv4/UDP 4789/VXLAN
//     around the whole inner frame; outer DSCP and ECN copied from the inner header (RFC 6040 §4.1,
//     normal mode: CE included); outer UDP source port from the inner flow's hash (RFC 7348 §5), so the
//     underlay's ECMP still spreads flows. The packet is then routed, admitted and queued as the outer
//     packet: the MMU charges the encapsulated size and WRED/ECN marks the outer header.
//   * decapsulation (ingress hook, on UDP 4789 to the VTEP address): the outer headers go; with `ecn`
//     (the ECN overlay) the outer ECN is combined into the inner header as RFC 6040 §4.2 says (outer CE on
//     an ECT inner packet makes it CE; outer CE on a Not-ECT inner packet drops it; outer ECT(1) on inner
//     ECT(0) gives ECT(1)). Without it the outer ECN is discarded, so a CE set in the underlay is lost and
//     only PFC acts. The inner packet then goes through the rest of the pipeline towards its host.
// The lab computes the section from the topology's `overlay: { vxlan: { vni, vteps } }` (scenario/overlay.ts):
// a VTEP's address is its IP on its first host port (routed over every spine), the host ports, and the
// remote hosts with their VTEPs. Like a NIC building a packet, encapsulation allocates the outer frame;
// decapsulation takes a view of the inner one.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { ipv4HeaderValid } from "../../device/l2/ipv4-check.js";
import { readU16, readU24 } from "../../wire/bytes.js";
import { EtherType } from "../../wire/ethernet.js";
import { Ecn, ipv4Ecn, setIpv4Ecn } from "../../wire/ipv4.js";
import { VXLAN_UDP_PORT } from "../../wire/udp.js";
import { buildVxlanFrame, vxlanSourcePort } from "../../wire/vxlan.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { SwitchCounter } from "../counter-defs.js";
import { DropReason } from "../drops.js";
import { FrameKind, type PacketMeta, Verdict } from "../packet-meta.js";
import { parseIpv4 } from "../stages/parse.js";
import type { SwitchDetail, VxlanTunnel } from "../stats-types.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";

const ip = z.number().int().min(0).max(0xffff_ffff);

const vxlanSettings = z
  .object({
    vni: z.number().int().min(0).max(0xff_ffff),
    vtep: ip,
    hostPorts: z.array(z.number().int().min(1)),
    remotes: z.array(z.object({ ip, vtep: ip }).strict()),
  })
  .strict();

const settings = z
  .object({
    /** The ECN overlay: copy CE from the outer header into the inner one at decapsulation. */
    ecn: z.boolean().optional(),
    /** This switch as a VTEP (computed by the lab from the topology's `overlay`), or null. */
    vxlan: vxlanSettings.nullable().optional(),
  })
  .strict();

export interface VxlanVtep {
  readonly vni: number;
  /** This VTEP's address. */
  readonly vtep: number;
  /** Ports facing this leaf's hosts: what arrives there for a remote host is encapsulated. */
  readonly hostPorts: readonly number[];
  /** Hosts behind other VTEPs. */
  readonly remotes: readonly { readonly ip: number; readonly vtep: number }[];
}

export interface OverlayConfig {
  readonly ecn: boolean;
  readonly vxlan: VxlanVtep | null;
}

/** Per-tunnel counters, one array each, indexed by tunnel. */
const TUNNEL_COUNTERS = [
  "encapPackets",
  "encapBytes",
  "encapCe",
  "decapPackets",
  "decapBytes",
  "outerCe",
  "ceCopied",
  "ceLost",
] as const;
type TunnelCounter = (typeof TUNNEL_COUNTERS)[number];

/** Outer IPv4 at 14, UDP at 34, VXLAN at 42, the inner frame at 50. */
const OUTER_L3 = 14;
const VXLAN_AT = 42;
const INNER_AT = 50;

class VxlanOverlay implements SwitchFeature {
  readonly name = "overlay";
  private cfg!: OverlayConfig;
  /** Remote host address -> tunnel index; remote VTEP address -> tunnel index. */
  private readonly remote = new Map<number, number>();
  private readonly bySource = new Map<number, number>();
  private tunnelIps: number[] = [];
  private tunnelHosts: number[] = [];
  private tunnel: Record<TunnelCounter, Float64Array> = tunnelArrays(0);
  /** 1 at the index of each host port. */
  private hostPort = new Uint8Array(0);
  private readonly encapPackets: Float64Array;
  private readonly decapPackets: Float64Array;
  private readonly ceCopied: Float64Array;
  private readonly ceLost: Float64Array;

  constructor(private readonly ctx: SwitchContext) {
    this.encapPackets = ctx.counters.add(SwitchCounter.vxlanEncapPackets);
    this.decapPackets = ctx.counters.add(SwitchCounter.vxlanDecapPackets);
    this.ceCopied = ctx.counters.add(SwitchCounter.vxlanCeCopied);
    this.ceLost = ctx.counters.add(SwitchCounter.vxlanCeLost);
  }

  configure(cfg: SwitchConfig): void {
    this.cfg = cfg.overlay;
    this.remote.clear();
    this.bySource.clear();
    this.hostPort = new Uint8Array(this.ctx.numPorts);
    const v = cfg.overlay.vxlan;
    const ips = [...new Set(v?.remotes.map((r) => r.vtep) ?? [])];
    const same = ips.length === this.tunnelIps.length && ips.every((ip, i) => ip === this.tunnelIps[i]);
    // The same tunnels (a `configure` of something else) keep their counters.
    if (!same) this.tunnel = tunnelArrays(ips.length);
    this.tunnelIps = ips;
    this.tunnelHosts = ips.map((ip) => v?.remotes.filter((r) => r.vtep === ip).length ?? 0);
    if (v === null) return;
    for (const [i, ip] of ips.entries()) this.bySource.set(ip, i);
    for (const r of v.remotes) this.remote.set(r.ip, this.bySource.get(r.vtep)!);
    for (const p of v.hostPorts) if (p < this.ctx.numPorts) this.hostPort[p] = 1;
  }

  activeHooks(): readonly Hook[] {
    return this.cfg.vxlan === null ? [] : [Hook.Ingress, Hook.Classified];
  }

  /** Decapsulation: VXLAN for this VTEP becomes its inner packet. */
  ingress(m: PacketMeta, now: Nanoseconds): boolean {
    const v = this.cfg.vxlan!;
    if (m.l4 < 0 || m.dstPort !== VXLAN_UDP_PORT || m.dstIp !== v.vtep) return true;
    const f = m.frame;
    const innerIp = INNER_AT + 14;
    if (
      m.l3 !== OUTER_L3 ||
      f.length < innerIp + 20 ||
      readU24(f, VXLAN_AT + 4) !== v.vni ||
      readU16(f, INNER_AT + 12) !== EtherType.IPv4 ||
      !ipv4HeaderValid(f, innerIp)
    ) {
      this.ctx.drops.drop(DropReason.Malformed, false, m.inPort, -1, -1, now);
      return false;
    }
    const outer = m.ecn;
    const inner = ipv4Ecn(f, innerIp);
    const t = this.bySource.get(m.srcIp) ?? -1;
    const tc = this.tunnel;
    if (t >= 0) {
      tc.decapPackets[t]!++;
      tc.decapBytes[t]! += m.length;
      if (outer === Ecn.Ce) tc.outerCe[t]!++;
    }
    if (outer === Ecn.Ce) {
      if (!this.cfg.ecn) {
        this.ceLost[0]!++;
        if (t >= 0) tc.ceLost[t]!++;
      } else if (inner === Ecn.NotEct) {
        // RFC 6040 §4.2: congestion on a packet that cannot carry it must be signalled by a drop.
        this.ctx.drops.drop(DropReason.OverlayNotEct, false, m.inPort, -1, -1, now);
        return false;
      } else if (inner !== Ecn.Ce) {
        setIpv4Ecn(f, innerIp, Ecn.Ce);
        this.ceCopied[0]!++;
        if (t >= 0) tc.ceCopied[t]!++;
      }
    } else if (this.cfg.ecn && outer === Ecn.Ect1 && inner === Ecn.Ect0) {
      setIpv4Ecn(f, innerIp, Ecn.Ect1);
    }
    this.decapPackets[0]!++;
    const inPort = m.inPort;
    m.reset(f.subarray(INNER_AT), inPort);
    m.kind = FrameKind.Ipv4;
    m.etherType = EtherType.IPv4;
    parseIpv4(m, 14);
    return true;
  }

  /** Encapsulation: a host's packet for a host behind another VTEP. */
  classified(m: PacketMeta): void {
    if (m.inPort < 0 || this.hostPort[m.inPort] !== 1) return;
    const t = this.remote.get(m.dstIp);
    if (t === undefined) return;
    const remote = this.tunnelIps[t]!;
    const v = this.cfg.vxlan!;
    const inner = m.frame;
    const frame = buildVxlanFrame({
      inner,
      vni: v.vni,
      outerSrcMac: 0,
      outerDstMac: 0,
      outerSrcIp: v.vtep,
      outerDstIp: remote,
      srcPort: vxlanSourcePort(inner),
    });
    this.encapPackets[0]!++;
    const tc = this.tunnel;
    tc.encapPackets[t]!++;
    tc.encapBytes[t]! += frame.length;
    if (m.ecn === Ecn.Ce) tc.encapCe[t]!++;
    const { pg, queue, lossless, yellow, inPort } = m;
    m.reset(frame, inPort);
    m.kind = FrameKind.Ipv4;
    m.etherType = EtherType.IPv4;
    parseIpv4(m, OUTER_L3);
    m.pg = pg;
    m.queue = queue;
    m.lossless = lossless;
    m.yellow = yellow;
    m.verdict = Verdict.Forward;
  }

  describe(): SwitchDetail {
    const v = this.cfg.vxlan;
    if (v === null) return {};
    const c = this.tunnel;
    const tunnels = this.tunnelIps.map(
      (remote, i): VxlanTunnel => ({
        remote,
        hosts: this.tunnelHosts[i]!,
        encapPackets: c.encapPackets[i]!,
        encapBytes: c.encapBytes[i]!,
        encapCe: c.encapCe[i]!,
        decapPackets: c.decapPackets[i]!,
        decapBytes: c.decapBytes[i]!,
        outerCe: c.outerCe[i]!,
        ceCopied: c.ceCopied[i]!,
        ceLost: c.ceLost[i]!,
      }),
    );
    return {
      vtep: { vni: v.vni, address: v.vtep, ecn: this.cfg.ecn, hostPorts: v.hostPorts, tunnels },
    };
  }
}

function tunnelArrays(n: number): Record<TunnelCounter, Float64Array> {
  const out = {} as Record<TunnelCounter, Float64Array>;
  for (const k of TUNNEL_COUNTERS) out[k] = new Float64Array(n);
  return out;
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly overlay: OverlayConfig;
  }
}

export const vxlanOverlayFeature = defineFeature({
  key: "overlay",
  doc:
    "ECN over VXLAN (RFC 7348, RFC 6040 normal mode): a VTEP leaf encapsulates its hosts' packets for " +
    "remote hosts (UDP 4789, outer source port from the inner flow's hash, inner ECN copied out) and " +
    "decapsulates packets for its VTEP address; with `ecn` the outer CE is copied into the inner header, " +
    "without it the underlay's marks are lost. The VTEPs come from the topology's `overlay`.",
  settings,
  defaults: (): OverlayConfig => ({ ecn: true, vxlan: null }),
  apply: (c: OverlayConfig, s): OverlayConfig => ({
    ecn: s.ecn ?? c.ecn,
    vxlan: s.vxlan === undefined ? c.vxlan : s.vxlan,
  }),
  create: (ctx) => new VxlanOverlay(ctx),
});
