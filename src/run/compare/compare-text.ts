// `rocelab compare`'s text: what the seeds varied, a table of means with their 95 % intervals, and the
// verdicts per pair of variants (those with a direction first, then the metrics without a difference).

import { formatDuration } from "../../device/units.js";
import { cellText, leftOutMetrics, type MetricComparison, type RunResult } from "./analysis.js";
import { bucketLabel, slowdownBucket } from "./slowdown.js";
import type { SeedPlan, Variant } from "./variants.js";

export function seedPlanText(plan: SeedPlan): string {
  const jitter =
    plan.jitterNs > 0 ? `start jitter up to ${formatDuration(plan.jitterNs)} per message` : "no start jitter";
  const ecmp = plan.varyEcmp ? "a per-switch ECMP hash seed" : "the scenario's ECMP hash seeds";
  return `seeds ${plan.seeds[0]}..${plan.seeds[plan.seeds.length - 1]}; each seed sets the WRED/ECN marking draws, the workloads' random draws, ${jitter} and ${ecmp}`;
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map(
    (r) =>
      `  ${r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join("  ")
        .trimEnd()}`,
  );
}

/** The slowdown of each flow-size bucket: one table of medians, one of p99s, a row per bucket. */
function slowdownTables(
  metrics: readonly MetricComparison[],
  labels: readonly string[],
  runs: readonly RunResult[] | undefined,
): string[] {
  const lines: string[] = [];
  for (const [stat, what] of [
    ["p50", "median"],
    ["p99", "p99"],
  ] as const) {
    const mine = metrics.filter((m) => slowdownBucket(m.id)?.stat === stat);
    if (mine.length === 0) continue;
    lines.push(
      "",
      `FCT slowdown ${what} by flow size (FCT / ideal FCT alone on an idle path, at least 1; flows: per run, mean over seeds)`,
    );
    lines.push(
      ...table([
        ["flow size", "flows", ...labels],
        ...mine.map((m) => [
          bucketLabel(slowdownBucket(m.id)!.bucket),
          (m.variants[0]?.flows ?? 0).toFixed(1),
          ...m.variants.map((v) => cellText(m, v)),
        ]),
      ]),
    );
  }
  const out = runs === undefined ? [] : leftOutMetrics(runs, metrics).filter((m) => slowdownBucket(m.id));
  const sizes = [...new Set(out.map((m) => bucketLabel(slowdownBucket(m.id)!.bucket)))];
  if (sizes.length > 0) lines.push(`  not compared (no flow of that size in some run): ${sizes.join(", ")}`);
  return lines;
}

export function formatComparison(
  all: readonly MetricComparison[],
  plan: SeedPlan,
  variants: readonly Variant[],
  runtime: "sim" | "live" = "sim",
  runs?: readonly RunResult[],
): string {
  const metrics = all.filter((m) => slowdownBucket(m.id) === null);
  const labels = variants.map((v) => v.label);
  const where =
    runtime === "live"
      ? `${plan.seeds.length} runs in the live lab, one after another (run r with seed r)`
      : `${plan.seeds.length} seeds in the simulator`;
  const lines = [
    `compare: ${labels.length} variant${labels.length === 1 ? "" : "s"} × ${where}`,
    seedPlanText(plan),
    "mean over seeds [95 % confidence interval, Student t]; ≥: some run left flows unfinished, the value is a lower bound",
    "",
  ];
  lines.push(
    ...table([
      ["metric", ...labels],
      ...metrics.map((m) => [m.label, ...m.variants.map((v) => cellText(m, v))]),
    ]),
    ...slowdownTables(all, labels, runs),
  );
  const pairs = new Map<string, { decided: string[]; none: string[] }>();
  for (const m of all)
    for (const p of m.pairs) {
      const key = `${p.b} vs ${p.a}`;
      const entry = pairs.get(key) ?? { decided: [], none: [] };
      if (p.direction !== 0 || p.text.includes("undecided")) entry.decided.push(p.text);
      else entry.none.push(m.label);
      pairs.set(key, entry);
    }
  if (pairs.size > 0)
    lines.push(
      "",
      "verdicts (paired by seed; a direction only where the 95 % interval of the difference excludes 0):",
    );
  for (const [key, e] of pairs) {
    lines.push(`  ${key}:`);
    for (const t of e.decided) lines.push(`    ${t}`);
    if (e.none.length > 0) lines.push(`    no difference at this N: ${e.none.join(", ")}`);
  }
  return lines.join("\n");
}
