// The metrics of a simulated run as OpenMetrics time series with timestamps
// (https://github.com/prometheus/OpenMetrics/blob/main/specification/OpenMetrics.md), the input of
// `promtool tsdb create-blocks-from openmetrics FILE DIR`: a simulated run backfilled into Prometheus
// shows on the same Grafana dashboard as a live lab, under the same metric names and labels.
//
// Emulated time maps onto wall-clock timestamps as a live lab would run it: a sample at emulated t is
// stamped epoch + t × dilation (dilation 1000: one emulated millisecond is one second on the graphs).

import { CounterKind } from "../device/counters.js";
import type { DeviceMetricsEntry, MetricFamily } from "./families.js";
import { metricFamilies } from "./families.js";

export interface Series {
  /** The label set as exposition text: `{lab="x",node="h1"}`. */
  readonly labels: string;
  readonly labelValues: Readonly<Record<string, string>>;
  /** [timestamp ms, value]. */
  readonly points: [number, number][];
}

interface Recorded {
  readonly family: Omit<MetricFamily, "samples">;
  readonly series: Map<string, Series>;
}

/** Label value escaping of the text formats: backslash, double quote and line feed. */
function escapeValue(v: string): string {
  return v.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function labelText(labels: Readonly<Record<string, string>>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeValue(v)}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

function number(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(v);
}

export class OpenMetricsRecorder {
  private readonly families = new Map<string, Recorded>();

  /**
   * @param epochMs wall-clock time of emulated time 0, ms since 1970.
   * @param dilation real seconds per emulated second on the timestamps.
   */
  constructor(
    private readonly lab: string,
    private readonly epochMs: number,
    readonly dilation: number,
  ) {}

  /** Records every device's metrics at emulated `now`. */
  sample(now: number, devices: readonly DeviceMetricsEntry[]): void {
    const t = this.epochMs + (now * this.dilation) / 1e6;
    for (const f of metricFamilies(this.lab, devices)) {
      let r = this.families.get(f.name);
      if (r === undefined) {
        const { samples: _samples, ...family } = f;
        r = { family, series: new Map() };
        this.families.set(f.name, r);
      }
      for (const s of f.samples) {
        const labels = labelText(s.labels);
        let series = r.series.get(labels);
        if (series === undefined) {
          series = { labels, labelValues: s.labels, points: [] };
          r.series.set(labels, series);
        }
        series.points.push([t, s.value]);
      }
    }
  }

  /** The recorded series of one metric (empty if none). */
  series(name: string): readonly Series[] {
    return [...(this.families.get(name)?.series.values() ?? [])];
  }

  /**
   * The exposition: families one after the other (never interleaved), each series in time order, # EOF.
   * A series that stayed 0 the whole run is left out (most port x priority pairs never see a pause), and
   * so is a family left without series.
   */
  text(): string {
    const out: string[] = [];
    for (const { family, series: all } of this.families.values()) {
      const series = [...all.values()].filter((s) => s.points.some(([, v]) => v !== 0));
      if (series.length === 0) continue;
      out.push(`# TYPE ${family.name} ${family.kind === CounterKind.Counter ? "counter" : "gauge"}`);
      out.push(`# HELP ${family.name} ${family.help.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}`);
      for (const s of series) {
        for (const [t, v] of s.points)
          out.push(`${family.name}${s.labels} ${number(v)} ${(t / 1000).toFixed(3)}`);
      }
    }
    out.push("# EOF");
    return `${out.join("\n")}\n`;
  }
}
