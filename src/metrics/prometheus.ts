// The Prometheus endpoint of a live lab: GET /metrics on 127.0.0.1 answers in the Prometheus text
// exposition format (https://prometheus.io/docs/instrumenting/exposition_formats/), rendered by
// prom-client from the lab's metric families. One exposition is served for `cacheMs` (scrapes meanwhile
// get the same text, and scrapes that arrive while one is being collected wait for it), so the scrape rate
// does not set the supervisor's CPU. Optionally each scrape must carry a bearer token or basic-auth
// credentials (docs/reliability.md, "Security model", has Prometheus's scrape_config for both).

import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CounterKind } from "../device/counters.js";
import type { MetricFamily } from "./families.js";

/** Default port of /metrics: 9464, as OpenTelemetry's Prometheus exporter uses. */
export const DEFAULT_METRICS_PORT = 9464;
/** Default real ms an exposition is served before it is collected again. */
export const DEFAULT_METRICS_CACHE_MS = 1000;

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

/** What a scrape must present: `Authorization: Bearer <token>` or `Authorization: Basic <user:password>`. */
export type MetricsAuth =
  | { readonly kind: "bearer"; readonly token: Buffer }
  | { readonly kind: "basic"; readonly user: string; readonly password: Buffer };

/** The credentials a 0600 file holds: `user:password` for basic authentication, else a bearer token. */
export function metricsAuthOf(text: Buffer): MetricsAuth {
  const s = text.toString("utf8");
  const colon = s.indexOf(":");
  if (colon > 0) return { kind: "basic", user: s.slice(0, colon), password: Buffer.from(s.slice(colon + 1)) };
  return { kind: "bearer", token: text };
}

function sameSecret(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether the request carries the credentials. */
export function authorised(req: IncomingMessage, auth: MetricsAuth): boolean {
  const header = req.headers.authorization ?? "";
  const space = header.indexOf(" ");
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (auth.kind === "bearer") return scheme === "bearer" && sameSecret(Buffer.from(value), auth.token);
  if (scheme !== "basic") return false;
  const decoded = Buffer.from(value, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return (
    colon > 0 &&
    decoded.slice(0, colon) === auth.user &&
    sameSecret(Buffer.from(decoded.slice(colon + 1)), auth.password)
  );
}

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Real ms one exposition is served (0: collected on every scrape). */
  readonly cacheMs?: number;
  /** Credentials each scrape must carry (absent: none). */
  readonly auth?: MetricsAuth;
  /** Collections so far, for tests and benchmarks. */
  readonly onCollect?: () => void;
}

/**
 * Serves /metrics on 127.0.0.1:`port` (0: any free port), asking `collect` for the families at most once
 * per `cacheMs`. Rejects if the port cannot be bound (in use by another lab, or by someone else).
 */
export function serveMetrics(
  port: number,
  collect: () => Promise<MetricFamily[]>,
  opts: ServeOptions = {},
): Promise<MetricsServer> {
  const cacheMs = opts.cacheMs ?? DEFAULT_METRICS_CACHE_MS;
  let cached: { at: number; body: string; type: string } | null = null;
  let inflight: Promise<{ body: string; type: string }> | null = null;
  const exposition = (): Promise<{ body: string; type: string }> => {
    if (cached !== null && performance.now() - cached.at < cacheMs) return Promise.resolve(cached);
    inflight ??= collect()
      .then(renderPrometheus)
      .then((r) => {
        opts.onCollect?.();
        cached = { ...r, at: performance.now() };
        return r;
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  };
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "/").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("rocelab serves /metrics only\n");
      return;
    }
    if (opts.auth !== undefined && !authorised(req, opts.auth)) {
      const challenge = opts.auth.kind === "bearer" ? "Bearer" : 'Basic realm="rocelab"';
      res
        .writeHead(401, { "content-type": "text/plain", "www-authenticate": challenge })
        .end("unauthorised\n");
      return;
    }
    exposition().then(
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
