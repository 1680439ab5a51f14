// `--metrics-port N`, `--no-metrics`, `--metrics-auth-file FILE` and `--metrics-cache-ms MS`, shared by
// the commands that bring up a live lab (up, tui, run --runtime live, attach): the lab's supervisor serves
// Prometheus /metrics on 127.0.0.1 (lab/live/metrics-endpoint.ts). A port in use fails the lab's start;
// port 0 takes any free one, which `up` prints and `status` shows.

import type { Command } from "commander";
import type { MetricsSettings } from "../lab/live/metrics-endpoint.js";
import { DEFAULT_METRICS_CACHE_MS, DEFAULT_METRICS_PORT } from "../metrics/prometheus.js";
import { readTokenFile } from "../runtime/realtime/control-auth.js";
import { UsageError } from "./errors.js";

export interface MetricsOptions {
  /** Absent: the command's default (DEFAULT_METRICS_PORT, or none for `attach`). */
  readonly metricsPort?: string;
  /** false with --no-metrics. */
  readonly metrics: boolean;
  readonly metricsAuthFile?: string;
  readonly metricsCacheMs: string;
}

/** Adds the options; `defaultPort` null: no endpoint unless --metrics-port is given. */
export function addMetricsOptions(cmd: Command, defaultPort: number | null = DEFAULT_METRICS_PORT): Command {
  return cmd
    .option(
      "--metrics-port <n>",
      `live lab: serve Prometheus /metrics on 127.0.0.1 at this port; 0: any free port (printed, and in \`status\`)${defaultPort === null ? "" : ` (default ${defaultPort})`}`,
    )
    .option("--no-metrics", "live lab: no Prometheus endpoint")
    .option(
      "--metrics-auth-file <file>",
      "live lab: scrapes must authenticate with what this 0600 file holds: user:password (basic), else a bearer token",
    )
    .option(
      "--metrics-cache-ms <ms>",
      "live lab: serve one exposition this long before asking the devices again (scrape rate does not drive the supervisor's CPU)",
      String(DEFAULT_METRICS_CACHE_MS),
    );
}

/** The endpoint to serve, null for none; the authentication file is checked here (0600, long enough). */
export function metricsSettings(
  opts: MetricsOptions,
  defaultPort: number | null = DEFAULT_METRICS_PORT,
): MetricsSettings | null {
  if (!opts.metrics) return null;
  if (opts.metricsPort === undefined && defaultPort === null) return null;
  const text = opts.metricsPort ?? String(defaultPort);
  const port = Number(text);
  if (!/^\d+$/.test(text) || !(port >= 0 && port <= 65535))
    throw new UsageError(`--metrics-port takes a TCP port 1-65535, or 0 for any free one, not "${text}"`);
  const cacheMs = Number(opts.metricsCacheMs);
  if (!/^\d+$/.test(opts.metricsCacheMs) || cacheMs > 3_600_000)
    throw new UsageError(`--metrics-cache-ms takes real ms from 0 to 3600000, not "${opts.metricsCacheMs}"`);
  if (opts.metricsAuthFile !== undefined) {
    try {
      readTokenFile(opts.metricsAuthFile);
    } catch (e) {
      throw new UsageError(`--metrics-auth-file: ${(e as Error).message}`);
    }
  }
  return {
    port,
    cacheMs,
    ...(opts.metricsAuthFile !== undefined ? { authFile: opts.metricsAuthFile } : {}),
  };
}
