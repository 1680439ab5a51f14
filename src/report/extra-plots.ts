// Two more charts of a report, for the HTML page (`rocelab report`): the CNP rate over time (from
// events.jsonl: the NPs' cnp-sent events, rate-limited events carrying their count) and the utilisation of
// every link direction over the run (from report.json: each port's tx_busy_ns over the run's length).

import type { TopLevelSpec } from "vega-lite";
import {
  baseConfig,
  lineSpec,
  MAX_SERIES,
  type PlotSpec,
  type ReportFiles,
  SCHEMA,
  subtitleOf,
  timeScale,
  title,
  WIDTH,
} from "./plot-kit.js";

export const EXTRA_PLOT_FILES = {
  cnpRate: "cnp-rate.svg",
  linkUtilisation: "link-utilisation.svg",
} as const;

/** Bins of the CNP rate chart over the run. */
const CNP_BINS = 100;

interface CnpEvent {
  readonly kind: string;
  readonly t: number;
  readonly device: string;
  readonly count?: number;
}

export function cnpRatePlot(files: ReportFiles): PlotSpec | string {
  if (!files.events) return "no events.jsonl";
  const r = files.report;
  const end = r.durationNs;
  const width = Math.max(r.sampleNs, end / CNP_BINS);
  const nbins = Math.ceil(end / width);
  const perDevice = new Map<string, Float64Array>();
  for (const line of files.events.split("\n")) {
    if (!line.includes('"cnp-sent"')) continue;
    const e = JSON.parse(line) as CnpEvent;
    if (e.kind !== "cnp-sent") continue;
    let bins = perDevice.get(e.device);
    if (bins === undefined) {
      bins = new Float64Array(nbins);
      perDevice.set(e.device, bins);
    }
    bins[Math.min(nbins - 1, Math.floor(e.t / width))]! += e.count ?? 1;
  }
  if (perDevice.size === 0) return "no CNP was sent";
  const ranked = [...perDevice]
    .map(([device, bins]) => ({ device, bins, total: bins.reduce((a, x) => a + x, 0) }))
    .sort((a, b) => b.total - a.total || a.device.localeCompare(b.device, undefined, { numeric: true }));
  const chosen = ranked.slice(0, MAX_SERIES);
  const ts = timeScale(end);
  const values: { t: number; v: number; series: string }[] = [];
  for (const c of chosen) {
    for (let b = 0; b < nbins; b++)
      values.push({ t: (b * width) / ts.per, v: c.bins[b]! / (width / 1e9) / 1e3, series: c.device });
  }
  const text =
    ranked.length > chosen.length
      ? `CNPs sent per second: the ${chosen.length} busiest of ${ranked.length} notification points`
      : "CNPs sent per second, per notification point (receiving NIC)";
  return {
    file: EXTRA_PLOT_FILES.cnpRate,
    title: text,
    spec: lineSpec({
      title: text,
      subtitle: `${subtitleOf(r)}; ${width / 1e3} µs bins of the NPs' cnp-sent events`,
      values,
      x: `time (${ts.unit})`,
      y: "CNP rate (thousands per emulated second)",
      legend: "NP",
      order: chosen.map((c) => c.device),
      step: true,
    }),
  };
}

/**
 * Ports busy less than this share of the run (%) are idle for the utilisation chart: LLDP, ARP, pause
 * frames and the ACKs of traffic going the other way keep every port slightly busy, and 46 bars of which
 * 30 read "0 %" hid the dozen that carried the run.
 */
export const IDLE_PERCENT = 1;

export function linkUtilisationPlot(files: ReportFiles): PlotSpec | string {
  const r = files.report;
  const rows: { link: string; v: number; kind: string }[] = [];
  let idle = 0;
  for (const [device, d] of Object.entries(r.devices)) {
    for (const [port, c] of Object.entries(d.ports)) {
      const busy = c.tx_busy_ns;
      if (typeof busy !== "number" || busy <= 0) continue;
      const v = (100 * busy) / r.durationNs;
      if (v < IDLE_PERCENT) idle++;
      else rows.push({ link: `${device}:${port}`, v, kind: d.kind });
    }
  }
  if (rows.length === 0)
    return idle > 0 ? `every port was below ${IDLE_PERCENT} % busy` : "no port sent anything (no tx_busy_ns)";
  rows.sort((a, b) => b.v - a.v || a.link.localeCompare(b.link, undefined, { numeric: true }));
  const text = `Utilisation of the ports that carried the run (wire time busy / run time, ${IDLE_PERCENT} % and more)`;
  const left = idle > 0 ? `; ${idle} ports below ${IDLE_PERCENT} % left out` : "";
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    title: title(text, `${subtitleOf(r)}; ${rows.length} ports, busiest first${left}`),
    width: WIDTH,
    height: { step: 12 },
    data: { values: rows },
    mark: { type: "bar" },
    encoding: {
      y: { field: "link", type: "nominal", sort: null, title: "device:port (transmit direction)" },
      x: { field: "v", type: "quantitative", title: "utilisation (%)", scale: { domain: [0, 100] } },
      color: { field: "kind", type: "nominal", title: "device", scale: { scheme: "tableau10" } },
    },
    config: baseConfig(),
  };
  return { file: EXTRA_PLOT_FILES.linkUtilisation, title: text, spec };
}
