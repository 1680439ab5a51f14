// What carrying a fabric's links in VXLAN tunnels between machines costs: MTU on the underlay, and the
// extra delay PFC headroom must cover. Used by `rocelab export` for containerlab's vxlan links and for
// clabernetes, which tunnels every link (docs/scale-out.md has the arithmetic worked through).

import { interfaceMtu } from "../lab/live/provision.js";
import { maxFrameBytes } from "../scenario/switch-config.js";

export type AddressFamily = "ipv4" | "ipv6";

/**
 * Bytes VXLAN (RFC 7348, section 5) puts around a frame, counted against the underlay's interface MTU
 * (which counts from the IP header on): the inner Ethernet header 14 (the inner MTU does not count it,
 * the underlay carries it as payload), VXLAN 8, UDP 8 and the outer IP header, 20 for IPv4, 40 for IPv6.
 * The outer Ethernet header is the underlay's own framing, outside its MTU as for any packet.
 */
export function vxlanOverhead(family: AddressFamily): number {
  return 14 + 8 + 8 + (family === "ipv6" ? 40 : 20);
}

/** The RoCE path MTUs a topology may name (IB MTU values). */
export const ROCE_MTUS = [256, 512, 1024, 2048, 4096] as const;

export interface MtuPlan {
  /** RoCE path MTU of the topology (payload bytes per packet). */
  readonly pathMtu: number;
  /** Largest frame the fabric carries, without FCS: a full RoCE WRITE packet (+4 with an 802.1Q tag). */
  readonly largestFrame: number;
  /** The MTU of every device port, as the live lab sets it (path MTU + 128). */
  readonly portMtu: number;
  /** VXLAN's bytes for this underlay address family. */
  readonly overhead: number;
  /** The smallest underlay interface MTU under which the kernel gives a tunnel port `portMtu`. */
  readonly underlayNeeded: number;
  /** The underlay MTU the export was told about (--underlay-mtu). */
  readonly underlayMtu: number;
  readonly fits: boolean;
  /** The largest RoCE path MTU whose tunnel ports fit this underlay (null: not even 256). */
  readonly largestFittingPathMtu: number | null;
}

/**
 * The MTU budget of tunnelled links. `tagged`: frames may carry an 802.1Q tag (a layer-2 bridge domain),
 * 4 more bytes. A Linux VXLAN interface holds at most its underlay device's MTU minus the overhead
 * (measured on this project's kernel: created with MTU 4224 over a 1500-byte device it comes up with
 * 1450, and setting 4224 afterwards fails with EINVAL), so the port MTU the lab uses decides what the
 * underlay needs.
 */
export function mtuPlan(
  pathMtu: number,
  underlayMtu: number,
  family: AddressFamily,
  tagged: boolean,
): MtuPlan {
  const overhead = vxlanOverhead(family);
  const portMtu = interfaceMtu(pathMtu);
  const underlayNeeded = portMtu + overhead;
  const fitting = ROCE_MTUS.filter((m) => interfaceMtu(m) + overhead <= underlayMtu);
  return {
    pathMtu,
    largestFrame: maxFrameBytes(pathMtu) + (tagged ? 4 : 0),
    portMtu,
    overhead,
    underlayNeeded,
    underlayMtu,
    fits: underlayNeeded <= underlayMtu,
    largestFittingPathMtu: fitting.length > 0 ? fitting[fitting.length - 1]! : null,
  };
}

/** One line for a person: what the underlay needs, and whether the one given has it. */
export function describeMtuPlan(p: MtuPlan, family: AddressFamily): string {
  const need =
    `tunnelled links need an underlay MTU of at least ${p.underlayNeeded} bytes ` +
    `(port MTU ${p.portMtu} = RoCE MTU ${p.pathMtu} + 128, + ${p.overhead} for VXLAN over ${family}; ` +
    `the largest frame is ${p.largestFrame} bytes)`;
  if (p.fits) return `${need}: the underlay's ${p.underlayMtu} is enough`;
  const lower =
    p.largestFittingPathMtu === null
      ? "no RoCE MTU fits it"
      : `or lower the topology's defaults.mtu to ${p.largestFittingPathMtu}`;
  return (
    `${need}: the underlay MTU ${p.underlayMtu} is too small — enable jumbo frames on the machines' ` +
    `interfaces and pass --underlay-mtu 9000, ${lower}`
  );
}

/**
 * Delay a cross-host link adds, in emulated ns: the tunnel's real one-way latency slowed down by the
 * dilation (emulated = real / dilation), rounded up. The devices still add the topology's own link delay
 * on top, so PFC headroom must cover both.
 */
export function tunnelDelayNs(underlayLatencyNs: number, dilation: number): number {
  return Math.ceil(underlayLatencyNs / dilation);
}
