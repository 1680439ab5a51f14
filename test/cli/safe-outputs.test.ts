// What `run --out`, `plot`, `report`, `tune`, `compare --out` and `run --openmetrics` do with an output someone else could
// have prepared: a planted link in place of report.json, a plot or index.html (made here as root, as a
// second account would in /tmp). Each is refused, or with --force replaced — and the link's target, a
// root-only file, is never written.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { registerCompareCommand } from "../../src/cli/compare-command.js";
import { registerPlotCommand } from "../../src/cli/plot-command.js";
import { registerReportCommand } from "../../src/cli/report-command.js";
import { registerRunCommand } from "../../src/cli/run-command.js";
import { registerTuneCommand } from "../../src/cli/tune-command.js";
import { rocelabHere } from "../helpers/cli-here.js";
import { tempDir } from "../helpers/temp-dir.js";

const SECRET = "root's secret\n";
const dir = tempDir("rl-outputs-");
const victim = join(dir, "shadow");
writeFileSync(victim, SECRET, { mode: 0o600 });
const scenario = join(dir, "tiny.yaml");
writeFileSync(
  scenario,
  [
    "name: tiny",
    `topology: ${resolve("docs/examples/incast-3leaf.yaml")}`,
    "duration: 60us",
    "sample: 10us",
    "timeline:",
    "  - at: 5us",
    "    start: { type: incast, name: burst, to: h17, from: 2, size: 16KB }",
  ].join("\n"),
);
const COMMANDS = [
  registerRunCommand,
  registerPlotCommand,
  registerReportCommand,
  registerTuneCommand,
  registerCompareCommand,
];
const here = (args: readonly string[]) => rocelabHere(COMMANDS, args);
const untouched = (t: { equal(a: unknown, b: unknown, m: string): void }): void => {
  t.equal(readFileSync(victim, "utf8"), SECRET, "the link's target is unchanged");
};

t.test("run --out: a directory holding a planted report.json", async (t) => {
  const out = join(dir, "incast-out");
  mkdirSync(out);
  symlinkSync(victim, join(out, "report.json"));
  const refused = await here(["run", scenario, "--out", out, "--quiet"]);
  t.equal(refused.exitCode, 2);
  t.match(refused.stderr, `rocelab: --out ${out} exists and is not empty (1 entries, e.g. report.json)`);
  untouched(t);
  const forced = await here(["run", scenario, "--out", out, "--quiet", "--force"]);
  t.equal(forced.exitCode, 0, forced.stderr);
  untouched(t);
  t.notOk(lstatSync(join(out, "report.json")).isSymbolicLink(), "the link itself was replaced");
  t.equal(statSync(join(out, "report.json")).mode & 0o777, 0o600);
  t.equal(statSync(join(out, "events.jsonl")).mode & 0o777, 0o600);

  const fresh = join(dir, "fresh", "run");
  t.equal((await here(["run", scenario, "--out", fresh, "--quiet"])).exitCode, 0);
  t.equal(statSync(fresh).mode & 0o777, 0o700, "a directory rocelab creates is 0700");
});

t.test("run --openmetrics FILE: a planted link is refused", async (t) => {
  const file = join(dir, "metrics.om");
  symlinkSync(victim, file);
  const r = await here(["run", scenario, "--out", join(dir, "om-run"), "--quiet", "--openmetrics", file]);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /--openmetrics .*metrics\.om is a symbolic link: rocelab does not write through links/);
  untouched(t);
});

t.test("plot and report: planted plots and page", async (t) => {
  const out = join(dir, "report-dir");
  t.equal((await here(["run", scenario, "--out", out, "--quiet"])).exitCode, 0);
  mkdirSync(join(out, "plots"));
  symlinkSync(victim, join(out, "plots", "goodput.svg"));
  const plot = await here(["plot", out, "--quiet"]);
  t.equal(plot.exitCode, 2);
  t.match(
    plot.stderr,
    /plots exists and is not empty \(1 entries, e\.g\. goodput\.svg\): choose a new directory, or pass --force/,
  );
  t.equal((await here(["plot", out, "--quiet", "--force"])).exitCode, 0);
  untouched(t);
  t.notOk(lstatSync(join(out, "plots", "goodput.svg")).isSymbolicLink());

  symlinkSync(victim, join(out, "index.html"));
  const page = await here(["report", out]);
  t.equal(page.exitCode, 2);
  t.match(page.stderr, /index\.html exists: pass --force to write the report page again/);
  const forced = await here(["report", out, "--force"]);
  t.equal(forced.exitCode, 0, forced.stderr);
  untouched(t);
  t.match(readFileSync(join(out, "index.html"), "utf8"), /<html/);
});

t.test("tune --out: refused before any trial runs", async (t) => {
  const out = join(dir, "tune-out");
  mkdirSync(out);
  symlinkSync(victim, join(out, "tune.json"));
  const r = await here(["tune", scenario, "--out", out, "--trials", "0", "--quiet", "--jobs", "1"]);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, `--out ${out} exists and is not empty`);
  t.same(readdirSync(out), ["tune.json"], "nothing written: the refusal came first");
  untouched(t);
});

t.test("compare --out: refused before any run, and --force replaces the planted link", async (t) => {
  const out = join(dir, "compare-out");
  mkdirSync(out);
  symlinkSync(victim, join(out, "compare.svg"));
  const args = ["compare", scenario, "--seeds", "2", "--jobs", "1", "--quiet", "--out", out];
  const refused = await here(args);
  t.equal(refused.exitCode, 2);
  t.match(refused.stderr, `rocelab: --out ${out} exists and is not empty (1 entries, e.g. compare.svg)`);
  t.same(readdirSync(out), ["compare.svg"], "nothing written: the refusal came first");
  untouched(t);
  const forced = await here([...args, "--force"]);
  t.equal(forced.exitCode, 0, forced.stderr);
  untouched(t);
  t.notOk(lstatSync(join(out, "compare.svg")).isSymbolicLink(), "the link itself was replaced");
  t.match(readFileSync(join(out, "compare.svg"), "utf8"), /^<svg /, "the chart is there");
  t.ok(JSON.parse(readFileSync(join(out, "compare.json"), "utf8")).metrics.length > 0, "and the JSON");
});
