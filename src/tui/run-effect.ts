// Carries out what a key asked for: calls the lab, and records the outcome in the store's status line.
// A lab error becomes a message on the status line; it never reaches React, so it cannot crash the UI.

import { formatRate, formatSize } from "../device/units.js";
import type { LabController } from "../lab/controller.js";
import type { DashboardStore } from "./store.js";
import { describeEffect, type Effect } from "./ui-state.js";

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
  lab: LabController,
  store: DashboardStore,
  pacing: SimPacing | null,
): Promise<string> {
  switch (e.type) {
    case "incast": {
      const name = await lab.incast(e.req);
      const n = typeof e.req.from === "number" ? e.req.from : e.req.from.length;
      return `${name}: ${n} senders x ${formatSize(e.req.bytes)} -> ${e.req.to}`;
    }
    case "udp":
      await lab.udp(e.req);
      return `UDP ${e.req.from} -> ${e.req.to} at ${formatRate(e.req.rateBps)}b/s`;
    case "stop":
      await lab.stopTraffic();
      return "traffic stopped";
    case "link":
      await lab.setLink(e.node, e.port, e.up);
      return `${e.node}:eth${e.port} ${e.up ? "up" : "DOWN"}`;
    case "kill":
      await lab.kill(e.node);
      return `${e.node} killed`;
    case "restart":
      await lab.restart(e.node);
      return `${e.node} restarted`;
    case "preset":
      await lab.applyPreset(e.preset);
      store.setPreset(e.preset);
      return `preset ${e.preset} on every switch`;
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
    case "pfc-enable":
      await lab.pfcEnable(e.node, e.port, e.priority);
      return `${e.node}:eth${e.port} prio ${e.priority}: PFC enabled`;
    case "pfc-storm":
      await lab.pfcStorm(e.host, e.priority);
      return e.priority === null
        ? `${e.host}: PFC storm stopped`
        : `${e.host}: PFC storm on priority ${e.priority}`;
    case "notice":
      throw new Error(e.text);
    case "quit":
      return "quitting";
  }
}

/** Runs an effect; resolves when the lab has answered (never rejects). */
export async function runEffect(
  e: Effect,
  lab: LabController,
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
