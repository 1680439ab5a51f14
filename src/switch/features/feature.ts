// The seam features plug into. A feature module (one file under features/, one line in registry.ts) owns
// a section of the switch's configuration — its zod schema (user units in, resolved values out, the same
// names at both ends), its defaults, how a settings layer merges into it, its documentation — and creates
// the runtime feature: its state, counters (declared on the switch's CounterSet), timers (registered on the
// TimerRegistry), telemetry and commands, and the hooks it implements.
//
// Hooks are class methods; when the switch is configured it collects, per hook, the features that have it
// (and say it is active), so an absent hook costs nothing per packet and no closure is made per packet.
// The pipeline calls them in registry order:
//   ingress     every frame that arrived on an up port, parsed (false: the feature consumed it)
//   classified  an IPv4 packet with its priority group and queue
//   admit       before MMU admission, out-port known (false: the feature dropped it and counted why)
//   enqueued    admitted and queued
//   dequeued    left its queue: chosen to be sent (verdict Forward) or flushed by a link going down (Drop)
//   pauseChanged a received PFC paused or resumed a priority on a port

import type { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import type { PacketMeta } from "../packet-meta.js";
import type { SwitchPort } from "../port.js";
import type { SwitchDetail } from "../stats-types.js";

export const Hook = {
  Ingress: "ingress",
  Classified: "classified",
  Admit: "admit",
  Enqueued: "enqueued",
  Dequeued: "dequeued",
  PauseChanged: "pauseChanged",
} as const;
export type Hook = (typeof Hook)[keyof typeof Hook];

export interface FeatureHooks {
  ingress?(m: PacketMeta, now: Nanoseconds): boolean;
  classified?(m: PacketMeta, now: Nanoseconds): void;
  admit?(m: PacketMeta, now: Nanoseconds): boolean;
  enqueued?(m: PacketMeta, now: Nanoseconds): void;
  dequeued?(m: PacketMeta, now: Nanoseconds): void;
  pauseChanged?(port: number, priority: number, paused: boolean, now: Nanoseconds): void;
}

/** A command a feature answers: `undefined` means "not mine". */
export interface FeatureCommand {
  readonly type: string;
}
export type FeatureReply = { readonly ok: true } | { readonly ok: false; readonly error: string };

export interface SwitchFeature extends FeatureHooks {
  readonly name: string;
  /** Takes (new) configuration values: at construction and after every `configure` command. */
  configure(cfg: SwitchConfig, now: Nanoseconds): void;
  /** After a `configure` command, per port in port order: bring the port in line with the new values. */
  reconfigurePort?(port: SwitchPort, now: Nanoseconds): void;
  /** A port's carrier went down or came back (after the switch flushed its queues). */
  linkChanged?(port: SwitchPort, up: boolean, now: Nanoseconds): void;
  command?(cmd: FeatureCommand, now: Nanoseconds): FeatureReply | undefined;
  /** The device started (its runtime can take frames and timers now). */
  start?(now: Nanoseconds): void;
  /** Tables the feature shows in the switch's stats (merged into SwitchStats.detail). */
  describe?(now: Nanoseconds): SwitchDetail;
  /** The hooks that do something with the current configuration (default: every hook it implements). */
  activeHooks?(): readonly Hook[];
}

/** What a switch's name gives a section's defaults. */
export interface DefaultsContext {
  /** A per-switch 32-bit seed (the hash of the switch's name). */
  readonly hashSeed: number;
}

export interface FeatureModule<S extends z.ZodType = z.ZodType, C = z.output<S>> {
  /** The section's key in settings files and in SwitchConfig. */
  readonly key: string;
  /** One paragraph for docs and `--help`: what the feature does and its sources. */
  readonly doc: string;
  /** A settings layer of this section as users write it (every key optional). */
  readonly settings: S;
  defaults(ctx: DefaultsContext): C;
  /** Merges one validated settings layer into the resolved section. */
  apply(config: C, layer: z.output<S>): C;
  create(ctx: SwitchContext): SwitchFeature;
}

/** Keeps a module's exact schema and config types (so the registry can derive SwitchSettings). */
export function defineFeature<S extends z.ZodType, C>(m: FeatureModule<S, C>): FeatureModule<S, C> {
  return m;
}
