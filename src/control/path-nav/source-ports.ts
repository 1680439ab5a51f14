// Path navigation, host mode: find for a QP a UDP source port whose ECMP hash, at every switch of its
// planned path, picks the planned next hop. Exact because it hashes with the switches' own code: each
// switch is modelled by a Switch core built from that switch's configuration (its ECMP fields, algorithm
// and seed), whose load-balancing strategy selects over an EcmpGroup of the same members, in the same
// order (by the peer's address) and with the same live set as the switch's FIB holds for the
// destination — rebuilt here from the LLDP view (fabric-graph.ts).

import type { DeviceEnv } from "../../device/contract.js";
import { EcmpGroup } from "../../lb/ecmp-group.js";
import type { PathEntry } from "../../lb/path-table.js";
import type { LbStrategy } from "../../lb/strategy.js";
import type { SwitchConfig } from "../../switch/config.js";
import { PacketMeta } from "../../switch/packet-meta.js";
import { Switch } from "../../switch/switch.js";
import { IpProtocol } from "../../wire/ipv4.js";
import { ROCEV2_UDP_PORT } from "../../wire/udp.js";
import type { FabricGraph, Hop, HostAttachment } from "./fabric-graph.js";

/** RoCEv2 source ports (IB Annex A17 recommends 0xC000–0xFFFF for the flow label range). */
export const SOURCE_PORT_FIRST = 0xc000;
export const SOURCE_PORT_LAST = 0xffff;

const QUIET_ENV: DeviceEnv = {
  transmit: () => {},
  arm: () => {},
  disarm: () => {},
  emit: () => {},
  random: () => 0,
};

/** The strategy of a switch with this configuration (a model switch that never runs). */
export function strategyOf(cfg: SwitchConfig): LbStrategy {
  const s = new Switch({ ...cfg, routes: [] }, QUIET_ENV).strategy;
  if (s === null) throw new Error(`${cfg.name}: no load-balancing strategy configured`);
  return s;
}

export interface FlowKey {
  readonly srcIp: number;
  readonly dstIp: number;
  /** The responder's QP (BTH Dest QP of the data packets). */
  readonly destQp: number;
}

export class EcmpModel {
  private readonly strategies = new Map<string, LbStrategy>();
  private readonly m = new PacketMeta();

  constructor(
    private readonly graph: FabricGraph,
    configs: ReadonlyMap<string, SwitchConfig>,
  ) {
    for (const [name, cfg] of configs) this.strategies.set(name, strategyOf(cfg));
  }

  /** The port switch `hop.sw` sends this flow out of towards `dst`, with source port `sport`. */
  select(hop: Hop, key: FlowKey, sport: number, dst: HostAttachment, groups: Map<string, EcmpGroup>): number {
    let group = groups.get(hop.sw);
    if (group === undefined) {
      group = new EcmpGroup(this.graph.nextHops(hop.sw, dst), () => true);
      groups.set(hop.sw, group);
    }
    if (group.live.length === 0) return -1;
    const m = this.m;
    m.inPort = hop.inPort;
    m.srcIp = key.srcIp;
    m.dstIp = key.dstIp;
    m.protocol = IpProtocol.UDP;
    m.srcPort = sport;
    m.dstPort = ROCEV2_UDP_PORT;
    m.destQp = key.destQp;
    const strategy = this.strategies.get(hop.sw);
    if (strategy === undefined) throw new Error(`no configuration for switch ${hop.sw}`);
    return strategy.select(m, group, 0).port;
  }

  /**
   * The path a flow takes from the host port `src` with source port `sport`, hop by hop: what the
   * switches' hashing (and, when given, their path-table entries with a live next hop) choose. Stops at
   * the destination's port, or early where the model has no route.
   */
  walk(
    src: HostAttachment,
    key: FlowKey,
    sport: number,
    dst: HostAttachment,
    tables?: ReadonlyMap<string, readonly PathEntry[]>,
  ): Hop[] {
    const groups = new Map<string, EcmpGroup>();
    const hops: Hop[] = [];
    let at: HostAttachment = src;
    for (let n = 0; n < 64; n++) {
      const pinned = tables
        ?.get(at.sw)
        ?.find((e) => e.srcIp === key.srcIp && e.dstIp === key.dstIp && e.srcPort === sport);
      const live = this.graph.nextHops(at.sw, dst).map((h) => h.port);
      const hop = { sw: at.sw, port: -1, inPort: at.port };
      const port =
        pinned !== undefined && live.includes(pinned.port)
          ? pinned.port
          : this.select({ ...hop, port: -1 }, key, sport, dst, groups);
      if (port < 0) break;
      hops.push({ ...hop, port });
      if (at.sw === dst.sw) break;
      const a = this.graph.adjacency.get(at.sw)?.find((x) => x.port === port);
      if (a === undefined) break;
      at = { sw: a.peer, port: a.peerPort };
      groups.clear();
    }
    return hops;
  }

  /**
   * A source port that puts the flow on `path`: `prefer` if it already does, else the first that does
   * from SOURCE_PORT_FIRST up; null when none of the range does.
   */
  sourcePortFor(path: readonly Hop[], key: FlowKey, dst: HostAttachment, prefer: number): number | null {
    const groups = new Map<string, EcmpGroup>();
    const fits = (sport: number): boolean => {
      for (const hop of path) if (this.select(hop, key, sport, dst, groups) !== hop.port) return false;
      return true;
    };
    if (prefer >= 1 && prefer <= 0xffff && fits(prefer)) return prefer;
    for (let p = SOURCE_PORT_FIRST; p <= SOURCE_PORT_LAST; p++) if (fits(p)) return p;
    return null;
  }
}
