// The Prometheus endpoint of a live lab: GET /metrics on 127.0.0.1 answers in the Prometheus text
// exposition format (https://prometheus.io/docs/instrumenting/exposition_formats/), rendered by
// prom-client from the lab's metric families at scrape time.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CounterKind } from "../device/counters.js";
import type { MetricFamily } from "./families.js";

/** Default port of /metrics: 9464, as OpenTelemetry's Prometheus exporter uses. */
export const DEFAULT_METRICS_PORT = 9464;

/** The families as Prometheus text. */
export async function renderPrometheus(
  families: readonly MetricFamily[],
): Promise<{ body: string; type: string }> {
  // Loaded on the first scrape, not with every rocelab command that imports this module.
  const { Counter, Gauge, Registry } = await import("prom-client");
  const registry = new Registry();
  for (const f of families) {
    const config = { name: f.name, help: f.help, labelNames: f.labelNames, registers: [registry] };
    if (f.kind === CounterKind.Counter) {
      const c = new Counter(config);
      for (const s of f.samples) c.inc(s.labels, s.value);
    } else {
      const g = new Gauge(config);
      for (const s of f.samples) g.set(s.labels, s.value);
    }
  }
  return { body: await registry.metrics(), type: registry.contentType };
}

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves /metrics on 127.0.0.1:`port` (0: any free port), asking `collect` for the families on each
 * scrape. Rejects if the port cannot be bound (in use by another lab, say).
 */
export function serveMetrics(port: number, collect: () => Promise<MetricFamily[]>): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "/").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("rocelab serves /metrics only\n");
      return;
    }
    collect()
      .then(renderPrometheus)
      .then(
        ({ body, type }) => res.writeHead(200, { "content-type": type }).end(body),
        (e: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(`${e.message}\n`),
      );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${bound}/metrics`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
