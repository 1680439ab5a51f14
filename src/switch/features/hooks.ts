// The features behind each pipeline hook, collected when the switch is configured: a hook no feature has
// (or none has active) is an empty array, and the stage that calls it pays nothing.

import { Hook, type SwitchFeature } from "./feature.js";

export class HookSet {
  ingress: SwitchFeature[] = [];
  classified: SwitchFeature[] = [];
  admit: SwitchFeature[] = [];
  enqueued: SwitchFeature[] = [];
  dequeued: SwitchFeature[] = [];
  pauseChanged: SwitchFeature[] = [];

  /** Rebuilds every array from the features, in their order. */
  collect(features: readonly SwitchFeature[]): void {
    const active = (f: SwitchFeature, h: Hook): boolean =>
      typeof f[h] === "function" && (f.activeHooks === undefined || f.activeHooks().includes(h));
    this.ingress = features.filter((f) => active(f, Hook.Ingress));
    this.classified = features.filter((f) => active(f, Hook.Classified));
    this.admit = features.filter((f) => active(f, Hook.Admit));
    this.enqueued = features.filter((f) => active(f, Hook.Enqueued));
    this.dequeued = features.filter((f) => active(f, Hook.Dequeued));
    this.pauseChanged = features.filter((f) => active(f, Hook.PauseChanged));
  }
}
