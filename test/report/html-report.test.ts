// `rocelab report DIR`: index.html with the summary, every plot, the configuration and the lint findings,
// checked in a real headless browser (Debian's chromium): it renders, every image loads, no console error.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import t from "tap";
import { writeHtmlReport } from "../../src/cli/report-command.js";
import { escapeHtml } from "../../src/report/html-report.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { checkPage } from "../helpers/chromium.js";

t.test("the report page: summary, plots, configuration, findings; renders in chromium", async (t) => {
  const dir = t.testdir({});
  const file = join(dir, "ghost.yaml");
  // The ghost-latency misconfiguration (XOFF below Kmin), short: its lint error must show on the page.
  writeFileSync(
    file,
    [
      "name: ghost-short",
      "description: XOFF below Kmin <on purpose> & short",
      `topology: ${resolve("docs/examples/incast-3leaf.yaml")}`,
      "duration: 400us",
      "sample: 10us",
      "overrides:",
      "  hosts: { dcqcn: nvidia }",
      "  switches:",
      '    ecn: { queues: { "3": { kmin: 150KB, kmax: 1500KB, pmax: 100% } } }',
      "    pfc: { xoff: 80KB, resumeOffset: 13KB }",
      "timeline:",
      "  - at: 10us",
      "    start: { type: incast, name: burst, to: h17, from: 12, size: 256KB }",
    ].join("\n"),
  );
  const out = join(dir, "out");
  runScenarioSim(loadScenario(file), { outDir: out });
  const page = await writeHtmlReport(out, file);
  t.equal(page, join(out, "index.html"));
  const html = readFileSync(page, "utf8");
  t.match(html, /<h2 id="summary">/);
  t.match(html, /XOFF below Kmin &lt;on purpose&gt; &amp; short/, "text is escaped");
  t.match(html, /class="error">error<\/td><td><code>ecn-before-pfc/, "the lint error is on the page");
  t.match(html, /pfc: \{ xoff: 80KB/, "the scenario as written");
  t.match(html, /incast-3leaf/, "and its topology");
  for (const svg of [
    "queue-depth",
    "pfc-pause",
    "dcqcn-rate",
    "goodput",
    "fct-cdf",
    "cnp-rate",
    "link-utilisation",
  ]) {
    t.ok(existsSync(join(out, "plots", `${svg}.svg`)), `${svg}.svg written`);
    t.match(html, `src="plots/${svg}.svg"`, `${svg} on the page`);
  }
  const check = await checkPage(pathToFileURL(page).href);
  t.equal(check.title, "rocelab report: ghost-short", "chromium rendered the page");
  t.equal(check.images.length, 7, "seven charts");
  t.same(
    check.images.filter((i) => !i.loaded),
    [],
    "every image loaded",
  );
  t.same(check.errors, [], "no console errors");
  t.same(
    check.images.filter((i) => i.shown < i.natural),
    [],
    "no chart is shrunk to fit the page (a title on one long line made the SVG wider than the page)",
  );
  t.ok(
    check.images.every((i) => i.natural <= 1000),
    `every chart fits the page: ${check.images.map((i) => i.natural).join(", ")} px`,
  );
  t.match(
    html,
    /<p class="verdict"><strong>Verdict:<\/strong> (NOT lossless|lossless)[^<]*; PFC (held [a-z0-9]+:eth\d+ priority 3 longest|paused no queue)/,
    "a one-line verdict",
  );
  t.match(html, /<h2 id="pfc">PFC per port<\/h2>/);
  t.match(
    html,
    /<tr><td>[a-z0-9]+:eth\d+<\/td><td>[a-z0-9]+:eth\d+<\/td><td class="n">3<\/td>/,
    "a paused port, its peer and the priority",
  );
  for (const caption of html.matchAll(/<figcaption>([^<]*)<\/figcaption>/g))
    t.notOk(
      html.includes(`alt="${caption[1]}"`),
      `a caption adds to the chart's title: ${caption[1]!.slice(0, 40)}`,
    );
});

t.test("the browser check sees a broken image and a console error", async (t) => {
  const dir = t.testdir({
    "bad.html":
      '<!doctype html><title>bad</title><img src="missing.svg" alt="x"><script>console.error("boom")</script>',
  });
  const check = await checkPage(pathToFileURL(join(dir, "bad.html")).href);
  t.same(
    check.images.map((i) => i.loaded),
    [false],
  );
  t.ok(
    check.errors.some((e) => e.includes("boom")),
    `console error seen (${check.errors})`,
  );
  t.ok(check.errors.length >= 2, "and the failed load");
});

t.test("escapeHtml", async (t) => {
  t.equal(escapeHtml(`<a href="x">&</a>`), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
});
