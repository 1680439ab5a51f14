// `rocelab report DIR [--scenario FILE]`: writes DIR/index.html, the page a person reads — summary, every
// chart (written to DIR/plots/ as `rocelab plot` does, plus the CNP rate and per-link utilisation), the
// configuration used and its lint findings.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { lintScenario, lintTopology } from "../lint/lint.js";
import { cnpRatePlot, EXTRA_PLOT_FILES, linkUtilisationPlot } from "../report/extra-plots.js";
import { renderHtmlReport } from "../report/html-report.js";
import { renderPlots, renderSvg } from "../report/plots.js";
import type { Finding } from "../scenario/rule.js";
import { loadScenario } from "../scenario/scenario.js";
import { loadTopology } from "../scenario/topology-file.js";
import { action } from "./errors.js";
import { readReportDir } from "./plot-command.js";

/** Writes DIR/index.html (and DIR/plots/*.svg); returns the page's path. */
export async function writeHtmlReport(dir: string, scenarioFile?: string): Promise<string> {
  const files = readReportDir(dir);
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
  mkdirSync(join(dir, "plots"), { recursive: true });
  for (const p of all) writeFileSync(join(dir, "plots", p.file), p.svg);

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
  const page = join(dir, "index.html");
  writeFileSync(page, html);
  return page;
}

export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .argument("<dir>", "a report directory written by rocelab run --out")
    .description("write DIR/index.html: summary, every plot, the configuration used and its lint findings")
    .option("--scenario <file>", "the scenario the run played (its text and lint findings go on the page)")
    .action(
      action(async (dir: string, opts: { scenario?: string }) => {
        const page = await writeHtmlReport(resolve(dir), opts.scenario);
        process.stdout.write(`${page}\n`);
      }),
    );
}
