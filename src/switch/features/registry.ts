// Every switch feature module, in the order their hooks run. Adding a feature is its file plus one line
// here: its config section then appears in the settings schema (scenario/schema.ts), in the resolved
// SwitchConfig, in settings layers and in `configure` commands, under the module's key.

import type { z } from "zod";
import type { SwitchTunables } from "../config.js";
import { adaptiveBufferFeature } from "./adaptive-buffer.js";
import { bufferFeature } from "./buffer.js";
import { deadlockPreventionFeature } from "./deadlock-prevention.js";
import { ecmpFeature } from "./ecmp.js";
import { elephantFeature } from "./elephant.js";
import type { DefaultsContext, FeatureModule } from "./feature.js";
import { flowPathsFeature } from "./flow-paths.js";
import { intFeature } from "./int.js";
import { ipccFeature } from "./ipcc.js";
import { l2BridgeFeature } from "./l2-bridge.js";
import { lagFeature } from "./lag.js";
import { lldpFeature } from "./lldp.js";
import { loadBalanceFeature } from "./load-balance.js";
import { type PathEntriesCommand, pathTableFeature } from "./path-table.js";
import { pfcFeature } from "./pfc.js";
import { type PfcEnableCommand, pfcWatchdogFeature } from "./pfc-watchdog.js";
import { qosFeature } from "./qos.js";
import { vxlanOverlayFeature } from "./vxlan-overlay.js";
import { type EcnThresholdsCommand, wredEcnFeature } from "./wred-ecn.js";

export const FEATURES = {
  qos: qosFeature,
  buffer: bufferFeature,
  ecmp: ecmpFeature,
  lb: loadBalanceFeature,
  lag: lagFeature,
  // Before ecn and pfcWatchdog: their admit hooks see the queue a remapped packet moved to.
  deadlockPrevention: deadlockPreventionFeature,
  ecn: wredEcnFeature,
  pfc: pfcFeature,
  pfcWatchdog: pfcWatchdogFeature,
  elephant: elephantFeature,
  adaptiveBuffer: adaptiveBufferFeature,
  overlay: vxlanOverlayFeature,
  lldp: lldpFeature,
  pathTable: pathTableFeature,
  ipcc: ipccFeature,
  bridge: l2BridgeFeature,
  flowPaths: flowPathsFeature,
  int: intFeature,
} as const;

/** The commands features answer (a feature with commands adds its command type here). */
export type FeatureCommands = EcnThresholdsCommand | PathEntriesCommand | PfcEnableCommand;

type Features = typeof FEATURES;
type ConfigOf<M> = M extends FeatureModule<z.ZodType, infer C> ? C : never;
type SettingsOf<M> = M extends FeatureModule<infer S, unknown> ? S : never;

/** One resolved section per registered module, as the registry derives it. */
type RegisteredTunables = { readonly [K in keyof Features]: ConfigOf<Features[K]> };

/** True when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The sections the feature modules declare on SwitchTunables (config.ts) are exactly the registered ones:
 * a module left out of FEATURES, or a section declared under another key or type, fails to compile here.
 */
export const TUNABLES_MATCH_REGISTRY: Same<SwitchTunables, RegisteredTunables> = true;

/** The settings-layer schema of every section, optional, keyed like SwitchTunables. */
export type SettingsShape = { readonly [K in keyof Features]: z.ZodOptional<SettingsOf<Features[K]>> };

/** One settings layer as validated: every section optional. */
export type TunablesLayer = { readonly [K in keyof Features]?: z.output<SettingsOf<Features[K]>> };

export const FEATURE_MODULES: readonly FeatureModule[] = Object.values(FEATURES) as readonly FeatureModule[];

export function settingsShape(): SettingsShape {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, m] of Object.entries(FEATURES)) shape[key] = m.settings.optional();
  return shape as unknown as SettingsShape;
}

export function defaultTunables(ctx: DefaultsContext): SwitchTunables {
  const out: Record<string, unknown> = {};
  for (const [key, m] of Object.entries(FEATURES)) out[key] = (m as FeatureModule).defaults(ctx);
  return out as unknown as SwitchTunables;
}

/** Merges one settings layer into resolved tunables, section by section. */
export function applyLayer(t: SwitchTunables, layer: TunablesLayer): SwitchTunables {
  const out: Record<string, unknown> = { ...t };
  for (const [key, m] of Object.entries(FEATURES)) {
    const section = (layer as Record<string, unknown>)[key];
    if (section !== undefined)
      out[key] = (m as FeatureModule).apply((t as unknown as Record<string, unknown>)[key], section);
  }
  return out as unknown as SwitchTunables;
}
