// `rocelab report DIR [--scenario FILE]`: writes DIR/index.html, the page a person reads — summary, every
// chart (written to DIR/plots/ as `rocelab plot` does, plus the CNP rate and per-link utilisation), the
// configuration used and its lint findings.

import { existsSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { lintScenario, lintTopology } from "../lint/lint.js";
import { cnpRatePlot, EXTRA_PLOT_FILES, linkUtilisationPlot } from "../report/extra-plots.js";
import { renderHtmlReport } from "../report/html-report.js";
import { renderPlots, renderSvg } from "../report/plots.js";
import { OutputDir, UnsafeOutputError } from "../runtime/realtime/safe-files.js";
import type { Finding } from "../scenario/rule.js";
import { loadScenario } from "../scenario/scenario.js";
import { loadTopology } from "../scenario/topology-file.js";
import { action } from "./errors.js";
import { readReportDir } from "./plot-command.js";

/**
 * Writes DIR/index.html (and DIR/plots/*.svg, replacing what `rocelab plot` drew there); returns the page's
 * path. An existing index.html is refused unless `force`.
 */
export async function writeHtmlReport(dir: string, scenarioFile?: string, force = false): Promise<string> {
  const files = readReportDir(dir);
  const out = OutputDir.existing(dir, { force });
  try {
    if (out.has("index.html") && !force)
      throw new UnsafeOutputError(
        `${out.file("index.html")} exists: pass --force to write the report page again`,
      );
    return await writeHtmlReportInto(out, files, scenarioFile);
  } finally {
    out.close();
  }
}

async function writeHtmlReportInto(
  out: OutputDir,
  files: ReturnType<typeof readReportDir>,
  scenarioFile: string | undefined,
): Promise<string> {
  const { rendered, skipped } = await renderPlots(files);
  const all: { file: string; title: string; svg: string }[] = [...rendered];
  const missing = [...skipped];
  for (const [file, build] of [
    [EXTRA_PLOT_FILES.cnpRate, cnpRatePlot],
    [EXTRA_PLOT_FILES.linkUtilisation, linkUtilisationPlot],
  ] as const) {
    const p = build(files);
    if (typeof p === "string") missing.push({ file, reason: p });
    else all.push({ ...p, svg: await renderSvg(p.spec) });
  }
  const plots = out.dir("plots");
  try {
    for (const p of all) plots.write(p.file, p.svg);
  } finally {
    plots.close();
  }

  const config: { name: string; text: string }[] = [];
  let findings: Finding[] | null = null;
  if (scenarioFile !== undefined) {
    const sc = loadScenario(scenarioFile);
    findings = lintScenario(sc);
    config.push({
      name: `scenario ${relative(process.cwd(), resolve(scenarioFile))}`,
      text: readFileSync(scenarioFile, "utf8"),
    });
    if (
      typeof sc.topologySource === "string" &&
      sc.topologySource !== "default" &&
      existsSync(sc.topologySource)
    )
      config.push({
        name: `topology ${relative(process.cwd(), sc.topologySource)}`,
        text: readFileSync(sc.topologySource, "utf8"),
      });
  } else {
    const topo = files.report.topology.source;
    if (existsSync(topo)) {
      findings = lintTopology(loadTopology(topo));
      config.push({ name: `topology ${topo}`, text: readFileSync(topo, "utf8") });
    }
  }
  const html = renderHtmlReport({ report: files.report, plots: all, skipped: missing, config, findings });
  return out.write("index.html", html);
}

export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .argument("<dir>", "a report directory written by rocelab run --out")
    .description("write DIR/index.html: summary, every plot, the configuration used and its lint findings")
    .option("--scenario <file>", "the scenario the run played (its text and lint findings go on the page)")
    .option("--force", "write the page again over an existing DIR/index.html")
    .action(
      action(async (dir: string, opts: { scenario?: string; force?: boolean }) => {
        const page = await writeHtmlReport(resolve(dir), opts.scenario, opts.force ?? false);
        process.stdout.write(`${page}\n`);
      }),
    );
}
