// The page a person reads (`rocelab report DIR` writes DIR/index.html): the summary, every flow and how it
// ended (html-flows.ts), every chart (the SVGs beside it in DIR/plots/), the configuration the run used
// and the lint findings on it. Pure: text in, HTML out; one static file with no script, its images
// relative, so it opens from disk or any web server.

import { formatDuration, formatSize } from "../device/units.js";
import type { Finding } from "../scenario/rule.js";
import { plotCaption } from "./html-captions.js";
import { flowsSection } from "./html-flows.js";
import { pfcSection, verdict } from "./html-pfc.js";
import type { Report } from "./report.js";
import { fctNote, fctValueText, flowsText, goodputText } from "./summary-text.js";

export interface HtmlReportInput {
  readonly report: Report;
  /** Charts in page order: file under plots/ and title. */
  readonly plots: readonly { readonly file: string; readonly title: string }[];
  /** Charts the report could not draw, and why. */
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
  /** The scenario and topology files as written, when known. */
  readonly config: readonly { readonly name: string; readonly text: string }[];
  /** Lint findings on the configuration; null when it could not be linted (no scenario given). */
  readonly findings: readonly Finding[] | null;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const CSS = `
body { font: 14px/1.45 "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; } td, th { padding: 3px 12px 3px 0; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 12px; }
.error { color: #b00020; font-weight: bold; } .warning { color: #a15c00; font-weight: bold; } .info { color: #555; }
nav a { margin-right: 1em; }
.verdict { background: #f3f7fb; border-left: 4px solid #0072B2; padding: 0.5em 0.8em; }
`;

function summaryRows(r: Report): [string, string][] {
  const s = r.summary;
  return [
    ["goodput (every delivered byte)", goodputText(s)],
    ["flows", flowsText(s)],
    [
      `FCT p50 / p99 / p99.9${fctNote(s) ? ` (${fctNote(s)})` : ""}`,
      `${fctValueText(s.fctNs, "p50")} / ${fctValueText(s.fctNs, "p99")} / ${fctValueText(s.fctNs, "p999")}`,
    ],
    ["one-way latency p50 / p99", `${formatDuration(s.latencyNs.p50)} / ${formatDuration(s.latencyNs.p99)}`],
    ["PFC pause frames sent", String(s.pauseFramesTx)],
    ["time queues spent paused (summed over every port and priority)", formatDuration(s.pauseTimeNs)],
    ["ECN marks", String(s.ecnMarked)],
    ["CNPs sent / handled", `${s.cnpSent} / ${s.cnpHandled} (${Math.round(s.cnpPerSecond)} per second)`],
    ["drops lossless / lossy", `${s.drops.lossless} / ${s.drops.lossy}`],
    ["retransmitted packets", String(s.retransmits)],
    ["deepest switch queue", formatSize(s.queuePeakBytes)],
  ];
}

function findingsSection(findings: readonly Finding[] | null): string {
  if (findings === null)
    return "<p>Not linted: give the scenario file (<code>rocelab report DIR --scenario FILE</code>).</p>";
  if (findings.length === 0) return "<p>No findings: the configuration follows every rule.</p>";
  const rows = findings
    .map(
      (f) =>
        `<tr><td class="${f.severity}">${f.severity}</td><td><code>${escapeHtml(f.id)}</code></td><td><code>${escapeHtml(f.path)}</code><br>${escapeHtml(f.message)}<br><em>fix:</em> ${escapeHtml(f.fix)}</td></tr>`,
    )
    .join("\n");
  return `<table><tr><th>severity</th><th>rule</th><th>finding</th></tr>\n${rows}\n</table>`;
}

export function renderHtmlReport(input: HtmlReportInput): string {
  const r = input.report;
  const title = `rocelab report: ${r.scenario}`;
  const live = r.live
    ? `<p>Live run, ${r.live.clock} clocks, pace ${r.live.pace.toFixed(2)}${r.live.machineLimited ? `: <strong>machine-limited</strong> (${escapeHtml(r.live.why)})` : ""}.</p>`
    : "";
  const summary = summaryRows(r)
    .map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td class="n">${escapeHtml(v)}</td></tr>`)
    .join("\n");
  const figures = input.plots
    .map(
      (p) =>
        `<figure><img src="plots/${encodeURI(p.file)}" alt="${escapeHtml(p.title)}"><figcaption>${escapeHtml(plotCaption(p.file, r))}</figcaption></figure>`,
    )
    .join("\n");
  const skipped =
    input.skipped.length === 0
      ? ""
      : `<p class="info">Not drawn: ${input.skipped.map((s) => `${escapeHtml(s.file)} (${escapeHtml(s.reason)})`).join(", ")}.</p>`;
  const config =
    input.config.length === 0
      ? "<p>The scenario file was not given (<code>--scenario FILE</code>).</p>"
      : input.config
          .map((c) => `<h3>${escapeHtml(c.name)}</h3>\n<pre>${escapeHtml(c.text)}</pre>`)
          .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${escapeHtml(r.scenario)}</h1>
<p class="sub">${escapeHtml(r.description)}</p>
<p>${r.runtime === "sim" ? "Simulated" : "Live"} run, seed ${r.seed}, ${formatDuration(r.durationNs)} of emulated time sampled every ${formatDuration(r.sampleNs)}, topology <code>${escapeHtml(r.topology.name)}</code> (${escapeHtml(r.topology.source)}).</p>
${live}
<p class="verdict"><strong>Verdict:</strong> ${escapeHtml(verdict(r))}</p>
<nav><a href="#summary">summary</a><a href="#flows">flows</a><a href="#plots">plots</a><a href="#pfc">PFC per port</a><a href="#lint">lint</a><a href="#config">configuration</a><a href="report.json">report.json</a></nav>
<h2 id="summary">Summary</h2>
<table>
${summary}
</table>
<h2 id="flows">Flows</h2>
${flowsSection(r.flows, r.durationNs, escapeHtml)}
<h2 id="plots">Plots</h2>
${figures}
${skipped}
<h2 id="pfc">PFC per port</h2>
${pfcSection(r, escapeHtml)}
<h2 id="lint">Lint findings</h2>
${findingsSection(input.findings)}
<h2 id="config">Configuration</h2>
${config}
</body>
</html>
`;
}
