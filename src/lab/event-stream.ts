// `rocelab events`: a lab's telemetry as JSON lines, the way containerlab's `events` streams container
// events: first one snapshot line (the lab, its devices and links, every device's counters), then one line
// per event as it arrives — pauses, ECN marks, drops, failures (links, processes), threshold changes.

import type { Lab, LabEvent, LabSnapshot } from "./lab.js";

/** What an event is about, for filtering the stream (`jq 'select(.class == "pause")'`). */
export const EventClass = {
  Pause: "pause",
  Mark: "mark",
  Drop: "drop",
  Failure: "failure",
  Config: "config",
  Congestion: "congestion",
  Flow: "flow",
  Info: "info",
} as const;
export type EventClass = (typeof EventClass)[keyof typeof EventClass];

/** The prefix of an info event's detail when a device's settings changed (thresholds, DCQCN, ...). */
export const CONFIG_CHANGED = "settings changed: ";

export function eventClass(e: LabEvent): EventClass {
  switch (e.kind) {
    case "pfc-xoff":
    case "pfc-xon":
    case "paused-on":
    case "paused-off":
      return EventClass.Pause;
    case "ecn-mark":
      return EventClass.Mark;
    case "drop":
      return EventClass.Drop;
    case "link-down":
    case "link-up":
      return EventClass.Failure;
    case "cnp-sent":
    case "rate-cut":
      return EventClass.Congestion;
    case "flow-done":
      return EventClass.Flow;
    case "flow-failed":
    case "qp-error":
    case "qp-reconnect":
      return EventClass.Failure;
    default:
      if (e.detail?.startsWith(CONFIG_CHANGED)) return EventClass.Config;
      if (e.detail !== undefined && /\b(crashed|killed|restarted|watchdog|storm)\b/.test(e.detail))
        return EventClass.Failure;
      return EventClass.Info;
  }
}

export function snapshotLine(s: LabSnapshot): string {
  return JSON.stringify({ type: "snapshot", ...s });
}

export function eventLine(e: LabEvent): string {
  return JSON.stringify({ type: "event", class: eventClass(e), ...e });
}

/**
 * Writes the snapshot line, then every event line as it arrives, until the returned stop function is
 * called (or the lab goes away: then `onGone` runs with the reason). `subscribe` starts the lab's event
 * push (a live lab's control connection), after the listeners are in place.
 */
export interface EventSink {
  snapshot(s: LabSnapshot): void;
  event(e: LabEvent): void;
}

/** A sink writing JSON lines. */
export function jsonLines(write: (line: string) => void): EventSink {
  return { snapshot: (s) => write(snapshotLine(s)), event: (e) => write(eventLine(e)) };
}

export async function streamEvents(
  lab: Lab,
  sink: EventSink,
  onGone: (reason: string) => void,
  subscribe: () => Promise<unknown> = async () => {},
): Promise<() => void> {
  // Listen first: an event that arrives while the snapshot is on its way is printed after it.
  const pending: LabEvent[] = [];
  let ready = false;
  const offEvents = lab.onEvents((events) => {
    if (!ready) pending.push(...events);
    else for (const e of events) sink.event(e);
  });
  const offClose = lab.onClose(onGone);
  await subscribe();
  sink.snapshot(await lab.snapshot());
  ready = true;
  for (const e of pending) sink.event(e);
  return () => {
    offEvents();
    offClose();
  };
}
