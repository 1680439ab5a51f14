// `--metrics-port N` and `--no-metrics`, shared by the commands that bring up a live lab (up, tui,
// run --runtime live): the lab's supervisor serves Prometheus /metrics on 127.0.0.1.

import type { Command } from "commander";
import { DEFAULT_METRICS_PORT } from "../metrics/prometheus.js";
import { UsageError } from "./errors.js";

export interface MetricsOptions {
  readonly metricsPort: string;
  /** false with --no-metrics. */
  readonly metrics: boolean;
}

export function addMetricsOptions(cmd: Command): Command {
  return cmd
    .option(
      "--metrics-port <n>",
      "live lab: serve Prometheus /metrics on 127.0.0.1 at this port",
      String(DEFAULT_METRICS_PORT),
    )
    .option("--no-metrics", "live lab: no Prometheus endpoint");
}

/** The port to serve, 0 for none. */
export function metricsPort(opts: MetricsOptions): number {
  if (!opts.metrics) return 0;
  const port = Number(opts.metricsPort);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError(`--metrics-port takes a TCP port 1-65535, not "${opts.metricsPort}"`);
  return port;
}
