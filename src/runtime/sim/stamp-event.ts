// Telemetry events as the simulator hands them to its listeners: stamped with time and device.

import type { Nanoseconds, TelemetryEvent } from "../../device/contract.js";

/** A stamped telemetry event. */
export interface SimEvent extends TelemetryEvent {
  readonly t: Nanoseconds;
  readonly device: string;
}

/**
 * `event` stamped with its time and device, as one object shape whatever fields the event carries (absent
 * ones are undefined, which JSON leaves out). Keys in the order TelemetryEvent declares them, then t and
 * device: the order every emitting call site writes them in, so the event log's bytes are those a spread
 * gave. A spread (`{ ...event, t, device }`) of events from a dozen call sites takes V8's megamorphic
 * object-clone path and hands every listener a differently shaped object: 64:1 incast (sim-vs-ns3),
 * 20 k events per run, warm CPU 669-685 -> 599-602 ms least of 5 runs, 3 alternating pairs.
 */
export function stampEvent(event: TelemetryEvent, t: Nanoseconds, device: string): SimEvent {
  return {
    kind: event.kind,
    port: event.port,
    priority: event.priority,
    qp: event.qp,
    count: event.count,
    value: event.value,
    detail: event.detail,
    t,
    device,
  };
}
