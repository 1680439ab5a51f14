// `rocelab plot DIR`: charts of a report written by `rocelab run`, as SVG files in DIR/plots/ (queue depth,
// PFC pause state, DCQCN rate and α, goodput, FCT CDF). src/report/plots.ts builds and renders them; this
// command only reads the report directory and writes the files.

import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import type { ReportFiles } from "../report/plot-kit.js";
import { renderPlots } from "../report/plots.js";
import type { Report } from "../report/report.js";
import { SERIES_FILES } from "../report/series-recorder.js";
import { OutputDir } from "../runtime/realtime/safe-files.js";
import { action, UsageError } from "./errors.js";

/** Reads what `rocelab run` wrote in `dir`; only report.json is required. */
export function readReportDir(dir: string): ReportFiles {
  const reportPath = join(dir, "report.json");
  if (!existsSync(reportPath))
    throw new UsageError(`${dir} has no report.json (write one with rocelab run --out)`);
  let report: Report;
  try {
    report = JSON.parse(readFileSync(reportPath, "utf8")) as Report;
  } catch (e) {
    throw new UsageError(`${reportPath} is not a report: ${(e as Error).message}`);
  }
  if (typeof report.durationNs !== "number" || !Array.isArray(report.flows)) {
    throw new UsageError(`${reportPath} is not a rocelab report (no durationNs or flows)`);
  }
  const text = (file: string): string | undefined => {
    const path = join(dir, file);
    return existsSync(path) ? readFileSync(path, "utf8") : undefined;
  };
  return {
    report,
    queueDepth: text(SERIES_FILES.queueDepth),
    pauseState: text(SERIES_FILES.pauseState),
    qpRate: text(SERIES_FILES.qpRate),
    flowRate: text(SERIES_FILES.flowRate),
    events: text("events.jsonl"),
  };
}

/** Registers `plot DIR [--out PLOTDIR]` on `program`. */
export function registerPlotCommand(program: Command): void {
  program
    .command("plot")
    .argument("<dir>", "a report directory written by rocelab run --out")
    .description("draw a report's queue depth, PFC pauses, DCQCN rate and α, goodput and FCT CDF as SVG")
    .option("--out <dir>", "where to write the SVG files (default: DIR/plots); a new or empty directory")
    .option("--force", "write into the plot directory even if it holds files (replacing plots drawn before)")
    .option("--quiet", "print nothing but errors")
    .action(
      action(async (dir: string, opts: { out?: string; force?: boolean; quiet?: boolean }) => {
        const files = readReportDir(resolve(dir));
        const out = OutputDir.create(resolve(opts.out ?? join(dir, "plots")), {
          force: opts.force ?? false,
          ...(opts.out !== undefined ? { flag: "--out" } : {}),
        });
        try {
          const { rendered, skipped } = await renderPlots(files);
          for (const p of rendered) {
            const path = out.write(p.file, p.svg);
            if (!opts.quiet) process.stdout.write(`${path}  ${p.title}\n`);
          }
          if (!opts.quiet) for (const s of skipped) process.stdout.write(`(no ${s.file}: ${s.reason})\n`);
        } finally {
          out.close();
        }
      }),
    );
}
