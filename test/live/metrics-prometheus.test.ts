// A real Prometheus (Debian's `prometheus`) scrapes a live lab's /metrics on loopback during an incast,
// and its HTTP API shows the NP's CNP counter and the PFC pause counters rising; `rocelab events --json`
// streams the same incast (a snapshot, then threshold changes, pauses, marks). Lab name h17p: this
// file's own, so it never meets another test's lab.

import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { labNamespaces, requireRoot, rl, rlStarted } from "../helpers/live.js";

const LAB = "h17p";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An instant query's single value (the sum over the lab), or null when there is no sample yet. */
async function query(api: string, expr: string): Promise<number | null> {
  const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; data: { result: { value: [number, string] }[] } };
  if (body.status !== "success") throw new Error(`query ${expr}: ${JSON.stringify(body)}`);
  const r = body.data.result[0];
  return r === undefined ? null : Number(r.value[1]);
}

async function waitFor<T>(what: string, ms: number, probe: () => Promise<T | null>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

t.test("Prometheus scrapes np_cnp_sent and pause counters from a live incast", async (t) => {
  requireRoot(t);
  const dir = t.testdir({});
  const topo = join(dir, "star.yaml");
  writeFileSync(
    topo,
    [
      "name: star",
      "defaults: { link: { rate: 100G, delay: 1us }, mtu: 4096 }",
      "nodes: { sw1: { kind: switch }, h1: { kind: host }, h2: { kind: host }, h3: { kind: host }, h4: { kind: host }, h5: { kind: host } }",
      "links:",
      ...[1, 2, 3, 4, 5].map((i) => `  - ["h${i}:eth1", "sw1:eth${i}"]`),
    ].join("\n"),
  );
  const metricsPort = await freePort();
  const promPort = await freePort();
  t.teardown(async () => {
    await rl(["down", "--name", LAB]);
  });
  const up = await rl(["up", topo, "--name", LAB, "--metrics-port", String(metricsPort)]);
  t.equal(up.exitCode, 0, up.stderr);
  t.match(up.stderr, `Prometheus metrics on http://127.0.0.1:${metricsPort}/metrics`);

  const config = join(dir, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global: { scrape_interval: 1s, evaluation_interval: 1s }",
      "scrape_configs:",
      "  - job_name: rocelab",
      `    static_configs: [{ targets: ["127.0.0.1:${metricsPort}"] }]`,
    ].join("\n"),
  );
  const prom = execa(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "tsdb")}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    { reject: false, all: true },
  );
  t.teardown(() => {
    prom.kill("SIGTERM");
  });
  const api = `http://127.0.0.1:${promPort}`;
  await waitFor("Prometheus to be ready", 30_000, async () =>
    (await fetch(`${api}/-/ready`)).ok ? true : null,
  );
  const target = await waitFor("a successful scrape", 30_000, async () =>
    (await query(api, 'up{job="rocelab"}')) === 1 ? 1 : null,
  );
  t.equal(target, 1, "Prometheus scrapes the lab");
  const cnp = `sum(np_cnp_sent{lab="${LAB}"})`;
  const pauses = `sum(tx_prio_pause{lab="${LAB}",priority="3"}) + sum(rx_prio_pause{lab="${LAB}",priority="3"})`;
  const before = {
    cnp: await waitFor("np_cnp_sent", 20_000, () => query(api, cnp)),
    pauses: await query(api, pauses),
  };
  t.equal(before.cnp, 0, "no CNP before the incast");

  const events = rlStarted(["events", "--json", "--name", LAB]);
  await sleep(1000);
  t.equal((await rl(["inject", "preset", "aggressive", "--name", LAB])).exitCode, 0);
  const incast = await rl([
    "inject",
    "incast",
    "--to",
    "h5",
    "--from",
    "4",
    "--size",
    "4MB",
    "--wait",
    "90",
    "--name",
    LAB,
  ]);
  t.equal(incast.exitCode, 0, incast.stderr);
  // Two scrape intervals after the incast ended (--wait), the last scrape has its counters.
  await sleep(3000);
  const after = { cnp: await query(api, cnp), pauses: await query(api, pauses) };
  t.ok(after.cnp !== null && after.cnp > before.cnp, `np_cnp_sent rose: ${before.cnp} -> ${after.cnp}`);
  t.ok(
    after.pauses !== null && after.pauses > (before.pauses ?? 0),
    `PFC pause frames on priority 3 rose: ${before.pauses} -> ${after.pauses}`,
  );
  events.kill("SIGINT");
  const lines = (await events).stdout.split("\n").filter((l) => l !== "");
  const objects = lines.map((l) => JSON.parse(l) as { type: string; class?: string });
  t.equal(objects[0]?.type, "snapshot", "rocelab events --json starts with a snapshot");
  const classes = new Set(objects.slice(1).map((o) => o.class));
  for (const c of ["config", "pause", "mark"])
    t.ok(classes.has(c), `a ${c} event in the stream (${[...classes]})`);
  const kinds = await query(api, `count(count by (kind) (device_emulated_time_seconds{lab="${LAB}"}))`);
  t.equal(kinds, 2, "labels tell switches from NICs");
  const qps = await query(api, `count(qp_rate_bps{lab="${LAB}",node="h1"})`);
  t.ok(qps !== null && qps >= 1, `per-QP DCQCN rate of h1 (${qps} QPs)`);

  const down = await rl(["down", "--name", LAB]);
  t.equal(down.exitCode, 0, down.stderr);
  t.same(await labNamespaces(LAB), [], "no namespace of the lab is left");
});
