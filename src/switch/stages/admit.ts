// Stage 4, admit: the features' admit hooks (WRED/ECN: mark, pass or drop), then the MMU's admission
// (reserve, shared pool, headroom; mmu.ts). A packet that is not admitted is dropped with its reason.

import type { Nanoseconds } from "../../device/contract.js";
import type { SwitchDrops } from "../drops.js";
import type { HookSet } from "../features/hooks.js";
import type { Mmu } from "../mmu.js";
import { type PacketMeta, Verdict } from "../packet-meta.js";

export class Admission {
  constructor(
    private readonly mmu: Mmu,
    private readonly drops: SwitchDrops,
    private readonly hooks: HookSet,
  ) {}

  admit(m: PacketMeta, now: Nanoseconds): boolean {
    const hooks = this.hooks.admit;
    for (let i = 0; i < hooks.length; i++) if (!hooks[i]!.admit!(m, now)) return false;
    const charged = this.mmu.admit(m.inPort, m.pg, m.outPort, m.queue, m.length);
    if (typeof charged === "string") {
      this.drops.drop(charged, m.lossless, m.inPort, m.outPort, m.queue, now);
      m.verdict = Verdict.Drop;
      return false;
    }
    m.headroom = charged;
    return true;
  }
}
