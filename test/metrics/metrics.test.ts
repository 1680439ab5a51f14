// The metrics exporters: every registry counter of a simulated incast as metric families with the
// operator's labels, rendered as Prometheus text by prom-client and served on /metrics, and the same
// series as OpenMetrics that promtool accepts for backfilling (when promtool is installed).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { simDeviceMetrics } from "../../src/lab/sim/sim-metrics.js";
import { metricFamilies } from "../../src/metrics/families.js";
import { OpenMetricsRecorder } from "../../src/metrics/openmetrics.js";
import { renderPrometheus, serveMetrics } from "../../src/metrics/prometheus.js";
import type { Nic } from "../../src/nic/nic.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";
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
    pause.samples.some((s) => s.labels.port === "0"),
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
  t.match(await res.text(), /rx_prio_pause\{lab="m1",node="leaf3",kind="switch",port="\d+",priority="3"\}/);
  t.equal((await fetch(server.url.replace("/metrics", "/"))).status, 404);
  await t.rejects(
    serveMetrics(Number(new URL(server.url).port), async () => []),
    /EADDRINUSE/,
  );
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
