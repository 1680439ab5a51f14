// N-tuple planning (H3C RoCE overview §1.4.4, "N 元组规划"): with leaves hashing on the source IP alone, which
// uplink each host's traffic takes is fixed by its address. For every leaf this reports how its hosts spread
// over its uplinks under the leaf's own hash (the switch's strategy code, its algorithm and seed, fields
// reduced to the source IP) and proposes addresses that spread them evenly: for each host, the first /31 of
// the host pool, not used by another link, whose host address (the odd one, as the address plan gives hosts)
// hashes to an uplink with fewer than ceil(hosts / uplinks) hosts, keeping a host's own address when it
// already fits.

import { EcmpGroup } from "../../lb/ecmp-group.js";
import { type AddressPlan, hostAddress, planAddresses } from "../../scenario/address-plan.js";
import { computeRoutes } from "../../scenario/routing.js";
import { SettingsLayers } from "../../scenario/settings-layers.js";
import { applySwitchSettings, buildSwitchConfig } from "../../scenario/switch-config.js";
import { linkAt, NodeKind, type Topology } from "../../scenario/topology.js";
import { PacketMeta } from "../../switch/packet-meta.js";
import { ipToString } from "../../wire/bytes.js";
import { IpProtocol } from "../../wire/ipv4.js";
import { ROCEV2_UDP_PORT } from "../../wire/udp.js";
import { strategyOf } from "./source-ports.js";

export interface LeafSpread {
  readonly leaf: string;
  /** Uplink ports, in ECMP member order. */
  readonly uplinks: readonly number[];
  readonly hosts: readonly {
    readonly host: string;
    readonly ip: string;
    readonly uplink: number;
    readonly proposedIp: string;
    readonly proposedUplink: number;
  }[];
  /** Hosts per uplink now and with the proposed addresses. */
  readonly now: readonly number[];
  readonly proposed: readonly number[];
}

function hostPoolRange(topo: Topology): { base: number; size: number } {
  const [addr, len] = topo.hostPool.split("/") as [string, string];
  const parts = addr.split(".").map(Number);
  const ip = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
  const size = 2 ** (32 - Number(len));
  return { base: ip - (ip % size), size };
}

/** Source-IP spread per leaf (a switch with hosts and more than one uplink), now and as proposed. */
export function planSourceAddresses(topo: Topology): LeafSpread[] {
  const plan: AddressPlan = planAddresses(topo);
  const routes = computeRoutes(topo, plan);
  const settings = new SettingsLayers(topo);
  const used = new Set<number>([...plan.ports.values()].map((p) => p.ip >>> 1));
  const pool = hostPoolRange(topo);
  const hosts = topo.nodes.filter((n) => n.kind === NodeKind.Host);
  const out: LeafSpread[] = [];
  for (const leaf of topo.nodes.filter((n) => n.kind === NodeKind.Switch)) {
    const mine = hosts.filter((h) => linkAt(topo, h.name, 1)?.peer.node === leaf.name);
    const remote = hosts.find((h) => !mine.includes(h));
    if (mine.length === 0 || remote === undefined) continue;
    const route = routes
      .get(leaf.name)!
      .find((r) => r.prefix === hostAddress(plan, remote.name).ip && r.prefixLength === 32);
    if (route === undefined || route.nextHops.length < 2) continue;
    const tunables = applySwitchSettings(settings.switchTunables(leaf.name), { ecmp: { fields: ["srcIp"] } });
    const strategy = strategyOf(buildSwitchConfig(topo, plan, [], leaf.name, tunables));
    const group = new EcmpGroup(route.nextHops, () => true);
    const uplinks = group.members.map((m) => m.port);
    const m = new PacketMeta();
    m.protocol = IpProtocol.UDP;
    m.dstPort = ROCEV2_UDP_PORT;
    m.srcPort = 0xc000;
    m.dstIp = hostAddress(plan, remote.name).ip;
    const uplinkOf = (ip: number): number => {
      m.srcIp = ip;
      return strategy.select(m, group, 0).port;
    };
    const cap = Math.ceil(mine.length / uplinks.length);
    const load = new Map<number, number>(uplinks.map((u) => [u, 0]));
    const rows = mine.map((h) => ({ host: h.name, ip: hostAddress(plan, h.name).ip }));
    const proposals = new Map<string, number>();
    // Hosts that already fit keep their address.
    for (const r of rows) {
      const u = uplinkOf(r.ip);
      if (load.get(u)! < cap) {
        load.set(u, load.get(u)! + 1);
        proposals.set(r.host, r.ip);
      }
    }
    let next = 0;
    for (const r of rows) {
      if (proposals.has(r.host)) continue;
      for (; next < pool.size / 2; next++) {
        const subnet = (pool.base >>> 1) + next;
        if (used.has(subnet)) continue;
        const ip = ((subnet << 1) + 1) >>> 0;
        const u = uplinkOf(ip);
        if (load.get(u)! >= cap) continue;
        load.set(u, load.get(u)! + 1);
        used.add(subnet);
        proposals.set(r.host, ip);
        next++;
        break;
      }
    }
    const count = (ips: number[]) => uplinks.map((u) => ips.filter((ip) => uplinkOf(ip) === u).length);
    out.push({
      leaf: leaf.name,
      uplinks,
      hosts: rows.map((r) => {
        const p = proposals.get(r.host) ?? r.ip;
        return {
          host: r.host,
          ip: ipToString(r.ip),
          uplink: uplinkOf(r.ip),
          proposedIp: ipToString(p),
          proposedUplink: uplinkOf(p),
        };
      }),
      now: count(rows.map((r) => r.ip)),
      proposed: count(rows.map((r) => proposals.get(r.host) ?? r.ip)),
    });
  }
  return out;
}
