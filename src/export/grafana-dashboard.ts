// The Grafana dashboard of a lab's metrics, declared once as panels: each panel is one metric, a rate or a
// level, summed by the labels it is drawn by. From the panels come the dashboard JSON (docs/grafana/,
// `rocelab grafana`) and its preview: the same panels computed from a simulated run's series and drawn as
// charts, a screenshot-equivalent that needs no Grafana.
//
// Dashboard JSON model: https://grafana.com/docs/grafana/latest/dashboards/build-dashboards/view-dashboard-json-model/

import type { TopLevelSpec } from "vega-lite";
import type { OpenMetricsRecorder } from "../metrics/openmetrics.js";
import { lineSpec } from "../report/plot-kit.js";

export interface Panel {
  readonly title: string;
  readonly description: string;
  readonly metric: string;
  /**
   * rate: per EMULATED second (the counter's rate() over the rate() of its device's emulated clock, so the
   * dilation cancels: 1,000 CNPs per emulated ms read 1e6/s, not the 1,000/s of the graph's real time);
   * level: the gauge's value.
   */
  readonly rate: boolean;
  /** Factor on the emulated rate (ns paused per emulated s -> percent of the time: 100 / 1e9). */
  readonly scale?: number;
  /** Labels the panel sums by (one line per combination). */
  readonly by: readonly string[];
  /** Extra label matchers (`priority="3"`). */
  readonly match?: Readonly<Record<string, string>>;
  /** Grafana unit id. */
  readonly unit: string;
}

export interface Row {
  readonly title: string;
  readonly panels: readonly Panel[];
}

export const DASHBOARD_ROWS: readonly Row[] = [
  {
    title: "Fabric overview: the core health indicators",
    panels: [
      {
        title: "CNPs sent (np_cnp_sent)",
        description: "CNPs the receiving NICs' notification points sent, per host: where congestion is.",
        metric: "np_cnp_sent",
        rate: true,
        by: ["node"],
        unit: "pps",
      },
      {
        title: "CNPs handled (rp_cnp_handled)",
        description: "CNPs the senders' reaction points acted on: who is being slowed down.",
        metric: "rp_cnp_handled",
        rate: true,
        by: ["node"],
        unit: "pps",
      },
      {
        title: "Lossless drops",
        description: "Should stay at zero: any value means headroom or PFC is wrong.",
        metric: "dropped_lossless",
        rate: true,
        by: ["node"],
        unit: "pps",
      },
    ],
  },
  {
    title: "Per-port PFC and ECN",
    panels: [
      {
        title: "PFC pause frames sent, priority 3 (tx_prio_pause)",
        description: "XOFF frames each port sent to its upstream (refreshes included).",
        metric: "tx_prio_pause",
        rate: true,
        by: ["node", "port"],
        match: { priority: "3" },
        unit: "pps",
      },
      {
        title: "Time paused by the peer, priority 3, % of emulated time (rx_prio_pause_duration_ns)",
        description:
          "Share of emulated time each port's priority 3 was stopped by a received PFC: ns paused per emulated ns, in percent.",
        metric: "rx_prio_pause_duration_ns",
        rate: true,
        scale: 100 / 1e9,
        by: ["node", "port"],
        match: { priority: "3" },
        unit: "percent",
      },
      {
        title: "ECN marks per egress queue (ecn_marked)",
        description: "Packets each switch queue marked CE.",
        metric: "ecn_marked",
        rate: true,
        by: ["node", "port", "queue"],
        unit: "pps",
      },
      {
        title: "Peak egress queue depth (queue_watermark_bytes)",
        description: "High-water mark of each switch queue.",
        metric: "queue_watermark_bytes",
        rate: false,
        by: ["node", "port", "queue"],
        unit: "bytes",
      },
    ],
  },
  {
    title: "Per-QP DCQCN",
    panels: [
      {
        title: "DCQCN current rate per QP (qp_rate_bps)",
        description: "The reaction point's current rate Rc of every QP, emulated bits/s.",
        metric: "qp_rate_bps",
        rate: false,
        by: ["node", "qp"],
        unit: "bps",
      },
      {
        title: "DCQCN alpha per QP (qp_alpha)",
        description: "The reaction point's congestion estimate.",
        metric: "qp_alpha",
        rate: false,
        by: ["node", "qp"],
        unit: "percentunit",
      },
    ],
  },
];

function selector(p: Panel): string {
  const m = Object.entries(p.match ?? {}).map(([k, v]) => `,${k}="${v}"`);
  return `${p.metric}{lab=~"$lab"${m.join("")}}`;
}

/** The clock a rate is divided by: each device's emulated seconds per real second (1 / dilation at pace). */
export const EMULATED_CLOCK = "device_emulated_time_seconds";

/**
 * The panel's PromQL. A rate is per emulated second: the counter's rate divided by the rate of the same
 * device's emulated clock (matched on lab and node), so it reads as the emulated network's rate whatever the
 * dilation, and stays right while a synced lab runs slower than real time / dilation.
 */
export function panelExpr(p: Panel): string {
  if (!p.rate) return `sum by (${p.by.join(", ")}) (${selector(p)})`;
  const by = ["lab", ...p.by.filter((l) => l !== "lab")];
  const counter = `sum by (${by.join(", ")}) (rate(${selector(p)}[$__rate_interval]))`;
  const clock = `sum by (lab, node) (rate(${EMULATED_CLOCK}{lab=~"$lab"}[$__rate_interval]))`;
  return `${counter} / on (lab, node) group_left ${clock}${p.scale === undefined ? "" : ` * ${p.scale}`}`;
}

/** The dashboard JSON (schemaVersion 39, Grafana 10/11), with a Prometheus data source and a lab variable. */
export function grafanaDashboard(): Record<string, unknown> {
  const ds = { type: "prometheus", uid: `\${datasource}` };
  const panels: Record<string, unknown>[] = [];
  let id = 1;
  let y = 0;
  for (const row of DASHBOARD_ROWS) {
    panels.push({
      id: id++,
      type: "row",
      title: row.title,
      collapsed: false,
      gridPos: { h: 1, w: 24, x: 0, y },
      panels: [],
    });
    y += 1;
    row.panels.forEach((p, i) => {
      panels.push({
        id: id++,
        type: "timeseries",
        title: p.title,
        description: p.rate
          ? `${p.description} Per emulated second: the dilation is divided out.`
          : p.description,
        datasource: ds,
        gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: y + Math.floor(i / 2) * 8 },
        fieldConfig: {
          defaults: { unit: p.unit, custom: { drawStyle: "line", lineWidth: 1, fillOpacity: 0 } },
          overrides: [],
        },
        options: {
          legend: { displayMode: "list", placement: "bottom", showLegend: true },
          tooltip: { mode: "multi", sort: "desc" },
        },
        targets: [
          {
            refId: "A",
            datasource: ds,
            expr: panelExpr(p),
            legendFormat: p.by.map((l) => `{{${l}}}`).join(" "),
          },
        ],
      });
    });
    y += Math.ceil(row.panels.length / 2) * 8;
  }
  return {
    uid: "rocelab-fabric",
    title: "rocelab: lossless RoCE fabric",
    description:
      "PFC, ECN, CNP and DCQCN counters of rocelab labs (rocelab up / tui / run --runtime live serve /metrics).",
    tags: ["rocelab", "roce", "pfc", "dcqcn"],
    editable: true,
    graphTooltip: 1,
    refresh: "5s",
    schemaVersion: 39,
    version: 1,
    time: { from: "now-15m", to: "now" },
    timepicker: {},
    timezone: "browser",
    annotations: { list: [] },
    links: [],
    templating: {
      list: [
        {
          name: "datasource",
          type: "datasource",
          query: "prometheus",
          label: "Prometheus",
          hide: 0,
        },
        {
          name: "lab",
          type: "query",
          label: "lab",
          datasource: ds,
          // The string form of a Prometheus variable query (the schema's `string | map`).
          query: "label_values(device_emulated_time_seconds, lab)",
          definition: "label_values(device_emulated_time_seconds, lab)",
          refresh: 2,
          includeAll: true,
          multi: true,
          hide: 0,
        },
      ],
    },
    panels,
  };
}

/** A panel of the preview: the panel's lines computed from recorded series (rates between samples). */
export function panelPreview(p: Panel, rec: OpenMetricsRecorder, maxLines = 8): TopLevelSpec | null {
  const lines = new Map<string, Map<number, number>>();
  for (const s of rec.series(p.metric)) {
    if (Object.entries(p.match ?? {}).some(([k, v]) => s.labelValues[k] !== v)) continue;
    const key = p.by.map((l) => s.labelValues[l] ?? "").join(" ");
    let line = lines.get(key);
    if (line === undefined) {
      line = new Map();
      lines.set(key, line);
    }
    for (let i = p.rate ? 1 : 0; i < s.points.length; i++) {
      const [t, v] = s.points[i]!;
      // Graph time is emulated time x dilation (ms): a rate per emulated second, as the panel's query.
      const prev = s.points[i - 1];
      const value =
        p.rate && prev !== undefined
          ? ((v - prev[1]) / ((t - prev[0]) / 1000 / rec.dilation)) * (p.scale ?? 1)
          : v;
      line.set(t, (line.get(t) ?? 0) + value);
    }
  }
  const ranked = [...lines]
    .map(([key, pts]) => ({ key, pts, peak: Math.max(...pts.values()) }))
    .filter((l) => l.peak > 0)
    .sort((a, b) => b.peak - a.peak || a.key.localeCompare(b.key, undefined, { numeric: true }))
    .slice(0, maxLines);
  if (ranked.length === 0) return null;
  const t0 = Math.min(...ranked.flatMap((l) => [...l.pts.keys()]));
  const values = ranked.flatMap((l) =>
    [...l.pts].map(([t, v]) => ({ t: (t - t0) / 1000, v, series: l.key })),
  );
  return lineSpec({
    title: p.title,
    subtitle: `${panelExpr(p)}  (top ${ranked.length} by peak)`,
    values,
    x: "time (s, graph time: emulated x dilation)",
    y: p.unit,
    legend: p.by.join(" "),
    order: ranked.map((l) => l.key),
    step: false,
  });
}
