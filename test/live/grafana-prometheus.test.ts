// The Grafana dashboard's queries through a real Prometheus (Debian's `prometheus`) scraping a live lab's
// /metrics (#40): every panel's PromQL is evaluated, and what it says is compared with the CLI's figures
// (`rocelab stats --json`). Rates are per emulated second: the counter's increase over a workload, read by
// the CLI before and after it, divided by the emulated time the window spans on that device's clock; the
// pause panel is that share in percent. Levels are the CLI's values. Port labels are the CLI's names (eth6).
//
// Tolerance: Prometheus's rate() extrapolates each series to the window's edges, except that a counter is
// never extrapolated below zero, so a counter that was 0 when the window opened gets a slightly smaller
// rate than the clock it is divided by (≤ one scrape interval of a window of 20 s or more): 10 %. The
// DCQCN gauges move between the scrape and the CLI's read (timers run on while the lab idles): 10 %.

import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import t from "tap";
import { type CounterDef, Label, readCounter } from "../../src/device/counters.js";
import { PfcCounter } from "../../src/device/l2/pfc-counters.js";
import { DASHBOARD_ROWS, type Panel, panelExpr } from "../../src/export/grafana-dashboard.js";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import { NicCounter } from "../../src/nic/counters.js";
import { SwitchCounter } from "../../src/switch/counter-defs.js";
import { requireRoot, rl, upLab } from "../helpers/live.js";
import { tempDir } from "../helpers/temp-dir.js";

const LAB = "lgraf";
const NODES = ["spine1", "spine2", "leaf1", "leaf2", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"];
const DEFS: readonly CounterDef[] = [
  ...Object.values(NicCounter),
  ...Object.values(SwitchCounter),
  ...Object.values(PfcCounter),
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * What the panels are compared over: a 4-to-1 incast (CNPs, ECN marks, DCQCN) and a 2 s PFC storm from h5
 * (pause frames, time paused at leaf2:eth3), each over before the next begins.
 */
async function workload(): Promise<{ exitCode?: number; stderr: string }> {
  const incast = await rl([
    "inject",
    "incast",
    "--to",
    "h8",
    "--from",
    "4",
    "--size",
    "1MB",
    "--wait",
    "--name",
    LAB,
  ]);
  if (incast.exitCode !== 0) return incast;
  const storm = await rl(["inject", "pfc-storm", "h5", "--name", LAB]);
  if (storm.exitCode !== 0) return storm;
  await sleep(2000);
  const stop = await rl(["inject", "pfc-storm", "h5", "--stop", "--name", LAB]);
  await sleep(1500);
  return stop;
}

async function statsAll(): Promise<Map<string, AnyDeviceStats>> {
  const out = new Map<string, AnyDeviceStats>();
  for (const node of NODES) {
    const r = await rl(["stats", node, "--json", "--name", LAB]);
    if (r.exitCode !== 0) throw new Error(`stats ${node}: ${r.stderr}`);
    out.set(node, (JSON.parse(r.stdout) as { stats: AnyDeviceStats }).stats);
  }
  return out;
}

/** The CLI's value of `panel`'s metric for one series of the panel's result (labels node, port, queue). */
function cliValue(s: AnyDeviceStats, p: Panel, labels: Record<string, string>): number {
  const candidates = DEFS.filter((d) => d.name === p.metric);
  for (const def of candidates) {
    try {
      if (def.labels.includes(Label.Queue)) {
        const port = s.ports.find((x) => x.name === labels.port) as
          | { queues?: { queue: number; counters: Record<string, number> }[] }
          | undefined;
        const q = port?.queues?.find((x) => String(x.queue) === labels.queue);
        if (q) return readCounter(q.counters, def);
      } else if (def.labels.includes(Label.Port)) {
        const port = s.ports.find((x) => x.name === labels.port);
        if (port) return readCounter(port.counters, def, { priority: Number(p.match?.priority ?? 0) });
      } else if (labels.port === undefined) {
        return readCounter(s.counters, def);
      }
    } catch {
      // Not this device's counter (a switch's def on a NIC): try the next.
    }
  }
  return 0;
}

function qpValue(s: AnyDeviceStats, metric: string, qp: string): number | null {
  if (s.kind !== "nic") return null;
  const q = s.detail.qps.find((x) => String(x.qpn) === qp);
  if (!q) return null;
  return metric === "qp_rate_bps" ? q.rateBps : metric === "qp_alpha" ? q.alpha : null;
}

t.test("every panel's query, through Prometheus, says what the CLI says", async (t) => {
  requireRoot(t);
  let prometheus: ResultPromise | null = null;
  t.teardown(async () => {
    prometheus?.kill("SIGTERM");
    await prometheus?.catch(() => undefined);
    await rl(["down", "--name", LAB]);
  });
  const version = await execa("prometheus", ["--version"], { reject: false }).catch(() => null);
  if (version === null || version.exitCode !== 0) {
    t.fail("needs Debian's prometheus package (apt-get install prometheus; scripts/requirements.json)");
    return;
  }
  await upLab(t, LAB, undefined, ["--metrics-port", "0"]);
  const status = JSON.parse((await rl(["status", "--json", "--name", LAB])).stdout) as { metrics: string };
  const target = new URL(status.metrics).host;

  // Warm-up: counters that the measured workload moves start above zero (rate() never extrapolates a
  // counter below zero, which would make its rate a little smaller than the clock's).
  const warm = await workload();
  t.equal(warm.exitCode, 0, `warm-up: ${warm.stderr}`);

  const dir = tempDir("rocelab-prometheus-");
  const config = join(dir, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global: { scrape_interval: 1s, evaluation_interval: 1s }",
      "scrape_configs:",
      "  - job_name: rocelab",
      `    static_configs: [{ targets: ["${target}"] }]`,
    ].join("\n"),
  );
  const promPort = await freePort();
  prometheus = execa(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    { reject: false, stdin: "ignore" },
  );
  const api = `http://127.0.0.1:${promPort}/api/v1`;
  const query = async (
    q: string,
    time: number,
  ): Promise<{ metric: Record<string, string>; value?: [number, string]; values?: [number, string][] }[]> => {
    const r = await fetch(`${api}/query?${new URLSearchParams({ query: q, time: String(time) })}`);
    const body = (await r.json()) as { status: string; error?: string; data: { result: never[] } };
    if (body.status !== "success") throw new Error(`${q}: ${body.error}`);
    return body.data.result;
  };
  for (let i = 0; i < 60; i++) {
    const up = await fetch(`${api}/query?query=up`).catch(() => null);
    if (
      up?.ok &&
      ((await up.json()) as { data: { result: { value: [number, string] }[] } }).data.result[0]?.value[1] ===
        "1"
    )
      break;
    await sleep(500);
  }
  await sleep(4000);

  const opened = Date.now() / 1000;
  await sleep(1500);
  const before = await statsAll();
  const run = await workload();
  t.equal(run.exitCode, 0, `workload: ${run.stderr}`);
  const after = await statsAll();
  await sleep(5000);
  const at = Date.now() / 1000;
  const window = `${Math.ceil(at - opened)}s`;

  const clock = new Map<string, number>();
  for (const s of await query(`device_emulated_time_seconds{lab="${LAB}"}[${window}]`, at)) {
    const v = s.values!;
    clock.set(s.metric.node!, Number(v[v.length - 1]![1]) - Number(v[0]![1]));
  }
  t.equal(clock.size, NODES.length, `every device's emulated clock over ${window}`);

  for (const p of DASHBOARD_ROWS.flatMap((r) => r.panels)) {
    const expr = panelExpr(p).replaceAll("$lab", LAB).replaceAll("$__rate_interval", window);
    const result = await query(expr, at);
    t.ok(result.length > 0, `${p.title}: ${result.length} series (${expr})`);
    let compared = 0;
    for (const s of result) {
      const value = Number(s.value![1]);
      const labels = s.metric;
      const node = labels.node!;
      if (labels.port !== undefined) t.match(labels.port, /^eth\d+$/, "ports by the CLI's names");
      let cli: number | null;
      if (p.metric.startsWith("qp_")) {
        const now = await rl(["stats", node, "--json", "--name", LAB]);
        cli = qpValue((JSON.parse(now.stdout) as { stats: AnyDeviceStats }).stats, p.metric, labels.qp!);
      } else if (!p.rate) {
        cli = cliValue(after.get(node)!, p, labels);
      } else {
        const delta = cliValue(after.get(node)!, p, labels) - cliValue(before.get(node)!, p, labels);
        cli = (delta / clock.get(node)!) * (p.scale ?? 1);
      }
      if (cli === null || (cli === 0 && value === 0)) continue;
      compared++;
      const close = Math.abs(value - cli) <= 0.1 * Math.abs(cli) + 1e-9;
      if (!close || compared <= 2)
        t.ok(
          close,
          `${p.metric} ${JSON.stringify(labels)}: Prometheus ${value.toPrecision(5)}, CLI ${cli.toPrecision(5)}`,
        );
    }
    if (p.metric !== "dropped_lossless") t.ok(compared > 0, `${p.title}: ${compared} series compared`);
    else t.equal(compared, 0, "no lossless drop, by either");
  }
});
