// The event log's filters: which group each telemetry event belongs to (pfc, ecn, drops, failures, flows).

import type { LabEvent } from "../lab/lab.js";

/** Event groups the log can be filtered to. */
export const EVENT_FILTERS = ["all", "pfc", "ecn", "drops", "failures", "flows"] as const;

export type EventFilter = (typeof EVENT_FILTERS)[number];

/** Which filter group an event kind belongs to. */
export function eventGroup(e: LabEvent): Exclude<EventFilter, "all"> {
  switch (e.kind) {
    case "pfc-xoff":
    case "pfc-xon":
    case "paused-on":
    case "paused-off":
    case "pfc-storm":
    case "pfc-storm-restored":
      return "pfc";
    case "ecn-mark":
    case "cnp-sent":
    case "rate-cut":
      return "ecn";
    case "drop":
      return "drops";
    case "flow-done":
      return "flows";
    case "flow-failed":
    case "qp-error":
    case "qp-reconnect":
      return "failures";
    default:
      return "failures";
  }
}

export function matchesFilter(e: LabEvent, filter: EventFilter): boolean {
  return filter === "all" || eventGroup(e) === filter;
}
