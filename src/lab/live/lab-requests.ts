// The requests a running lab's control socket answers (control.ts), the same for a lab whose devices the
// supervisor started and for one attached to devices it did not start (each a LabService): reading the lab
// (status, snapshots, stats, flows, events, a switch's configuration), raw device commands for lab-level
// controllers, captures, and `apply`, which carries out any lab action (live-actions.ts).

import { PRIVATE_FILE_MODE } from "../../runtime/realtime/safe-files.js";
import { checkAction } from "../../scenario/action.js";
import { topologyView } from "../topology-view.js";
import { armBaselines, armSeries, takeBaselines, takeSeries } from "./baselines.js";
import type { ControlConnection } from "./control.js";
import type { LabService } from "./lab-service.js";
import type { Snapshot } from "./lab-status.js";
import { applyLiveAction } from "./live-actions.js";

export async function handleLabRequest(
  lab: LabService,
  op: string,
  args: unknown,
  conn: ControlConnection,
): Promise<unknown> {
  const a = (args ?? {}) as Record<string, unknown>;
  const fleet = lab.fleet;
  switch (op) {
    case "status":
      return lab.status();
    case "subscribe":
      conn.subscribe();
      return { ...lab.status(), events: fleet.recentEvents(), progress: lab.progressLog() };
    case "snapshot":
      return {
        ...lab.status(),
        stats: await fleet.allStats(),
        events: fleet.recentEvents(),
      } satisfies Snapshot;
    case "stats":
      return fleet.stats(String(a.node));
    case "command":
      return fleet.command(String(a.node), a.command);
    case "topology":
      return topologyView(lab.topo, (id) => fleet.downLinks.has(id));
    case "apply":
      return applyLiveAction(lab, checkAction(a.action));
    case "flows":
      return fleet.flowReport();
    case "events":
      return fleet.recentEvents(Number(a.limit ?? 200));
    case "udp-stats":
      return lab.udpStats();
    case "capture":
      return fleet.capture(String(a.node), Number(a.port), Number(a.seconds), String(a.file), {
        force: a.force === true,
        mode: typeof a.mode === "number" ? a.mode & 0o644 : PRIVATE_FILE_MODE,
      });
    case "frame-times":
      return fleet.frameTimes(String(a.node), Number(a.port), a.on === true);
    case "switch-config":
      return fleet.switchConfig(String(a.node));
    case "hold": {
      const at = a.at === null || a.at === undefined ? Number.POSITIVE_INFINITY : Number(a.at);
      if (Number.isNaN(at))
        throw new Error(`hold: "at" must be emulated ns or null (release), not ${String(a.at)}`);
      return { held: lab.hold(at) };
    }
    case "baseline": {
      // `at`: every device reads its counters at that emulated time; absent: what they read, by device.
      if (a.at === undefined || a.at === null) return takeBaselines(fleet);
      const at = Number(a.at);
      if (!Number.isFinite(at)) throw new Error(`baseline: "at" must be emulated ns, not ${String(a.at)}`);
      return armBaselines(fleet, at);
    }
    case "series": {
      // `at`, `every`, `count`: every device reads its time series on that grid; absent: the reads so far.
      if (a.at === undefined || a.at === null) return takeSeries(fleet);
      const [at, every, count] = [Number(a.at), Number(a.every), Number(a.count)];
      if (!Number.isFinite(at) || !(every > 0) || !(Number.isInteger(count) && count > 0))
        throw new Error(`series: "at" emulated ns, "every" > 0 ns and "count" > 0, not ${JSON.stringify(a)}`);
      await armSeries(fleet, at, every, count);
      return { ok: true };
    }
    case "down":
      lab.down();
      return { ok: true };
    default:
      throw new Error(`unknown request "${op}"`);
  }
}
