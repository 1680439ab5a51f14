// The window / RTT / utilisation chart of HPCC, TIMELY and DCTCP: the series in qp-rate.csv (declared in
// qp-cc-series.ts) from a real simulated run of each algorithm, drawn by `rocelab plot` and the HTML report;
// none for DCQCN, whose QPs keep none of them.
import { readFileSync } from "node:fs";
import t from "tap";
import { ccStatePlot } from "../../src/report/cc-plots.js";
import { PLOT_FILES, type ReportFiles } from "../../src/report/plot-kit.js";
import { planPlots, renderSvg } from "../../src/report/plots.js";
import { QP_CC_SERIES } from "../../src/report/qp-cc-series.js";
import type { Report } from "../../src/report/report.js";
import { applyJob } from "../../src/run/compare/variants.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { nicSettings } from "../../src/scenario/schema.js";
import { tempDir } from "../helpers/temp-dir.js";

/** The cc-family incast (4 × 4 MB into h8), cut to 400 µs, with `cc`; its report files. */
function run(cc: string, extra: Record<string, unknown> = {}): ReportFiles {
  const base = loadScenario("docs/experiments/cc-family/incast.yaml");
  const sc = applyJob(base, {
    variant: {
      label: cc,
      file: "",
      sweep: { label: cc, target: "hosts", settings: nicSettings.parse({ cc, ...extra }) },
    },
    seed: 1,
    jitterNs: 0,
    varyEcmp: false,
    durationNs: 400_000,
    metrics: {},
  });
  const dir = tempDir(`cc-plots-${cc}-`);
  runScenarioSim(sc, { outDir: dir });
  return {
    report: JSON.parse(readFileSync(`${dir}/report.json`, "utf8")) as Report,
    qpRate: readFileSync(`${dir}/qp-rate.csv`, "utf8"),
  };
}

const metricsOf = (files: ReportFiles) =>
  new Set(
    files
      .qpRate!.split("\n")
      .slice(1)
      .map((l) => l.split(",")[3]),
  );

// DCTCP keeps a window only when `dctcp.window` is set (HPCC's ns-3: W · R / R_max); its α is the DCQCN
// chart's.
const expected: [string, Record<string, unknown>, readonly string[]][] = [
  ["hpcc", {}, ["window_bytes", "utilisation"]],
  ["timely", {}, ["rtt_ns"]],
  ["dctcp", { dctcp: { window: "200KB" } }, ["window_bytes"]],
];

for (const [cc, extra, want] of expected) {
  t.test(`${cc}: its state in qp-rate.csv and in the chart`, async (t) => {
    const files = run(cc, extra);
    const metrics = metricsOf(files);
    for (const c of QP_CC_SERIES)
      t.equal(
        metrics.has(c.metric),
        want.includes(c.metric),
        `${c.metric} ${want.includes(c.metric) ? "" : "not "}recorded`,
      );
    const plot = ccStatePlot(files);
    if (typeof plot === "string") throw new Error(`no chart: ${plot}`);
    const spec = plot.spec as { vconcat: { encoding: { y: { title: string } } }[] };
    t.equal(spec.vconcat.length, want.length, "a panel per quantity recorded");
    const axes = spec.vconcat.map((p) => p.encoding.y.title);
    for (const m of want)
      t.ok(axes.includes(QP_CC_SERIES.find((c) => c.metric === m)!.axis), `the ${m} panel`);
    t.match(plot.title, /QPs/);
    t.ok(
      planPlots(files).plots.some((p) => p.file === PLOT_FILES.ccState),
      "rocelab plot draws it",
    );
    t.match(await renderSvg(plot.spec), /^<svg/);
    if (cc === "hpcc") {
      const u = files
        .qpRate!.split("\n")
        .filter((l) => l.endsWith(",") === false && l.split(",")[3] === "utilisation")
        .map((l) => Number(l.split(",")[4]));
      t.ok(Math.max(...u) > 0.9, `4 senders into one port: U reached ${Math.max(...u).toFixed(2)} (> 0.9)`);
    }
  });
}

for (const [cc, extra] of [
  ["dcqcn", {}],
  ["dctcp", {}],
] as const)
  t.test(
    `${cc}${cc === "dctcp" ? " without a window" : ""}: no such rows, the chart skipped with the reason`,
    (t) => {
      const files = run(cc, extra);
      const metrics = metricsOf(files);
      for (const c of QP_CC_SERIES) t.notOk(metrics.has(c.metric), `no ${c.metric}`);
      const plan = planPlots(files);
      t.match(plan.skipped.find((s) => s.file === PLOT_FILES.ccState)?.reason ?? "", /hpcc, timely or dctcp/);
      t.end();
    },
  );
