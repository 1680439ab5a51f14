// A live lab's Prometheus endpoint: on each collection, every running device (a process of the lab, or an
// attached one) is asked for its counter registry and QPs (the `metrics` message), and the answers are
// served as metric families (lab/metrics/prometheus.ts: cached, optionally authenticated). A port that
// cannot be bound fails the lab's start: a scraper must never read someone else's series in its place.

import { type DeviceMetricsEntry, metricFamilies } from "../../metrics/families.js";
import {
  DEFAULT_METRICS_CACHE_MS,
  type MetricsServer,
  metricsAuthOf,
  serveMetrics,
} from "../../metrics/prometheus.js";
import { readTokenFile } from "../../runtime/realtime/control-auth.js";
import type { Topology } from "../../scenario/topology.js";
import type { DeviceConnection } from "./device-connection.js";

/** How a lab serves /metrics (absent: not at all). */
export interface MetricsSettings {
  /** TCP port on 127.0.0.1; 0: any free one (printed by `up`, shown by `status`). */
  readonly port: number;
  /** A 0600 file: `user:password` for basic authentication, else a bearer token (absent: none). */
  readonly authFile?: string;
  /** Real ms one exposition is served before the devices are asked again. */
  readonly cacheMs: number;
}

/** The settings as a lab process's arguments (none: no endpoint). */
export function metricsArgs(m: MetricsSettings | null | undefined): string[] {
  if (m === null || m === undefined) return [];
  return [
    "--metrics-port",
    String(m.port),
    "--metrics-cache-ms",
    String(m.cacheMs),
    ...(m.authFile !== undefined ? ["--metrics-auth-file", m.authFile] : []),
  ];
}

/** The parseArgs options metricsArgs writes. */
export const METRICS_ARG_OPTIONS = {
  "metrics-port": { type: "string" },
  "metrics-cache-ms": { type: "string" },
  "metrics-auth-file": { type: "string" },
} as const;

/** The settings a lab process was given (null: no endpoint). */
export function metricsFromArgs(values: {
  "metrics-port"?: string | undefined;
  "metrics-cache-ms"?: string | undefined;
  "metrics-auth-file"?: string | undefined;
}): MetricsSettings | null {
  if (values["metrics-port"] === undefined) return null;
  return {
    port: Number(values["metrics-port"]),
    cacheMs: Number(values["metrics-cache-ms"] ?? DEFAULT_METRICS_CACHE_MS),
    ...(values["metrics-auth-file"] !== undefined ? { authFile: values["metrics-auth-file"] } : {}),
  };
}

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

/** A metrics endpoint that could not be started: the lab does not start either. */
export class MetricsEndpointError extends Error {}

/**
 * The lab's endpoint if `settings` asks for one: the server (its URL told to `progress`), null for none.
 * A port in use, or an authentication file that is not private, throws MetricsEndpointError.
 */
export async function startLabMetrics(
  settings: MetricsSettings | null,
  lab: string,
  topo: Topology,
  devices: () => Iterable<DeviceConnection>,
  progress: (step: string) => void,
): Promise<MetricsServer | null> {
  if (settings === null) return null;
  let server: MetricsServer;
  try {
    const auth =
      settings.authFile === undefined ? undefined : metricsAuthOf(readTokenFile(settings.authFile));
    server = await serveMetrics(
      settings.port,
      async () => metricFamilies(lab, await liveDeviceMetrics(topo, devices())),
      { cacheMs: settings.cacheMs, ...(auth !== undefined ? { auth } : {}) },
    );
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new MetricsEndpointError(
      err.code === "EADDRINUSE"
        ? `Prometheus metrics: 127.0.0.1:${settings.port} is already in use (another lab, or another program: a scraper would read its series as this lab's); choose another --metrics-port, 0 for any free one, or --no-metrics`
        : `Prometheus metrics on 127.0.0.1:${settings.port}: ${err.message}`,
    );
  }
  progress(
    `Prometheus metrics on ${server.url}${settings.authFile !== undefined ? " (authenticated)" : ""}, cached ${settings.cacheMs} ms`,
  );
  return server;
}
