// One rule set, one output: the loaders refuse only what cannot work (the rules that `refusesLoad`),
// `rocelab lint` prints text or JSON and exits 1 on errors, `rocelab topology` (like up/run/tui) prints the
// same findings in the same format when the file loads, and docs/lint.md documents every rule.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { formatFinding, formatOnLoad, lintScenario, lintTopology, RULES } from "../../src/lint/lint.js";
import { ConfigError } from "../../src/scenario/config-error.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { rocelab } from "../helpers/cli.js";

const EXAMPLE = readFileSync("docs/examples/default.yaml", "utf8");

t.test("only the rules that refuse make a loader refuse", async (t) => {
  t.same(
    RULES.filter((r) => r.refusesLoad).map((r) => [r.id, r.severity]),
    [["pfc-xoff-over-buffer", "error"]],
  );
  const dir = t.testdir({
    "over.yaml": `${EXAMPLE}\n`.replace(/^defaults:\n/m, "defaults:\n  switch: { pfc: { xoff: 100MB } }\n"),
  });
  let err: unknown;
  try {
    loadTopology(join(dir, "over.yaml"));
  } catch (e) {
    err = e;
  }
  t.ok(err instanceof ConfigError, "refused");
  t.match(
    String((err as Error).message),
    /pfc\.xoff 100MB is larger than the buffer.*\[pfc-xoff-over-buffer\]/,
  );
  // The ghost-latency bad.yaml breaks ecn-before-pfc on purpose, and must still load to be run.
  const bad = loadScenario("docs/experiments/ghost-latency/bad.yaml");
  t.ok(
    lintScenario(bad).some((f) => f.severity === "error"),
    "loads, with its errors for lint",
  );
});

t.test("what a command prints on load: errors and warnings as lint prints them, no notes", async (t) => {
  const findings = lintScenario(loadScenario("docs/experiments/ghost-latency/bad.yaml"));
  const text = formatOnLoad(findings);
  t.match(text, /^lint: \d+ error\(s\), \d+ warning\(s\), 0 note\(s\) against lossless best practices/);
  for (const f of findings.filter((x) => x.severity !== "info")) t.ok(text.includes(formatFinding(f)), f.id);
  t.equal(formatOnLoad([]), "", "nothing to say: nothing printed");
  t.equal(formatOnLoad(findings.filter((f) => f.severity === "info")), "");
});

t.test("rocelab lint: text, JSON, exit status, machine fit", async (t) => {
  const bad = "docs/experiments/ghost-latency/bad.yaml";
  const text = await rocelab(["lint", bad]);
  t.equal(text.exitCode, 1, "errors: exit 1");
  const findings = lintScenario(loadScenario(bad));
  for (const f of findings) t.ok(text.stdout.includes(formatFinding(f)), `text has ${f.id}`);
  t.match(text.stdout, /\n\d+ error\(s\), \d+ warning\(s\), \d+ note\(s\) \(each rule: docs\/lint\.md/);
  t.equal(text.stderr, "", "nothing printed twice on stderr");
  const json = await rocelab(["lint", "--json", bad]);
  t.equal(json.exitCode, 1);
  t.same(JSON.parse(json.stdout), findings);
  const fits = await rocelab([
    "lint",
    "docs/examples/incast-3leaf.yaml",
    "--dilation",
    "1000",
    "--cpus",
    "2",
  ]);
  t.equal(fits.exitCode, 0, "a warning only: exit 0");
  t.match(
    fits.stdout,
    /warning topology-too-large {2}lab\n.*dilation 1000.*\n\s+fix: raise --dilation to \d+/,
  );
  const usage = await rocelab(["lint", "--cpus", "2"]);
  t.equal(usage.exitCode, 2);
  t.match(usage.stderr, /--cpus goes with --dilation/);
});

t.test("rocelab lint --rules lists every rule with its source", async (t) => {
  const r = await rocelab(["lint", "--rules", "--json"]);
  t.equal(r.exitCode, 0);
  const rules = JSON.parse(r.stdout) as { id: string; source: string; refusesLoad: boolean }[];
  t.same(
    rules.map((x) => x.id),
    RULES.map((x) => x.id),
  );
  t.ok(rules.every((x) => x.source.length > 10));
});

t.test("rocelab topology prints the findings of the file in lint's format", async (t) => {
  const dir = t.testdir({
    "ghost.yaml": EXAMPLE.replace(/^defaults:\n/m, "defaults:\n  switch: { pfc: { xoff: 80KB } }\n"),
  });
  const file = join(dir, "ghost.yaml");
  const r = await rocelab(["topology", file]);
  t.equal(r.exitCode, 0, "loads and shows the topology");
  t.equal(`${r.stderr}\n`, formatOnLoad(lintTopology(loadTopology(file))), "exactly the on-load text");
  t.match(r.stderr, /error {3}ecn-before-pfc {2}switches\./);
});

t.test("docs/lint.md documents every rule: id, severity, why with a source, fix", async (t) => {
  const doc = readFileSync("docs/lint.md", "utf8");
  for (const r of RULES) {
    const at = doc.indexOf(`\n## \`${r.id}\``);
    t.ok(at >= 0, `${r.id}: a section`);
    const next = doc.indexOf("\n## ", at + 1);
    const section = doc.slice(at, next < 0 ? undefined : next);
    t.match(section, new RegExp(`Severity: \\*\\*${r.severity}\\*\\*`), `${r.id}: severity`);
    t.match(section, /\*\*Why\*\*/, `${r.id}: why`);
    t.match(section, /\*\*Source\*\*/, `${r.id}: source`);
    t.match(section, /\*\*Fix\*\*/, `${r.id}: fix`);
  }
});
