// The seam NIC features plug into, as the switch's (switch/features/feature.ts): a feature module owns a
// section of the NIC's configuration, under its key, with one zod schema for what users write (the same
// names in settings files and in the resolved NicConfig), its defaults, and the checks of its values. The
// registry (registry.ts) lists the modules; the settings schema of hosts, the resolved NicConfig, settings
// layers and the NIC's `configure` command all follow from it.

import type { z } from "zod";
import type { NicConfig } from "../config.js";

/** What the NIC's port gives a section's defaults. */
export interface NicDefaultsContext {
  /** The port's line rate, bits/s. */
  readonly rateBps: number;
  /** The fabric's largest base RTT between two hosts, ns, as HPCC's ns-3 derives it (0 or absent: not known). */
  readonly fabricRttNs?: number;
}

export interface NicFeatureModule<S extends z.ZodType = z.ZodType, C = unknown> {
  /** The section's key in settings files (`hosts: { <key>: … }`) and in NicConfig. */
  readonly key: string;
  /** One paragraph for docs and `--help`: what the feature does and its sources. */
  readonly doc: string;
  /** The section as users write it in a settings layer (every field optional). */
  readonly settings: S;
  /** The resolved section from the merged layers (undefined: no layer sets it), defaults filled in. */
  resolve(settings: z.output<S> | undefined, ctx: NicDefaultsContext): C;
  /** What is wrong with a resolved section, given the whole configuration; null when it can run. */
  check?(section: C, cfg: NicConfig): string | null;
  /**
   * A running NIC takes a new value of this section only when a layer changed it (a new DCQCN
   * configuration restarts every QP's reaction point at line rate, which a step that changes only the RTO
   * must not do); the other sections are re-sent on every change.
   */
  readonly onlyWhenChanged?: boolean;
}

/** Keeps a module's exact schema and config types (so the registry can derive the settings types). */
export function defineNicFeature<S extends z.ZodType, C>(m: NicFeatureModule<S, C>): NicFeatureModule<S, C> {
  return m;
}

/** Merges two layers of one section: objects key by key, anything else replaced. */
export function mergeSection(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  return isObject(a) && isObject(b) ? { ...a, ...b } : b;
}
