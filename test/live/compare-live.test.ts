// rocelab compare --runtime live --runs N: each variant N times in the live lab, one run after another, each
// in a lab of its own that is gone when the command ends; the same table, JSON and intervals as the
// simulator's comparison.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { guardLab, labNamespaces, labProcesses, requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

function scenario(dir: string, name: string, senders: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      "duration: 300us",
      "sample: 50us",
      "topology:",
      "  nodes: { sw: { kind: switch }, a: { kind: host }, b: { kind: host }, c: { kind: host } }",
      '  links: [["a:eth1", "sw:eth1"], ["b:eth1", "sw:eth2"], ["c:eth1", "sw:eth3"]]',
      "timeline:",
      "  - at: 20us",
      `    start: { type: incast, to: c, from: ${senders}, size: 64KB }`,
      "",
    ].join("\n"),
  );
  return file;
}

t.test("two variants, two live runs each: one lab per run, all taken down, paired figures", async (t) => {
  const dir = t.testdir({});
  const one = scenario(dir, "one", "[a]");
  const two = scenario(dir, "two", "[a, b]");
  const prefix = "cmplt";
  const labs = [1, 2, 3, 4].map((i) => `${prefix}${i}`);
  for (const lab of labs) guardLab(lab);
  const out = join(dir, "out");
  const r = await rl(
    ["compare", one, two, "--runtime", "live", "--runs", "2", "--name", prefix, "--out", out],
    600_000,
  );
  t.equal(r.exitCode, 0, r.stderr);
  t.match(r.stdout, /compare: 2 variants × 2 runs in the live lab, one after another/);
  t.match(r.stdout, /two vs one:/);
  for (const lab of labs) {
    t.match(r.stderr, new RegExp(`lab ${lab}, taken down`), `run in ${lab}`);
    t.same(await labNamespaces(lab), [], `no namespace of ${lab} left`);
    t.same(await labProcesses(lab), [], `no process of ${lab} left`);
  }
  const doc = JSON.parse(readFileSync(join(out, "compare.json"), "utf8")) as {
    runtime: string;
    runs: { variant: string; seed: number; values: Record<string, { value: number } | null> }[];
    metrics: { id: string; variants: { variant: string; values: number[] }[] }[];
  };
  t.equal(doc.runtime, "live");
  t.same(
    doc.runs.map((x) => [x.variant, x.seed]),
    [
      ["one", 1],
      ["one", 2],
      ["two", 1],
      ["two", 2],
    ],
  );
  for (const run of doc.runs)
    t.equal(run.values.unfinished?.value, 0, `${run.variant} run ${run.seed}: every flow done`);
  const fct = doc.metrics.find((m) => m.id === "fct-p99")!;
  t.equal(fct.variants.length, 2);
  t.ok(
    fct.variants.every((v) => v.values.length === 2 && v.values.every((x) => x > 0)),
    "an FCT per run",
  );
  const bad = await rl(["compare", one, two, "--runtime", "live"]);
  t.not(bad.exitCode, 0);
  t.match(bad.stderr, /--runtime live needs --runs N/);
});
