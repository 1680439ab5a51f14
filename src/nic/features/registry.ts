// Every NIC feature module. Adding one is its file plus one line here: its section then appears in the
// host settings schema (scenario/schema.ts), in the resolved NicConfig, in settings layers and in the NIC's
// `configure` command, under the module's key.

import { z } from "zod";
import type { NicConfig, NicTunables } from "../config.js";
import { ccFeature } from "./cc.js";
import { dctcpFeature, hpccFeature, timelyFeature } from "./cc-family.js";
import { dcqcnFeature } from "./dcqcn.js";
import { mergeSection, type NicDefaultsContext, type NicFeatureModule } from "./feature.js";
import { pfcStallPreventionFeature } from "./pfc-stall-prevention.js";
import { nicQosFeature } from "./qos.js";
import { reorderFeature } from "./reorder.js";
import { roceFeature } from "./roce.js";
import { rxBufferFeature } from "./rx-buffer.js";
import { sourcePortFeature } from "./source-port.js";
import { transportFeature } from "./transport.js";

export const NIC_FEATURES = {
  cc: ccFeature,
  dcqcn: dcqcnFeature,
  hpcc: hpccFeature,
  timely: timelyFeature,
  dctcp: dctcpFeature,
  transport: transportFeature,
  qos: nicQosFeature,
  rxBuffer: rxBufferFeature,
  reorder: reorderFeature,
  roce: roceFeature,
  pfcStallPrevention: pfcStallPreventionFeature,
  sourcePort: sourcePortFeature,
} as const;

type Features = typeof NIC_FEATURES;
type ConfigOf<M> = M extends NicFeatureModule<z.ZodType, infer C> ? C : never;
type SettingsOf<M> = M extends NicFeatureModule<infer S, unknown> ? S : never;

/** One resolved section per registered module, as the registry derives it. */
type RegisteredTunables = { readonly [K in keyof Features]: ConfigOf<Features[K]> };

/** True when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The sections the modules declare on NicTunables (config.ts) are exactly the registered ones: a module
 * left out of NIC_FEATURES, or a section declared under another key or type, fails to compile here.
 */
export const NIC_TUNABLES_MATCH_REGISTRY: Same<NicTunables, RegisteredTunables> = true;

/** A layer of host settings as validated: every section optional. */
export type NicSettings = { readonly [K in keyof Features]?: z.output<SettingsOf<Features[K]>> };

/** Sections to put on a running NIC; a section given as null goes back to its defaults. */
export type NicSettingsUpdate = { readonly [K in keyof Features]?: z.output<SettingsOf<Features[K]>> | null };

/** The sections that restart the QPs' congestion control when they change. */
const CC_SECTIONS = ["cc", "dcqcn", "hpcc", "timely", "dctcp"] as const;

const MODULES: readonly NicFeatureModule[] = Object.values(NIC_FEATURES) as readonly NicFeatureModule[];

/** The schema of a layer of host settings (`hosts:` in overrides and `set` steps). */
export function nicSettingsSchema() {
  const shape = Object.fromEntries(Object.entries(NIC_FEATURES).map(([k, m]) => [k, m.settings.optional()]));
  return z.object(shape as { [K in keyof Features]: z.ZodOptional<SettingsOf<Features[K]>> }).strict();
}

/** Merges layers of host settings, bottom first: each section key by key, later layers winning. */
export function mergeNicSettings(layers: readonly NicSettings[]): NicSettings {
  const out: Record<string, unknown> = {};
  for (const layer of layers)
    for (const [k, v] of Object.entries(layer)) if (v !== undefined) out[k] = mergeSection(out[k], v);
  return out as NicSettings;
}

/** Every section resolved from merged settings (absent sections: their defaults). */
export function resolveNicTunables(s: NicSettings, ctx: NicDefaultsContext): NicTunables {
  const out: Record<string, unknown> = {};
  for (const m of MODULES) out[m.key] = m.resolve((s as Record<string, unknown>)[m.key], ctx);
  return out as unknown as NicTunables;
}

/**
 * The sections a running NIC is sent after `changed` went on top of the layers whose merge is `s`, as
 * users write them (the NIC resolves them against its own port): every section the merged settings set,
 * except those that go only when changed (the congestion control) and were not.
 */
export function sectionsToSend(s: NicSettings, changed: NicSettings): NicSettingsUpdate {
  const out: Record<string, unknown> = {};
  const all = s as Record<string, unknown>;
  const touched = changed as Record<string, unknown>;
  // Choosing another algorithm, or changing DCQCN, restarts the QPs' congestion control with both.
  const ccChanged = CC_SECTIONS.some((k) => touched[k] !== undefined);
  for (const m of MODULES) {
    if (all[m.key] === undefined || (m.onlyWhenChanged && !ccChanged)) continue;
    out[m.key] = all[m.key];
  }
  if (ccChanged) for (const k of CC_SECTIONS) out[k] ??= null;
  return out as NicSettingsUpdate;
}

/** `cfg` with the sections of `s` resolved against its port (a section given as null: its defaults). */
export function applyNicSettings(cfg: NicConfig, s: NicSettingsUpdate): NicConfig {
  const out: Record<string, unknown> = { ...cfg };
  const given = s as Record<string, unknown>;
  for (const m of MODULES) {
    if (!(m.key in given)) continue;
    out[m.key] = m.resolve(given[m.key] ?? undefined, {
      rateBps: cfg.port.rateBps,
      fabricRttNs: cfg.fabricRttNs,
    });
  }
  return out as unknown as NicConfig;
}

/** The first thing wrong with a configuration's sections, or null. */
export function checkNicTunables(cfg: NicConfig): string | null {
  for (const m of MODULES) {
    const why = m.check?.((cfg as unknown as Record<string, unknown>)[m.key], cfg) ?? null;
    if (why !== null) return why;
  }
  return null;
}
