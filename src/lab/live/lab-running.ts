// The last step of bringing a lab up, the same for the supervisor (devices it started) and for an
// attachment (devices it did not): the Prometheus endpoint, the state file saying "running", and the
// snapshots pushed to subscribed clients.

import type { MetricsServer } from "../../metrics/prometheus.js";
import type { Topology } from "../../scenario/topology.js";
import type { ControlServer } from "./control.js";
import type { DeviceFleet } from "./device-fleet.js";
import type { LabStatus } from "./lab-status.js";
import { type MetricsSettings, startLabMetrics } from "./metrics-endpoint.js";
import { type LabState, writeState } from "./state.js";

export interface RunningLab {
  readonly lab: string;
  readonly topo: Topology;
  readonly fleet: DeviceFleet;
  readonly server: ControlServer;
  readonly state: LabState;
  progress(step: string): void;
  status(): LabStatus;
}

/**
 * Starts what serves the lab (`metrics` null: no metrics endpoint) and marks it running; resolves to its
 * metrics endpoint (null: none). An endpoint that cannot start fails the lab (metrics-endpoint.ts).
 */
export async function enterRunning(
  l: RunningLab,
  metrics: MetricsSettings | null,
): Promise<MetricsServer | null> {
  const server = await startLabMetrics(
    metrics,
    l.lab,
    l.topo,
    () => l.fleet.devices.values(),
    (s) => l.progress(s),
  );
  l.state.status = "running";
  writeState(l.state);
  l.progress("running");
  l.fleet.startSnapshots(
    () => [...l.server.connections].some((c) => c.isSubscribed),
    (stats) => ({ ...l.status(), stats }),
  );
  return server;
}
