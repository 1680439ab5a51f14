// Turns what users write for a switch into what its core runs with: one settings layer applied to tunables
// (the layers themselves are stacked by settings-layers.ts), and the whole SwitchConfig of a node.

import type { EcnQueueConfig, PortConfig, Route, SwitchConfig, SwitchTunables } from "../switch/config.js";
import { type AddressPlan, portKey } from "./address-plan.js";
import type { SwitchSettings } from "./schema.js";
import { linkAt, nodeByName, type Topology } from "./topology.js";

/** Bytes of a full-size RoCE data frame: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + payload + ICRC 4. */
export function maxFrameBytes(mtu: number): number {
  return 14 + 20 + 8 + 12 + 16 + mtu + 4;
}

/** Applies one layer of settings on top of resolved tunables. */
export function applySwitchSettings(t: SwitchTunables, s: SwitchSettings): SwitchTunables {
  const qos = s.qos;
  const dscpToPriority = [...t.qos.dscpToPriority];
  for (const [dscp, prio] of Object.entries(qos?.dscpToPriority ?? {})) dscpToPriority[Number(dscp)] = prio;
  const pfc = s.pfc;
  const ecnQueues: Record<number, EcnQueueConfig> = { ...t.ecn.queues };
  for (const [q, cfg] of Object.entries(s.ecn?.queues ?? {})) {
    if (cfg === null) delete ecnQueues[Number(q)];
    else ecnQueues[Number(q)] = { kminBytes: cfg.kmin, kmaxBytes: cfg.kmax, pmax: cfg.pmax };
  }
  let xoff = t.pfc.xoff;
  if (pfc?.xoff === "dynamic")
    xoff = { mode: "dynamic", alpha: pfc.alpha ?? (xoff.mode === "dynamic" ? xoff.alpha : 1 / 8) };
  else if (typeof pfc?.xoff === "number") xoff = { mode: "static", bytes: pfc.xoff };
  else if (pfc?.alpha !== undefined && xoff.mode === "dynamic") xoff = { mode: "dynamic", alpha: pfc.alpha };
  return {
    qos: {
      dscpToPriority,
      priorityToQueue: qos?.priorityToQueue ?? t.qos.priorityToQueue,
      controlPriority: qos?.controlPriority ?? t.qos.controlPriority,
      lossless: qos?.lossless ?? t.qos.lossless,
      strictQueues: qos?.strictQueues ?? t.qos.strictQueues,
      dwrrWeights: qos?.dwrrWeights ?? t.qos.dwrrWeights,
      dwrrQuantumBytes: qos?.dwrrQuantum ?? t.qos.dwrrQuantumBytes,
    },
    buffer: {
      sizeBytes: s.buffer?.size ?? t.buffer.sizeBytes,
      reserveBytes: s.buffer?.reserve ?? t.buffer.reserveBytes,
      lossyAlpha: s.buffer?.lossyAlpha ?? t.buffer.lossyAlpha,
      headroomBytes: s.buffer?.headroom ?? t.buffer.headroomBytes,
    },
    pfc: {
      enabled: pfc?.enabled ?? t.pfc.enabled,
      xoff,
      resumeOffsetBytes: pfc?.resumeOffset ?? t.pfc.resumeOffsetBytes,
      pauseQuanta: pfc?.pauseQuanta ?? t.pfc.pauseQuanta,
      refreshFraction: pfc?.refresh ?? t.pfc.refreshFraction,
      headroomSlackNs: pfc?.headroomSlack ?? t.pfc.headroomSlackNs,
    },
    ecn: { queues: ecnQueues, fast: s.ecn?.fast ?? t.ecn.fast },
    ecmp: {
      fields: s.ecmp?.fields ?? t.ecmp.fields,
      algorithm: s.ecmp?.algorithm ?? t.ecmp.algorithm,
      seed: s.ecmp?.seed ?? t.ecmp.seed,
    },
  };
}

export function buildSwitchConfig(
  topo: Topology,
  plan: AddressPlan,
  routes: readonly Route[],
  name: string,
  tunables: SwitchTunables,
): SwitchConfig {
  const node = nodeByName(topo, name)!;
  const kinds = new Map(topo.nodes.map((n) => [n.name, n.kind]));
  const ports: PortConfig[] = node.ports.map((port) => {
    const addr = plan.ports.get(portKey(name, port))!;
    const attached = linkAt(topo, name, port)!;
    return {
      port,
      name: `eth${port}`,
      mac: addr.mac,
      ip: addr.ip,
      prefixLength: addr.prefixLength,
      rateBps: attached.link.rateBps,
      delayNs: attached.link.delayNs,
      peer: { node: attached.peer.node, port: attached.peer.port, kind: kinds.get(attached.peer.node)! },
    };
  });
  return {
    name,
    ports,
    routes,
    maxFrameBytes: maxFrameBytes(topo.mtu),
    ...tunables,
  };
}
