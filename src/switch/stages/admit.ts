// Stage 4, admit: the features' admit hooks (WRED/ECN: mark, pass or drop), then the MMU's admission
// (reserve, shared pool, headroom; mmu.ts). A packet that is not admitted is dropped with its reason; a
// headroom drop the PFC feature judges the machine's lateness is counted apart (pause-overrun.ts).

import type { Nanoseconds } from "../../device/contract.js";
import { DropReason, type SwitchDrops } from "../drops.js";
import type { HookSet } from "../features/hooks.js";
import type { Mmu } from "../mmu.js";
import { type PacketMeta, Verdict } from "../packet-meta.js";
import type { PauseOverrun } from "../pause-overrun.js";

export class Admission {
  constructor(
    private readonly mmu: Mmu,
    private readonly drops: SwitchDrops,
    private readonly hooks: HookSet,
    private readonly overrun: PauseOverrun,
  ) {}

  admit(m: PacketMeta, now: Nanoseconds): boolean {
    const hooks = this.hooks.admit;
    for (let i = 0; i < hooks.length; i++) if (!hooks[i]!.admit!(m, now)) return false;
    return this.charge(m, now);
  }

  /** The MMU's admission alone (the L2 bridge forwards without the features' admit hooks). */
  charge(m: PacketMeta, now: Nanoseconds): boolean {
    const charged = this.mmu.admit(m.inPort, m.pg, m.outPort, m.queue, m.length);
    if (typeof charged === "string") {
      const judge = this.overrun.judge;
      const late =
        charged === DropReason.HeadroomExhausted && judge !== null && judge.overrun(m.inPort, m.pg, now);
      this.drops.drop(late ? DropReason.LateOverrun : charged, m.lossless, m.inPort, m.outPort, m.queue, now);
      m.verdict = Verdict.Drop;
      return false;
    }
    m.headroom = charged;
    return true;
  }
}
