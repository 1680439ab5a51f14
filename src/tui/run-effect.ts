// Carries out what a key asked for: calls the lab, and records the outcome in the store's status line.
// A lab error becomes a message on the status line; it never reaches React, so it cannot crash the UI.

import { formatSize } from "../device/units.js";
import type { Lab } from "../lab/lab.js";
import { describeAction, presetOf } from "../scenario/action.js";
import { describeEffect, type Effect } from "./effect.js";
import type { DashboardStore } from "./store.js";

/** Pacing of a simulated run (absent for a live lab, whose clock is the real one). */
export interface SimPacing {
  /** Real time per emulated time now. */
  dilation(): number;
  paused(): boolean;
  pause(): void;
  resume(): void;
  setDilation(dilation: number): void;
}

/** Dilation bounds for the speed keys: from 1 emulated ms per 0.1 real s to 1 per 1000 real s. */
export const MIN_SIM_DILATION = 100;
export const MAX_SIM_DILATION = 1_000_000;

async function perform(
  e: Effect,
  lab: Lab,
  store: DashboardStore,
  pacing: SimPacing | null,
): Promise<string> {
  switch (e.type) {
    case "action": {
      const a = e.action;
      const r = await lab.apply(a);
      if (a.kind === "incast") {
        const n = typeof a.from === "number" ? a.from : a.from.length;
        return `${r.workload ?? "incast"}: ${n} senders x ${formatSize(a.bytes)} -> ${a.to}`;
      }
      if (a.kind === "set") {
        const preset = presetOf(a.change);
        if (preset !== null) {
          store.setPreset(preset);
          return `preset ${preset} on every switch`;
        }
      }
      // Short forms for the status line (an 80-column screen leaves it ~30 columns); a link down in capitals.
      if (a.kind === "link") return `${a.node}:eth${a.port} ${a.up ? "up" : "DOWN"}`;
      if (a.kind === "pfc-enable") return `${a.node}:eth${a.port} prio ${a.priority}: PFC enabled`;
      return describeAction(a);
    }
    case "pause": {
      if (!pacing) throw new Error("only a simulated run can pause");
      if (pacing.paused()) pacing.resume();
      else pacing.pause();
      store.setPaused(pacing.paused());
      return pacing.paused() ? "paused (space resumes)" : "running";
    }
    case "speed": {
      if (!pacing) throw new Error("only a simulated run changes speed");
      const next = Math.round(
        Math.min(MAX_SIM_DILATION, Math.max(MIN_SIM_DILATION, pacing.dilation() * e.factor)),
      );
      pacing.setDilation(next);
      return `dilation ${next}: 1 emulated ms lasts ${(next / 1000).toFixed(next < 1000 ? 2 : 1)} real s`;
    }
    case "notice":
      throw new Error(e.text);
    case "quit":
      return "quitting";
  }
}

/** Runs an effect; resolves when the lab has answered (never rejects). */
export async function runEffect(
  e: Effect,
  lab: Lab,
  store: DashboardStore,
  pacing: SimPacing | null = null,
): Promise<void> {
  if (e.type !== "notice") store.setAction({ text: `${describeEffect(e)}...`, state: "pending" });
  try {
    store.setAction({ text: await perform(e, lab, store, pacing), state: "ok" });
  } catch (err) {
    store.setAction({ text: err instanceof Error ? err.message : String(err), state: "error" });
  }
}
