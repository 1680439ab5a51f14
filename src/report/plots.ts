// Charts of a scenario report. `rocelab run` writes report.json, long-format CSV time series and events.jsonl;
// this module turns their text into vega-lite specs (the charts in queue-plots.ts and flow-plots.ts, their
// common pieces in plot-kit.ts) and renders them to SVG with vega, headless (renderer "none": no canvas, no
// browser). Pure: it reads nothing from disk and writes nothing; the plot command
// (src/cli/plot-command.ts) does the file work.
//
// Every chart keeps to at most MAX_SERIES series and says in its title which ones it picked and why, because
// a fabric has hundreds of queues and QPs and a chart of all of them shows nothing. Time axes are in µs for
// runs up to 2 ms and in ms beyond; sizes in decimal KB or MB (as scenario files write them); rates in Gb/s.

import type { TopLevelSpec } from "vega-lite";
import { ccStatePlot } from "./cc-plots.js";
import { dcqcnPlot, fctCdfPlot, goodputPlot } from "./flow-plots.js";
import { PLOT_FILES, type PlotPlan, type PlotSpec, type ReportFiles } from "./plot-kit.js";
import { pfcPausePlot, queueDepthPlot } from "./queue-plots.js";

/** The charts this report supports, as vega-lite specs (pure and synchronous). */
export function planPlots(files: ReportFiles): PlotPlan {
  const plots: PlotSpec[] = [];
  const skipped: { file: string; reason: string }[] = [];
  const builders: [string, (f: ReportFiles) => PlotSpec | string][] = [
    [PLOT_FILES.queueDepth, queueDepthPlot],
    [PLOT_FILES.pfcPause, pfcPausePlot],
    [PLOT_FILES.dcqcn, dcqcnPlot],
    [PLOT_FILES.goodput, goodputPlot],
    [PLOT_FILES.fctCdf, fctCdfPlot],
    [PLOT_FILES.ccState, ccStatePlot],
  ];
  for (const [file, build] of builders) {
    const result = build(files);
    if (typeof result === "string") skipped.push({ file, reason: result });
    else plots.push(result);
  }
  return { plots, skipped };
}

/** Renders a vega-lite spec to an SVG document, headless, with the chart's title as the SVG's <title>. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded on first use: vega and vega-lite are large CommonJS packages (~0.1 s to load), and every
  // rocelab command imports this module, most of them to draw nothing.
  const [{ parse, View }, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
  const view = new View(parse(compile(spec).spec), { renderer: "none" });
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  const t = spec.title;
  const text =
    typeof t === "string"
      ? t
      : t && typeof t === "object" && "text" in t
        ? Array.isArray(t.text)
          ? t.text.join(" ")
          : String(t.text)
        : "chart";
  const open = svg.indexOf(">") + 1;
  // Vega still puts WAI-ARIA graphics roles on its group and title elements; HTML linters (Biome checks the
  // committed SVGs) read a role on <g> as an interactive element made non-interactive. The <title> names
  // the chart for assistive technology instead.
  const body = svg.slice(open).replace(/ role="graphics-(?:object|symbol|document)"/g, "");
  return compactSvg(`${svg.slice(0, open)}<title>${escapeXml(text)}</title>${body}`);
}

/**
 * The same drawing in a quarter to a third of the bytes, with SVGO (github.com/svg/svgo): coordinates
 * rounded to 0.1 px (Vega writes up to 14 digits), path data in its shortest form, default values and
 * Vega's class names, ARIA and pointer-event attributes (inert in a static picture) left out. The
 * experiments' charts are committed under docs/, where they were 4.5 MB.
 */
async function compactSvg(svg: string): Promise<string> {
  const { optimize } = await import("svgo");
  return optimize(svg, {
    floatPrecision: 1,
    plugins: [
      "preset-default",
      { name: "removeAttrs", params: { attrs: ["class", "aria-.*", "pointer-events"] } },
    ],
  }).data;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Every chart of a report, rendered: file name (in DIR/plots/), title and SVG text. */
export async function renderPlots(files: ReportFiles): Promise<{
  readonly rendered: readonly (PlotSpec & { readonly svg: string })[];
  readonly skipped: PlotPlan["skipped"];
}> {
  const plan = planPlots(files);
  const rendered: (PlotSpec & { svg: string })[] = [];
  for (const p of plan.plots) rendered.push({ ...p, svg: await renderSvg(p.spec) });
  return { rendered, skipped: plan.skipped };
}
