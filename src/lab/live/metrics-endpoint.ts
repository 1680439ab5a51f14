// A live lab's Prometheus endpoint: on each scrape, every running device (a process of the lab, or an
// attached one) is asked for its counter registry and QPs (the `metrics` message), and the answers are
// served as metric families.

import { type DeviceMetricsEntry, metricFamilies } from "../../metrics/families.js";
import { type MetricsServer, serveMetrics } from "../../metrics/prometheus.js";
import type { Topology } from "../../scenario/topology.js";
import type { DeviceConnection } from "./device-connection.js";

/** Every running device's metrics; a device that dies meanwhile is left out (its status says so). */
export async function liveDeviceMetrics(
  topo: Topology,
  devices: Iterable<DeviceConnection>,
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
  devices: () => Iterable<DeviceConnection>,
): Promise<MetricsServer | string> {
  try {
    return await serveMetrics(port, async () =>
      metricFamilies(lab, await liveDeviceMetrics(topo, devices())),
    );
  } catch (e) {
    return `no Prometheus metrics: 127.0.0.1:${port} (${(e as Error).message})`;
  }
}

/**
 * The lab's endpoint if `port` asks for one (0: none): the server, or null with the reason told to
 * `progress` (a port in use is reported, not fatal).
 */
export async function startLabMetrics(
  port: number,
  lab: string,
  topo: Topology,
  devices: () => Iterable<DeviceConnection>,
  progress: (step: string) => void,
): Promise<MetricsServer | null> {
  if (port === 0) return null;
  const r = await serveLabMetrics(port, lab, topo, devices);
  if (typeof r === "string") {
    progress(r);
    return null;
  }
  progress(`Prometheus metrics on ${r.url}`);
  return r;
}
