// The metrics exporters: every registry counter of a simulated incast as metric families with the
// operator's labels, rendered as Prometheus text by prom-client and served on /metrics, and the same
// series as OpenMetrics that promtool accepts for backfilling (when promtool is installed).
import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import t from "tap";
import { metricsSettings } from "../../src/cli/metrics-options.js";
import {
  METRICS_ARG_OPTIONS,
  metricsArgs,
  metricsFromArgs,
  startLabMetrics,
} from "../../src/lab/live/metrics-endpoint.js";
import { simDeviceMetrics } from "../../src/lab/sim/sim-metrics.js";
import { metricFamilies } from "../../src/metrics/families.js";
import { OpenMetricsRecorder } from "../../src/metrics/openmetrics.js";
import { metricsAuthOf, renderPrometheus, serveMetrics } from "../../src/metrics/prometheus.js";
import type { Nic } from "../../src/nic/nic.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { tempDir } from "../helpers/temp-dir.js";

const dir = tempDir("rocelab-metrics-");
const file = join(dir, "incast.yaml");
writeFileSync(
  file,
  [
    "name: metrics-incast",
    `topology: ${resolve("docs/examples/incast-3leaf.yaml")}`,
    "seed: 1",
    "duration: 300us",
    "sample: 10us",
    "overrides:",
    "  hosts: { dcqcn: nvidia }",
    "timeline:",
    "  - at: 10us",
    "    start: { type: incast, name: burst, to: h17, from: 16, size: 1MB }",
  ].join("\n"),
);
const recorder = new OpenMetricsRecorder("m1", Date.UTC(2026, 0, 1), 1000);
const { fabric } = runScenarioSim(loadScenario(file), { metrics: recorder, metricsEveryNs: 50_000 });
const devices = simDeviceMetrics(fabric, fabric.hosts as Map<string, Nic>, fabric.sim.now);
const families = metricFamilies("m1", devices);
const byName = new Map(families.map((f) => [f.name, f]));
const total = (name: string, where: (l: Record<string, string>) => boolean = () => true): number =>
  (byName.get(name)?.samples ?? []).filter((s) => where(s.labels)).reduce((a, s) => a + s.value, 0);

t.test("families carry the registry's counters with their kinds and labels", async (t) => {
  t.equal(byName.get("np_cnp_sent")?.kind, "counter");
  t.equal(byName.get("buffer_shared_used_bytes")?.kind, "gauge");
  t.equal(byName.get("qp_rate_bps")?.kind, "gauge");
  t.ok(total("np_cnp_sent") > 0, `h17 sent CNPs (${total("np_cnp_sent")})`);
  t.ok(total("rx_prio_pause", (l) => l.priority === "3") > 0, "somebody received pauses on priority 3");
  t.ok(total("ecn_marked", (l) => l.node === "leaf3") > 0, "leaf3 marked");
  const pause = byName.get("tx_prio_pause")!;
  t.same(pause.labelNames, ["lab", "node", "kind", "port", "priority"]);
  // Only wired ports: leaf3 has ports 1..n of the topology, never port 0.
  t.notOk(
    pause.samples.some((s) => s.labels.port === "eth0"),
    "no sample for the unwired port 0",
  );
  const qp = byName.get("qp_rate_bps")!.samples.find((s) => s.labels.node === "h1");
  t.ok(qp && qp.labels.qp !== undefined && qp.value > 0, "per-QP rate of h1 with a qp label");
  const drop = byName.get("drop")!.samples.find((s) => s.labels.kind === "switch");
  t.match(drop?.labels.reason, /^[a-z_]+$/, "drop reasons by name");
});

t.test("Prometheus text over HTTP on loopback", async (t) => {
  const { body, type } = await renderPrometheus(families);
  t.match(type, /text\/plain; version=0\.0\.4/);
  t.match(body, /# TYPE np_cnp_sent counter\n/);
  t.match(body, /# TYPE qp_alpha gauge\n/);
  t.match(body, /np_cnp_sent\{lab="m1",node="h17",kind="nic"\} [1-9]\d*\n/);
  const server = await serveMetrics(0, async () => families);
  t.teardown(() => server.close());
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const res = await fetch(server.url);
  t.equal(res.status, 200);
  t.match(
    await res.text(),
    /rx_prio_pause\{lab="m1",node="leaf3",kind="switch",port="eth\d+",priority="3"\}/,
  );
  t.equal((await fetch(server.url.replace("/metrics", "/"))).status, 404);
  await t.rejects(
    serveMetrics(Number(new URL(server.url).port), async () => []),
    /EADDRINUSE/,
  );
});

t.test("one collection per cache interval, however many scrape", async (t) => {
  let collections = 0;
  const cached = await serveMetrics(0, async () => families, {
    cacheMs: 60_000,
    onCollect: () => collections++,
  });
  t.teardown(() => cached.close());
  // Four scrapers at once, then again: the devices are asked once.
  const bodies = await Promise.all([1, 2, 3, 4].map(() => fetch(cached.url).then((r) => r.text())));
  await Promise.all([1, 2, 3, 4].map(() => fetch(cached.url).then((r) => r.text())));
  t.equal(collections, 1, "8 scrapes, 1 collection");
  t.equal(new Set(bodies).size, 1, "the same exposition");
  let fresh = 0;
  const uncached = await serveMetrics(0, async () => families, { cacheMs: 0, onCollect: () => fresh++ });
  t.teardown(() => uncached.close());
  for (let i = 0; i < 3; i++) await fetch(uncached.url).then((r) => r.text());
  t.equal(fresh, 3, "cache 0: one collection per scrape");
});

t.test("bearer and basic authentication", async (t) => {
  const token = Buffer.from("a1".repeat(24));
  const bearer = await serveMetrics(0, async () => families, { auth: metricsAuthOf(token) });
  t.teardown(() => bearer.close());
  const none = await fetch(bearer.url);
  t.equal(none.status, 401);
  t.equal(none.headers.get("www-authenticate"), "Bearer");
  t.equal((await fetch(bearer.url, { headers: { authorization: "Bearer wrong" } })).status, 401);
  t.equal(
    (await fetch(bearer.url, { headers: { authorization: `Basic ${token.toString("base64")}` } })).status,
    401,
  );
  const ok = await fetch(bearer.url, { headers: { authorization: `Bearer ${token}` } });
  t.equal(ok.status, 200);
  t.match(await ok.text(), /np_cnp_sent/);

  const basic = await serveMetrics(0, async () => families, {
    auth: metricsAuthOf(Buffer.from("prom:s3cret-s3cret-s3cret")),
  });
  t.teardown(() => basic.close());
  const as = (cred: string) => ({
    headers: { authorization: `Basic ${Buffer.from(cred).toString("base64")}` },
  });
  t.equal((await fetch(basic.url)).headers.get("www-authenticate"), 'Basic realm="rocelab"');
  t.equal((await fetch(basic.url, as("prom:wrong"))).status, 401);
  t.equal((await fetch(basic.url, as("other:s3cret-s3cret-s3cret"))).status, 401);
  t.equal((await fetch(basic.url, as("prom:s3cret-s3cret-s3cret"))).status, 200);
});

t.test("a squatted port fails the lab; port 0 takes a free one; the settings are checked", async (t) => {
  const squatter = createServer((_req, res) => res.end('fake_series{lab="x"} 1\n'));
  await new Promise<void>((r) => squatter.listen(0, "127.0.0.1", r));
  t.teardown(() => squatter.close());
  const port = (squatter.address() as AddressInfo).port;
  const topo = defaultTopology();
  const steps: string[] = [];
  await t.rejects(
    startLabMetrics(
      { port, cacheMs: 1000 },
      "m1",
      topo,
      () => [],
      (s) => steps.push(s),
    ),
    {
      name: "Error",
      message: `Prometheus metrics: 127.0.0.1:${port} is already in use (another lab, or another program: a scraper would read its series as this lab's); choose another --metrics-port, 0 for any free one, or --no-metrics`,
    },
  );
  const any = await startLabMetrics(
    { port: 0, cacheMs: 1000 },
    "m1",
    topo,
    () => [],
    (s) => steps.push(s),
  );
  t.teardown(() => any?.close());
  t.match(any?.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  t.not(new URL(any!.url).port, "0");
  t.match(steps.at(-1), /^Prometheus metrics on http:\/\/127\.0\.0\.1:\d+\/metrics, cached 1000 ms$/);

  const dir = t.testdir({ open: `${"b2".repeat(20)}\n`, tight: `${"b2".repeat(20)}\n` });
  chmodSync(join(dir, "open"), 0o644);
  chmodSync(join(dir, "tight"), 0o600);
  const base = { metrics: true, metricsCacheMs: "1000" };
  t.same(metricsSettings({ ...base, metricsPort: "0" }), { port: 0, cacheMs: 1000 });
  t.equal(metricsSettings({ ...base, metrics: false }), null, "--no-metrics");
  t.equal(metricsSettings(base, null), null, "attach: none unless asked");
  t.same(metricsSettings({ ...base, metricsAuthFile: join(dir, "tight") }), {
    port: 9464,
    cacheMs: 1000,
    authFile: join(dir, "tight"),
  });
  t.throws(() => metricsSettings({ ...base, metricsAuthFile: join(dir, "open") }), {
    message: /--metrics-auth-file: token file .*open may be read by others \(mode 644\): chmod 600/,
  });
  t.throws(() => metricsSettings({ ...base, metricsPort: "70000" }), {
    message: /takes a TCP port 1-65535, or 0/,
  });
  t.throws(() => metricsSettings({ ...base, metricsCacheMs: "-1" }), { message: /--metrics-cache-ms/ });

  // How the supervisor gets them: arguments, read back the same.
  const settings = { port: 0, cacheMs: 250, authFile: join(dir, "tight") };
  const argv = metricsArgs(settings);
  const { values } = parseArgs({ args: argv, options: METRICS_ARG_OPTIONS });
  t.same(metricsFromArgs(values), settings);
  t.same(metricsArgs(null), [], "no endpoint: no arguments");
  t.equal(metricsFromArgs({}), null);
});

t.test(
  "OpenMetrics series: families not interleaved, timestamps in order, promtool accepts them",
  async (t) => {
    const text = recorder.text();
    t.match(text, /# EOF\n$/);
    const types = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    t.equal(new Set(types).size, types.length, "each family once");
    const cnp = text.split("\n").filter((l) => l.startsWith('np_cnp_sent{lab="m1",node="h17"'));
    t.equal(cnp.length, 7, "h17's CNP counter at 0, 50, ..., 300 us");
    const stamps = cnp.map((l) => Number(l.split(" ")[2]));
    t.same(
      stamps,
      [...stamps].sort((a, b) => a - b),
    );
    t.equal(Math.round((stamps[1]! - stamps[0]!) * 1000), 50, "50 us emulated at dilation 1000: 50 ms apart");
    t.notMatch(text, /\btx_prio_pause\{[^}]*priority="0"\}/, "series that stayed 0 are left out");
    let promtool = true;
    try {
      execFileSync("promtool", ["--version"], { stdio: "ignore" });
    } catch {
      promtool = false;
    }
    if (!promtool) return t.comment("promtool not installed (Debian package prometheus): not checked");
    const om = join(dir, "m1.om");
    writeFileSync(om, text);
    const out = execFileSync(
      "promtool",
      ["tsdb", "create-blocks-from", "openmetrics", om, join(dir, "tsdb")],
      {
        encoding: "utf8",
      },
    );
    t.match(out, /BLOCK ULID/, "promtool wrote a block");
  },
);
