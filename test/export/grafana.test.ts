// The Grafana dashboard: the committed JSON is what the code generates, it has the structure Grafana's
// dashboard JSON model requires (unique panel ids, grid positions, a Prometheus target per panel, the
// template variables its queries use), every metric it queries is one the exporter serves, and each
// panel previews from a simulated run.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import {
  DASHBOARD_ROWS,
  grafanaDashboard,
  panelExpr,
  panelPreview,
} from "../../src/export/grafana-dashboard.js";
import { OpenMetricsRecorder } from "../../src/metrics/openmetrics.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { tempDir } from "../helpers/temp-dir.js";

interface GPanel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string; legendFormat: string }[];
}

t.test("docs/grafana/rocelab-dashboard.json is the generated dashboard", async (t) => {
  const committed = JSON.parse(readFileSync("docs/grafana/rocelab-dashboard.json", "utf8"));
  t.same(
    committed,
    grafanaDashboard(),
    "regenerate with: rocelab grafana --out docs/grafana/rocelab-dashboard.json",
  );
});

t.test("the dashboard JSON model", async (t) => {
  const d = grafanaDashboard() as {
    uid: string;
    title: string;
    schemaVersion: number;
    panels: GPanel[];
    templating: { list: { name: string; type: string }[] };
    time: { from: string; to: string };
  };
  t.ok(d.uid.length > 0 && d.uid.length <= 40, "uid of at most 40 characters");
  t.ok(d.title.length > 0);
  t.ok(d.schemaVersion >= 36, "a schema version with datasource objects (Grafana 9+)");
  t.same(
    d.templating.list.map((v) => [v.name, v.type]),
    [
      ["datasource", "datasource"],
      ["lab", "query"],
    ],
  );
  t.ok(d.time.from.startsWith("now"));
  const ids = d.panels.map((p) => p.id);
  t.equal(new Set(ids).size, ids.length, "unique panel ids");
  const occupied = new Set<string>();
  for (const p of d.panels) {
    t.ok(["row", "timeseries"].includes(p.type), `${p.title}: a known panel type`);
    const g = p.gridPos;
    t.ok(g.x >= 0 && g.x + g.w <= 24 && g.h > 0 && g.y >= 0, `${p.title}: inside the 24-column grid`);
    const overlaps: string[] = [];
    for (let x = g.x; x < g.x + g.w; x++)
      for (let y = g.y; y < g.y + g.h; y++) {
        if (occupied.has(`${x},${y}`)) overlaps.push(`${x},${y}`);
        occupied.add(`${x},${y}`);
      }
    t.same(overlaps, [], `${p.title} overlaps no other panel`);
    if (p.type !== "timeseries") continue;
    t.equal(p.datasource?.type, "prometheus");
    t.equal(p.targets?.length, 1);
    t.match(p.targets![0]!.expr, /^sum by \([a-z, ]+\) \(/);
    t.match(p.targets![0]!.expr, /lab=~"\$lab"/, "filtered by the lab variable");
  }
  t.equal(
    d.panels.filter((p) => p.type === "timeseries").length,
    DASHBOARD_ROWS.flatMap((r) => r.panels).length,
  );
});

t.test("every metric the dashboard queries is served, and every panel previews from a run", async (t) => {
  const dir = tempDir("rocelab-grafana-");
  const file = join(dir, "incast.yaml");
  writeFileSync(
    file,
    [
      "name: grafana-incast",
      `topology: ${resolve("docs/examples/incast-3leaf.yaml")}`,
      "duration: 400us",
      "sample: 10us",
      "overrides: { hosts: { dcqcn: nvidia }, switches: { profile: aggressive } }",
      "timeline:",
      "  - at: 10us",
      "    start: { type: incast, name: burst, to: h17, from: 16, size: 1MB }",
    ].join("\n"),
  );
  const rec = new OpenMetricsRecorder("g", 0, 1000);
  runScenarioSim(loadScenario(file), { metrics: rec, metricsEveryNs: 20_000 });
  for (const p of DASHBOARD_ROWS.flatMap((r) => r.panels)) {
    t.ok(rec.series(p.metric).length > 0, `${p.metric} is exported (${panelExpr(p)})`);
    if (p.metric === "dropped_lossless") continue; // zero, as it should be: nothing to draw
    t.ok(panelPreview(p, rec) !== null, `${p.title}: previews`);
  }
});

t.test("rates are per emulated second and the pause panel is a percentage of emulated time", async (t) => {
  const pause = DASHBOARD_ROWS.flatMap((r) => r.panels).find(
    (p) => p.metric === "rx_prio_pause_duration_ns",
  )!;
  t.equal(pause.unit, "percent");
  t.equal(
    panelExpr(pause),
    'sum by (lab, node, port) (rate(rx_prio_pause_duration_ns{lab=~"$lab",priority="3"}[$__rate_interval])) / on (lab, node) group_left sum by (lab, node) (rate(device_emulated_time_seconds{lab=~"$lab"}[$__rate_interval])) * 1e-7',
  );
  const watermark = DASHBOARD_ROWS.flatMap((r) => r.panels).find(
    (p) => p.metric === "queue_watermark_bytes",
  )!;
  t.equal(
    panelExpr(watermark),
    'sum by (node, port, queue) (queue_watermark_bytes{lab=~"$lab"})',
    "a level as it is",
  );
});
