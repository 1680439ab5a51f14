// The plot command's chart builder: which series it picks (at most MAX_SERIES, named in the title), units on
// the axes, charts skipped with a reason when a run has nothing to show, and headless SVG rendering.
import t from "tap";
import type { FlowReport } from "../../src/lab/flow-report.js";
import {
  MAX_SERIES,
  PLOT_FILES,
  type PlotSpec,
  type ReportFiles,
  stepPoints,
  WIDTH,
} from "../../src/report/plot-kit.js";
import { planPlots, renderSvg } from "../../src/report/plots.js";
import { pauseIntervalsFromEvents } from "../../src/report/queue-plots.js";
import type { Report } from "../../src/report/report.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { timedFlow } from "../helpers/flow-report.js";
import { tempDir } from "../helpers/temp-dir.js";

const flow = (id: number, workload: string, fctNs: number | null) =>
  timedFlow(id, 0, fctNs, { workload, goodputBps: fctNs ? 8e12 / fctNs : null });

function report(flows: FlowReport[]): Report {
  return {
    scenario: "synthetic",
    description: "",
    runtime: "sim",
    seed: 1,
    durationNs: 1_000_000,
    sampleNs: 10_000,
    topology: { name: "x", source: "x" },
    summary: {} as Report["summary"],
    flows,
    devices: {},
    files: {},
    wallClockMs: 0,
  };
}

/** 10 queues with peaks 100 KB .. 1 MB; 12 QPs, QP k changing its rate and window k times; pauses on 3 devices. */
function synthetic(): ReportFiles {
  const q = ["t_ns,device,port,queue,bytes"];
  for (let i = 1; i <= 10; i++) q.push(`0,sw${i},eth1,3,0`, `500000,sw${i},eth1,3,${i * 100_000}`);
  const r = ["t_ns,host,qpn,metric,value"];
  const f = ["t_ns,host,qpn,goodput_bps"];
  for (let k = 1; k <= 12; k++) {
    for (let s = 0; s <= k; s++) {
      r.push(
        `${s * 10_000},h${k},256,rate_bps,${100e9 - s * 1e9}`,
        `${s * 10_000},h${k},256,alpha,${s / 20}`,
        `${s * 10_000},h${k},256,window_bytes,${100_000 - s * 1000}`,
      );
    }
    f.push(`10000,h${k},256,${k * 1e9}`);
  }
  const events = [
    { kind: "paused-on", device: "spine1", port: 3, priority: 3, t: 100_000 },
    { kind: "paused-off", device: "spine1", port: 3, priority: 3, t: 200_000 },
    { kind: "paused-on", device: "leaf1", port: 1, priority: 3, t: 150_000 },
    { kind: "paused-on", device: "h1", port: 1, priority: 3, t: 300_000 },
    { kind: "paused-off", device: "h1", port: 1, priority: 3, t: 300_010 },
    { kind: "flow-done", device: "h1", t: 5 },
  ].map((e) => JSON.stringify(e));
  const flows = [
    ...Array.from({ length: 30 }, (_, i) => flow(i, "bulk", 1000 + i * 100_000)),
    flow(99, "probe", 10_000),
  ];
  return {
    report: report(flows),
    queueDepth: `${q.join("\n")}\n`,
    qpRate: `${r.join("\n")}\n`,
    flowRate: `${f.join("\n")}\n`,
    events: `${events.join("\n")}\n`,
  };
}

function seriesOf(p: PlotSpec): Set<string> {
  const json = JSON.stringify(p.spec);
  return new Set([...json.matchAll(/"series":"([^"]+)"/g)].map((m) => m[1]!));
}

t.test("every chart picks at most MAX_SERIES series and says which", (t) => {
  const { plots, skipped } = planPlots(synthetic());
  t.same(skipped, [], "nothing skipped");
  const byFile = new Map(plots.map((p) => [p.file, p]));
  const queue = byFile.get(PLOT_FILES.queueDepth)!;
  t.match(queue.title, /the 6 deepest of 10 queues/);
  t.same([...seriesOf(queue)].sort(), [
    "sw10 eth1 q3",
    "sw5 eth1 q3",
    "sw6 eth1 q3",
    "sw7 eth1 q3",
    "sw8 eth1 q3",
    "sw9 eth1 q3",
  ]);
  t.match(JSON.stringify(queue.spec), /"time \(µs\)"/, "µs for a 1 ms run");
  t.match(JSON.stringify(queue.spec), /"queue depth \(MB\)"/, "MB when the deepest passes 1 MB");
  const dcqcn = byFile.get(PLOT_FILES.dcqcn)!;
  t.match(dcqcn.title, new RegExp(`the ${MAX_SERIES} most often changed of 12 reacting QPs`));
  t.equal(seriesOf(dcqcn).size, MAX_SERIES);
  t.ok(
    seriesOf(dcqcn).has("h12 qp256") && !seriesOf(dcqcn).has("h1 qp256"),
    "the busiest QPs, not the first ones",
  );
  t.match(JSON.stringify(dcqcn.spec), /current rate RC \(Gb\/s\)/);
  const goodput = byFile.get(PLOT_FILES.goodput)!;
  t.equal(seriesOf(goodput).size, MAX_SERIES, "7 QPs and their sum");
  t.ok(seriesOf(goodput).has("all QPs (sum)"));
  const fct = byFile.get(PLOT_FILES.fctCdf)!;
  t.match(fct.title, /31 completed flows by workload/);
  t.match(JSON.stringify(fct.spec), /log scale/, "FCTs spanning 4 decades get a log axis");
  const pause = byFile.get(PLOT_FILES.pfcPause)!;
  t.match(pause.title, /all 3 paused egress queues/);
  const cc = byFile.get(PLOT_FILES.ccState)!;
  t.match(cc.title, new RegExp(`the ${MAX_SERIES} most changing of 12 QPs`));
  t.ok(seriesOf(cc).has("h12 qp256") && !seriesOf(cc).has("h1 qp256"), "the QPs whose window moved most");
  t.end();
});

t.test("pause intervals come from events; an unfinished pause runs to the end", (t) => {
  const intervals = pauseIntervalsFromEvents(synthetic().events!, 1_000_000);
  t.same(intervals.map((i) => [i.row, i.start, i.end]).sort(), [
    ["h1 eth1 p3", 300_000, 300_010],
    ["leaf1 eth1 p3", 150_000, 1_000_000],
    ["spine1 eth3 p3", 100_000, 200_000],
  ]);
  t.end();
});

t.test("thinning a long step series keeps its extremes and its end", (t) => {
  const pts = Array.from({ length: 10_000 }, (_, i) => ({ t: i * 10, v: i === 4321 ? 1e9 : i % 7 }));
  const thin = stepPoints(pts, 200_000);
  t.ok(thin.length <= 2 * WIDTH + 2, `${thin.length} points for a ${WIDTH} px chart`);
  t.ok(
    thin.some((p) => p.v === 1e9),
    "the spike survives",
  );
  t.same(thin[thin.length - 1], { t: 200_000, v: pts[pts.length - 1]!.v }, "held to the end of the run");
  t.end();
});

t.test("a run without congestion skips what it cannot show, and says why", (t) => {
  const files: ReportFiles = {
    report: report([flow(1, "one", 5000)]),
    queueDepth: "t_ns,device,port,queue,bytes\n0,sw1,eth1,3,0\n",
    qpRate: "t_ns,host,qpn,metric,value\n0,h1,256,rate_bps,100000000000\n0,h1,256,alpha,0\n",
  };
  const { plots, skipped } = planPlots(files);
  t.same(plots, []);
  t.same(
    skipped.map((s) => s.file),
    [
      PLOT_FILES.queueDepth,
      PLOT_FILES.pfcPause,
      PLOT_FILES.dcqcn,
      PLOT_FILES.goodput,
      PLOT_FILES.fctCdf,
      PLOT_FILES.ccState,
    ],
  );
  t.match(skipped.find((s) => s.file === PLOT_FILES.dcqcn)!.reason, /DCQCN off/);
  t.end();
});

t.test("charts render to SVG headlessly", async (t) => {
  const { plots } = planPlots(synthetic());
  for (const p of plots) {
    const svg = await renderSvg(p.spec);
    t.match(svg, /^<svg/, `${p.file} is an SVG`);
    t.ok(svg.includes(p.title.slice(0, 20)), `${p.file} carries its title`);
    // Compact (SVGO): no number with more than one decimal in a drawing attribute, no Vega class names,
    // ARIA or pointer-event attributes; the axes' labels are still text.
    const attrs = [...svg.matchAll(/ (?:d|transform|x|y|x2|y2|points)="([^"]*)"/g)].map((m) => m[1]!);
    t.ok(attrs.length > 0, `${p.file} has drawing attributes`);
    t.same(
      attrs.filter((a) => /\d\.\d\d/.test(a)),
      [],
      `${p.file}: coordinates rounded to 0.1 px`,
    );
    t.notMatch(svg, / (?:class|aria-[a-z]+|pointer-events)=/, `${p.file}: no class, ARIA or pointer-events`);
    t.match(svg, /<text[^>]*>[^<]+<\/text>/, `${p.file}: labels are text`);
  }
  t.end();
});

t.test("charts use eight distinct colours and say what they leave out", async (t) => {
  const { readFileSync } = await import("node:fs");
  const { PALETTE } = await import("../../src/report/plot-kit.js");
  const { pfcPausePlot } = await import("../../src/report/queue-plots.js");
  const { goodputPlot } = await import("../../src/report/flow-plots.js");
  t.equal(new Set(PALETTE).size, MAX_SERIES, "one distinct colour per series");
  // The 16-to-1 incast with PFC (docs/experiments/incast-pfc.md), run here: its results are not committed.
  const dir = tempDir("plots-incast-");
  runScenarioSim(loadScenario("docs/experiments/incast-pfc.yaml"), { outDir: dir });
  const files: ReportFiles = {
    report: JSON.parse(readFileSync(`${dir}/report.json`, "utf8")) as Report,
    events: readFileSync(`${dir}/events.jsonl`, "utf8"),
    flowRate: readFileSync(`${dir}/flow-rate.csv`, "utf8"),
  };
  const pause = pfcPausePlot(files);
  t.ok(typeof pause !== "string");
  if (typeof pause !== "string") {
    t.match(pause.title, /also paused, not shown: h\d+/, "the 16-to-1 incast's hidden hosts are named");
  }
  const goodput = goodputPlot(files);
  if (typeof goodput !== "string") t.match(JSON.stringify(goodput.spec), /bunched ACKs can lift a bin/);
  t.end();
});
