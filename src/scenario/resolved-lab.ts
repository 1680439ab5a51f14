// The configuration a lab runs with, every device's resolved through the settings layers as a run
// resolves it: what the loaders validate (validate.ts) and the lint rules read (src/lint/).

import type { NicConfig } from "../nic/config.js";
import type { SwitchConfig } from "../switch/config.js";
import { hostAddress, planAddresses } from "./address-plan.js";
import { fabricBaseRtt } from "./fabric-rtt.js";
import { buildNicConfig } from "./nic-config.js";
import { type SettingsChange, SettingsLayers } from "./settings-layers.js";
import { buildSwitchConfig } from "./switch-config.js";
import { linkAt, NodeKind, type Topology } from "./topology.js";

/** Where a live lab would run: the rules about the machine need it (`up`, `run --runtime live`). */
export interface MachineContext {
  /** Emulated time runs this many times slower than real time. */
  readonly dilation: number;
  /** CPUs available to the lab. */
  readonly cpus: number;
}

/** The configuration a lab runs with, resolved through every settings layer. */
export interface ResolvedLab {
  readonly topology: Topology;
  readonly switches: ReadonlyMap<string, SwitchConfig>;
  readonly hosts: ReadonlyMap<string, NicConfig>;
  /** Given for a live lab; the machine rules find nothing without it. */
  readonly machine?: MachineContext;
}

/** Resolves every device's configuration under `changes` (in order) on top of the topology. */
export function resolveLab(
  topology: Topology,
  changes: readonly SettingsChange[] = [],
  machine?: MachineContext,
): ResolvedLab {
  const layers = new SettingsLayers(topology, ...changes);
  const plan = planAddresses(topology);
  const switches = new Map<string, SwitchConfig>();
  const hosts = new Map<string, NicConfig>();
  for (const n of topology.nodes) {
    if (n.kind === NodeKind.Switch) {
      switches.set(n.name, buildSwitchConfig(topology, plan, [], n.name, layers.switchTunables(n.name)));
    } else {
      const link = linkAt(topology, n.name, 1)?.link;
      if (link === undefined) continue;
      const placement = {
        host: n.name,
        address: hostAddress(plan, n.name),
        link,
        mtu: topology.mtu,
        fabricRttNs: fabricBaseRtt(topology),
      };
      hosts.set(n.name, buildNicConfig(placement, layers.hostSettings(), { answerArp: true }));
    }
  }
  return { topology, switches, hosts, ...(machine ? { machine } : {}) };
}
