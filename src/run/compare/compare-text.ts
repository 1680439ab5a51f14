// `rocelab compare`'s text: what the seeds varied, a table of means with their 95 % intervals, and the
// verdicts per pair of variants (those with a direction first, then the metrics without a difference).

import { formatDuration } from "../../device/units.js";
import { cellText, type MetricComparison } from "./analysis.js";
import type { SeedPlan, Variant } from "./variants.js";

export function seedPlanText(plan: SeedPlan): string {
  const jitter =
    plan.jitterNs > 0 ? `start jitter up to ${formatDuration(plan.jitterNs)} per message` : "no start jitter";
  const ecmp = plan.varyEcmp ? "a per-switch ECMP hash seed" : "the scenario's ECMP hash seeds";
  return `seeds ${plan.seeds[0]}..${plan.seeds[plan.seeds.length - 1]}; each seed sets the WRED/ECN marking draws, the workloads' random draws, ${jitter} and ${ecmp}`;
}

export function formatComparison(
  metrics: readonly MetricComparison[],
  plan: SeedPlan,
  variants: readonly Variant[],
  runtime: "sim" | "live" = "sim",
): string {
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
  const rows = [
    ["metric", ...labels],
    ...metrics.map((m) => [m.label, ...m.variants.map((v) => cellText(m, v))]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows)
    lines.push(
      `  ${r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join("  ")
        .trimEnd()}`,
    );
  const pairs = new Map<string, { decided: string[]; none: string[] }>();
  for (const m of metrics)
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
