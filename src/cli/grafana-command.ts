// `rocelab grafana [--out FILE] [--preview SCENARIO --preview-dir DIR]`: the Grafana dashboard of the lab
// metrics (docs/grafana/rocelab-dashboard.json is its output), and its preview — the same panels computed
// from a simulated run of SCENARIO, one SVG per panel.

import type { Command } from "commander";
import { DASHBOARD_ROWS, grafanaDashboard, panelPreview } from "../export/grafana-dashboard.js";
import { DEFAULT_DILATION } from "../lab/live/clock-plan.js";
import { OpenMetricsRecorder } from "../metrics/openmetrics.js";
import { renderSvg } from "../report/plots.js";
import { runScenarioSim } from "../run/run-sim.js";
import { OutputDir, writeNewFile } from "../runtime/realtime/safe-files.js";
import { loadScenario } from "../scenario/scenario.js";
import { action, UsageError } from "./errors.js";

/** Renders every panel of the dashboard from a simulated run; returns the files written. */
export async function writePreview(scenario: string, dir: string, force = false): Promise<string[]> {
  const sc = loadScenario(scenario);
  const out = OutputDir.create(dir, { force, flag: "--preview-dir" });
  try {
    return await drawPanels(sc, out);
  } finally {
    out.close();
  }
}

async function drawPanels(sc: ReturnType<typeof loadScenario>, out: OutputDir): Promise<string[]> {
  // Graph time as a live lab at the default dilation would show it.
  const rec = new OpenMetricsRecorder(sc.name, 0, DEFAULT_DILATION);
  runScenarioSim(sc, { metrics: rec });
  const written: string[] = [];
  let n = 0;
  for (const row of DASHBOARD_ROWS) {
    for (const p of row.panels) {
      n++;
      const spec = panelPreview(p, rec);
      if (spec === null) continue;
      const name = `panel-${String(n).padStart(2, "0")}-${p.metric.replaceAll("_", "-")}.svg`;
      written.push(out.write(name, await renderSvg(spec)));
    }
  }
  return written;
}

export function registerGrafanaCommand(program: Command): void {
  program
    .command("grafana")
    .description(
      "write the Grafana dashboard of the lab metrics; --preview draws its panels from a simulated run",
    )
    .option("--out <file>", "dashboard JSON file (default: stdout)")
    .option("--preview <scenario>", "run this scenario in the simulator and draw every panel as SVG")
    .option("--preview-dir <dir>", "where the preview SVGs go (a new or empty directory)", "grafana-preview")
    .option("--force", "replace --out FILE, write into a --preview-dir that holds files")
    .action(
      action(async (opts: { out?: string; preview?: string; previewDir: string; force?: boolean }) => {
        const json = `${JSON.stringify(grafanaDashboard(), null, 2)}\n`;
        if (opts.out) writeNewFile(opts.out, json, { force: opts.force ?? false, flag: "--out" });
        else if (!opts.preview) process.stdout.write(json);
        if (opts.preview) {
          const files = await writePreview(opts.preview, opts.previewDir, opts.force ?? false);
          if (files.length === 0) throw new UsageError("the run gave no panel anything to show", 1);
          for (const f of files) process.stdout.write(`${f}\n`);
        }
      }),
    );
}
