// The switch-side charts: egress queue depth, and when each egress queue was held by its peer's PFC.

import {
  baseConfig,
  groupBy,
  lineSpec,
  MAX_SERIES,
  PALETTE,
  PLOT_FILES,
  type PlotSpec,
  parseSeries,
  type ReportFiles,
  SCHEMA,
  sizeScale,
  stepPoints,
  subtitleOf,
  timeScale,
  title,
  WIDTH,
} from "./plot-kit.js";

/** Egress queue depth of the ports whose queues got deepest. */
export function queueDepthPlot(files: ReportFiles): PlotSpec | string {
  const rows = parseSeries(files.queueDepth);
  if (rows.length === 0) return "no queue-depth.csv";
  const byKey = groupBy(rows, (r) => r.key);
  const peaks = [...byKey].map(([key, list]) => ({ key, peak: Math.max(...list.map((r) => r.value)) }));
  const used = peaks.filter((p) => p.peak > 0).sort((a, b) => b.peak - a.peak || a.key.localeCompare(b.key));
  if (used.length === 0) return "every switch queue stayed empty";
  const chosen = used.slice(0, Math.min(6, MAX_SERIES));
  const r = files.report;
  const ts = timeScale(r.durationNs);
  const ss = sizeScale(chosen[0]!.peak);
  const values: { t: number; v: number; series: string }[] = [];
  const order: string[] = [];
  for (const { key } of chosen) {
    const [device, port, queue] = key.split(" ");
    const label = `${device} ${port} q${queue}`;
    order.push(label);
    const pts = stepPoints(
      byKey.get(key)!.map((x) => ({ t: x.t, v: x.value })),
      r.durationNs,
    );
    for (const p of pts) values.push({ t: p.t / ts.per, v: p.v / ss.per, series: label });
  }
  const text =
    used.length > chosen.length
      ? `Egress queue depth: the ${chosen.length} deepest of ${used.length} queues that held data`
      : `Egress queue depth: all ${used.length} queues that held data`;
  return {
    file: PLOT_FILES.queueDepth,
    title: text,
    spec: lineSpec({
      title: text,
      subtitle: `${subtitleOf(r)} (sampled every ${r.sampleNs / 1e3} µs)`,
      values,
      x: `time (${ts.unit})`,
      y: `queue depth (${ss.unit})`,
      legend: "switch, port, queue",
      order,
      step: true,
    }),
  };
}

interface PauseInterval {
  readonly row: string;
  readonly device: string;
  readonly start: number;
  readonly end: number;
}

/** Exact pause intervals from paused-on / paused-off events (what a peer's PFC held, per port and priority). */
export function pauseIntervalsFromEvents(events: string, endNs: number): PauseInterval[] {
  const open = new Map<string, { device: string; start: number }>();
  const out: PauseInterval[] = [];
  for (const line of events.split("\n")) {
    if (!line.includes('"paused-o')) continue;
    let e: { kind?: string; device?: string; port?: number; priority?: number; t?: number };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (e.device === undefined || e.t === undefined) continue;
    const row = `${e.device} eth${e.port} p${e.priority}`;
    if (e.kind === "paused-on") {
      if (!open.has(row)) open.set(row, { device: e.device, start: e.t });
    } else if (e.kind === "paused-off") {
      const o = open.get(row);
      if (o) {
        out.push({ row, device: o.device, start: o.start, end: e.t });
        open.delete(row);
      }
    }
  }
  for (const [row, o] of open) out.push({ row, device: o.device, start: o.start, end: endNs });
  return out;
}

/** Pause intervals from the sampled pause-state.csv (switch egress queues only). */
function pauseIntervalsFromSeries(text: string | undefined, endNs: number): PauseInterval[] {
  const out: PauseInterval[] = [];
  for (const [key, list] of groupBy(parseSeries(text), (r) => r.key)) {
    const [device, port, queue] = key.split(" ");
    let start = -1;
    for (const r of list) {
      if (r.value > 0 && start < 0) start = r.t;
      else if (r.value === 0 && start >= 0) {
        out.push({ row: `${device} ${port} q${queue}`, device: device!, start, end: r.t });
        start = -1;
      }
    }
    if (start >= 0) out.push({ row: `${device} ${port} q${queue}`, device: device!, start, end: endNs });
  }
  return out;
}

/** When each egress queue was held by its peer's PFC. */
export function pfcPausePlot(files: ReportFiles): PlotSpec | string {
  const r = files.report;
  const exact = files.events !== undefined;
  const intervals = exact
    ? pauseIntervalsFromEvents(files.events!, r.durationNs)
    : pauseIntervalsFromSeries(files.pauseState, r.durationNs);
  if (intervals.length === 0) return "no PFC pause in this run";
  const rows = [...groupBy(intervals, (i) => i.row)].map(([row, list]) => ({
    row,
    device: list[0]!.device,
    first: Math.min(...list.map((i) => i.start)),
    total: list.reduce((a, i) => a + (i.end - i.start), 0),
  }));
  rows.sort((a, b) => a.first - b.first || a.row.localeCompare(b.row));
  // The first paused queue of each device, in the order the pause reached it (that is the hop-by-hop
  // propagation); then, if there is room, the queues paused longest.
  const chosen: typeof rows = [];
  const devices = new Set<string>();
  for (const x of rows) {
    if (chosen.length >= MAX_SERIES) break;
    if (!devices.has(x.device)) {
      devices.add(x.device);
      chosen.push(x);
    }
  }
  for (const x of [...rows].sort((a, b) => b.total - a.total)) {
    if (chosen.length >= MAX_SERIES) break;
    if (!chosen.includes(x)) chosen.push(x);
  }
  chosen.sort((a, b) => a.first - b.first || a.row.localeCompare(b.row));
  const names = new Set(chosen.map((c) => c.row));
  const ts = timeScale(r.durationNs);
  // A pause of a few ns is invisible at run scale: draw every interval at least 1/1500 of the run wide, and
  // merge intervals whose gap is narrower than that (invisible too; a pause storm would otherwise be
  // thousands of rectangles).
  const minWidth = r.durationNs / 1500;
  const values: { row: string; device: string; start: number; end: number }[] = [];
  for (const [row, list] of groupBy(
    intervals.filter((i) => names.has(i.row)),
    (i) => i.row,
  )) {
    list.sort((a, b) => a.start - b.start);
    let cur: { start: number; end: number } | null = null;
    const flush = () => {
      if (cur)
        values.push({ row, device: list[0]!.device, start: cur.start / ts.per, end: cur.end / ts.per });
    };
    for (const i of list) {
      const end = Math.max(i.end, i.start + minWidth);
      if (cur && i.start - cur.end < minWidth) cur.end = Math.max(cur.end, end);
      else {
        flush();
        cur = { start: i.start, end };
      }
    }
    flush();
  }
  // Devices the chart has no room for are named, so a missing host reads as "not shown", not "not paused".
  const hidden = [...new Set(rows.map((x) => x.device))].filter((d) => !chosen.some((c) => c.device === d));
  const hiddenText =
    hidden.length === 0
      ? ""
      : `; also paused, not shown: ${hidden.slice(0, 6).join(", ")}${hidden.length > 6 ? ` and ${hidden.length - 6} more` : ""}`;
  const text =
    rows.length > chosen.length
      ? `PFC pause state: ${chosen.length} of ${rows.length} paused egress queues (the first paused on each device, ${MAX_SERIES} at most)${hiddenText}`
      : `PFC pause state: all ${rows.length} paused egress queues`;
  const source = exact ? "paused-on/off events" : `pause-state.csv sampled every ${r.sampleNs / 1e3} µs`;
  return {
    file: PLOT_FILES.pfcPause,
    title: text,
    spec: {
      $schema: SCHEMA,
      title: title(text, `${subtitleOf(r)}; bars: time a peer's XOFF held the queue (${source})`),
      width: WIDTH,
      height: Math.max(120, chosen.length * 26),
      data: { values },
      mark: { type: "bar", clip: true },
      encoding: {
        x: {
          field: "start",
          type: "quantitative",
          title: `time (${ts.unit})`,
          scale: { domain: [0, r.durationNs / ts.per] },
        },
        x2: { field: "end" },
        y: {
          field: "row",
          type: "nominal",
          sort: chosen.map((c) => c.row),
          title: "device, port, priority",
        },
        color: { field: "device", type: "nominal", legend: null, scale: { range: [...PALETTE] } },
      },
      config: baseConfig(),
    },
  };
}
