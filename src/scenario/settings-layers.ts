// The one owner of settings layers. A switch runs with, bottom to top: the switch defaults, its profile
// (the node's, else the topology default's, else "default"), the topology's switch defaults, the node's own
// settings, then the lab's layers in the order they came: a runtime's base layer (the live lab's headroom
// slack), the scenario's overrides, its `set` steps, presets and configure requests from the TUI or CLI. A
// later layer wins for every key it names and leaves the others alone; a layer naming a profile puts that
// profile's settings down first. A host's NIC runs with its defaults, then the lab's host layers, merged the
// same way (later keys win).
//
// The simulator (sim-fabric, run-sim, sim-lab) and the live supervisor keep their layers here and read the
// resolved settings back; nothing else stacks settings.

import { hashString } from "../device/prng.js";
import type { NicCommand } from "../nic/commands.js";
import { mergeNicSettings } from "../nic/features/registry.js";
import type { SwitchTunables } from "../switch/config.js";
import { defaultTunables } from "../switch/features/registry.js";
import { planAddresses } from "./address-plan.js";
import { nicConfigureCommand } from "./nic-config.js";
import { vtepOf } from "./overlay.js";
import { BUILT_IN_PROFILE_SETTINGS } from "./profiles.js";
import { bridgeDomainOf } from "./rocev1.js";
import type { NicSettings, SwitchSettings } from "./schema.js";
import { applySwitchSettings } from "./switch-config.js";
import { NodeKind, nodeByName, type Topology } from "./topology.js";

/** Settings put on top of a lab at once: for every switch, for some switches by name, for every host. */
export interface SettingsChange {
  readonly switches: readonly SwitchSettings[];
  readonly nodes: Readonly<Record<string, readonly SwitchSettings[]>>;
  readonly hosts: readonly NicSettings[];
}

export const NO_CHANGE: SettingsChange = { switches: [], nodes: {}, hosts: [] };

/** One switch layer, for every switch or only for the switches named in `only`. */
export function switchChange(settings: SwitchSettings, only?: readonly string[]): SettingsChange {
  if (only === undefined) return { ...NO_CHANGE, switches: [settings] };
  return { ...NO_CHANGE, nodes: Object.fromEntries(only.map((name) => [name, [settings]])) };
}

/** One host layer, for every host. */
export function hostChange(settings: NicSettings): SettingsChange {
  return { ...NO_CHANGE, hosts: [settings] };
}

/** Settings of a named profile: the topology's own first, then the built-in ones. */
export function profileSettings(topo: Topology, name: string): SwitchSettings {
  const own = topo.profiles[name];
  if (own !== undefined) return own;
  const builtIn = BUILT_IN_PROFILE_SETTINGS[name];
  if (builtIn === undefined) throw new Error(`unknown switch profile ${name}`);
  return builtIn;
}

/** The tunables of switch `name`: defaults, profile, topology defaults, node settings, then `extra`. */
export function resolveTunables(
  topo: Topology,
  name: string,
  extra: readonly SwitchSettings[] = [],
): SwitchTunables {
  const node = nodeByName(topo, name);
  if (!node) throw new Error(`no node ${name}`);
  const { profile: defaultProfile, ...defaults } = topo.defaultSwitch;
  const { profile: nodeProfile, ...own } = node.settings;
  let t = defaultTunables({ hashSeed: hashString(name) });
  if (topo.overlay !== undefined)
    t = { ...t, overlay: { ...t.overlay, vxlan: vtepOf(topo, planAddresses(topo), name) } };
  if (topo.bridge !== undefined) t = { ...t, bridge: { ...t.bridge, domain: bridgeDomainOf(topo, name) } };
  t = applySwitchSettings(t, profileSettings(topo, nodeProfile ?? defaultProfile ?? "default"));
  t = applySwitchSettings(t, defaults);
  t = applySwitchSettings(t, own);
  for (const layer of extra) {
    const { profile, ...rest } = layer;
    if (profile !== undefined) t = applySwitchSettings(t, profileSettings(topo, profile));
    t = applySwitchSettings(t, rest);
  }
  return t;
}

/** The settings layers of one lab, above what its topology says. */
export class SettingsLayers {
  private readonly switchExtra = new Map<string, SwitchSettings[]>();
  private readonly hostExtra: NicSettings[] = [];

  /** `base`: the first lab layers (a runtime's own, then the scenario's overrides). */
  constructor(
    readonly topo: Topology,
    ...base: readonly SettingsChange[]
  ) {
    for (const n of topo.nodes) if (n.kind === NodeKind.Switch) this.switchExtra.set(n.name, []);
    for (const change of base) this.push(change);
  }

  /** The switches, in topology order. */
  get switches(): readonly string[] {
    return [...this.switchExtra.keys()];
  }

  /** Puts `change` on top: its `switches` on every switch, its `nodes` on the switches they name, its `hosts` on every host. */
  push(change: SettingsChange): void {
    for (const [name, layers] of this.switchExtra)
      layers.push(...change.switches, ...(change.nodes[name] ?? []));
    this.hostExtra.push(...change.hosts);
  }

  /** The lab layers of switch `name`, bottom first. */
  switchLayers(name: string): readonly SwitchSettings[] {
    const layers = this.switchExtra.get(name);
    if (layers === undefined) throw new Error(`no switch ${name}`);
    return layers;
  }

  /** Everything switch `name` runs with, resolved. */
  switchTunables(name: string): SwitchTunables {
    return resolveTunables(this.topo, name, this.switchLayers(name));
  }

  /** The lab's host layers, merged. */
  hostSettings(): NicSettings {
    return mergeNicSettings(this.hostExtra);
  }

  /** What a running NIC is told after `changed` went on top (see nicConfigureCommand). */
  hostConfigure(changed: readonly NicSettings[]): Extract<NicCommand, { type: "configure" }> {
    return nicConfigureCommand(this.hostSettings(), mergeNicSettings(changed));
  }
}
