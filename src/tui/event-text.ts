// One line of text per telemetry event, for the event log.

import type { LabEvent, LabSnapshot } from "../lab/lab.js";
import type { CompletionRecord } from "../nic/stats-types.js";
import { completionOf } from "./flow-outcomes.js";
import { formatBps, formatEmulated } from "./format.js";

function at(e: LabEvent, unit: "p" | "q"): string {
  const port = e.port !== undefined ? `eth${e.port}` : "";
  const prio = e.priority !== undefined ? ` ${unit}${e.priority}` : "";
  return `${port}${prio}`;
}

function times(e: LabEvent): string {
  return e.count !== undefined && e.count > 1 ? ` x${e.count}` : "";
}

/**
 * What happened, in words an operator reads at a glance. `record` is the flow's completion record for
 * `flow-done` / `flow-failed` (flow-outcomes.ts completionOf): its FCT, or how long it ran before failing.
 */
export function describeEvent(e: LabEvent, record?: CompletionRecord): string {
  switch (e.kind) {
    case "pfc-xoff":
      return `XOFF sent on ${at(e, "p")}: pausing the peer${times(e)}`;
    case "pfc-xon":
      return `XON sent on ${at(e, "p")}: peer released${times(e)}`;
    case "paused-on":
      return `paused by the peer on ${at(e, "p")}${times(e)}`;
    case "paused-off":
      return `pause ended on ${at(e, "p")}${times(e)}`;
    case "pfc-storm":
      return `PFC STORM on ${at(e, "p")}: watchdog ${e.detail ?? "recovering"}`;
    case "pfc-storm-restored":
      return `PFC restored on ${at(e, "p")} (watchdog)`;
    case "drop":
      return `dropped on ${at(e, "q")}${times(e)}${e.detail ? ` (${e.detail})` : ""}`;
    case "ecn-mark":
      return `CE marked on ${at(e, "q")}${times(e)}`;
    case "cnp-sent":
      return `CNP sent for qp ${e.qp ?? "?"}${times(e)}`;
    case "rate-cut":
      return `qp ${e.qp ?? "?"} rate cut to ${formatBps(e.value ?? null)}b/s${times(e)}`;
    case "flow-done":
      return `qp ${e.qp ?? "?"} completed flow ${e.detail ?? "?"}${record ? `: FCT ${formatEmulated(record.fctNs)}` : ""}`;
    case "flow-failed": {
      const [flow, status] = (e.detail ?? "? ?").split(" ");
      return `qp ${e.qp ?? "?"} FAILED flow ${flow}: ${status}${record ? ` after ${formatEmulated(record.fctNs)}` : ""}`;
    }
    case "qp-error":
      return `qp ${e.qp ?? "?"} in ERROR state (${e.detail ?? "?"})`;
    case "qp-reconnect":
      return `qp ${e.qp ?? "?"} reconnected (${e.detail ?? "?"})`;
    case "link-down":
      return `link DOWN ${e.detail ?? at(e, "p")}`;
    case "link-up":
      return `link up ${e.detail ?? at(e, "p")}`;
    default:
      return e.detail ?? e.kind;
  }
}

/** describeEvent with the flow's FCT from the snapshot for the flow events (the log's lines). */
export function describeLogged(e: LabEvent, snapshot: LabSnapshot | null): string {
  const flow = e.kind === "flow-done" || e.kind === "flow-failed" ? e.detail?.split(" ")[0] : undefined;
  return describeEvent(e, flow === undefined ? undefined : completionOf(snapshot, e.device, flow));
}
