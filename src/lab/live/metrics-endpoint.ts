// A live lab's Prometheus endpoint: on each scrape, every running device process is asked for its counter
// registry and QPs (the `metrics` message), and the answers are served as metric families.

import { type DeviceMetricsEntry, metricFamilies } from "../metrics/families.js";
import { type MetricsServer, serveMetrics } from "../metrics/prometheus.js";
import type { Topology } from "../topology.js";
import type { DeviceProcess } from "./device-process.js";

/** Every running device's metrics; a device that dies meanwhile is left out (its status says so). */
export async function liveDeviceMetrics(
  topo: Topology,
  devices: Iterable<DeviceProcess>,
): Promise<DeviceMetricsEntry[]> {
  const running = [...devices].filter((d) => d.status === "running");
  const got = await Promise.all(
    running.map((d) =>
      d.request({ type: "metrics" }).then(
        (metrics) => ({
          node: d.node,
          kind: d.kind,
          ports: topo.nodes.find((n) => n.name === d.node)?.ports ?? [],
          metrics,
        }),
        () => null,
      ),
    ),
  );
  return got.filter((m) => m !== null);
}

/** Serves /metrics on 127.0.0.1:`port`; a port that cannot be bound comes back as the message to show. */
export async function serveLabMetrics(
  port: number,
  lab: string,
  topo: Topology,
  devices: () => Iterable<DeviceProcess>,
): Promise<MetricsServer | string> {
  try {
    return await serveMetrics(port, async () =>
      metricFamilies(lab, await liveDeviceMetrics(topo, devices())),
    );
  } catch (e) {
    return `no Prometheus metrics: 127.0.0.1:${port} (${(e as Error).message})`;
  }
}
