// rocelab compare end to end: what a seed varies (scenario seed, start jitter, ECMP hash seeds), the sweep
// parser, and a comparison whose answer is known (16 senders into one port finish later than 4).
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { createRandom } from "../../src/device/prng.js";
import { generateFlows, type WorkloadSpec } from "../../src/nic/workloads.js";
import { runComparison } from "../../src/run/compare/compare.js";
import { applyJob, parseSweep, planJobs, type Variant } from "../../src/run/compare/variants.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { rl } from "../helpers/live.js";

function incast(dir: string, name: string, from: number): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      `topology: ${resolve("docs/examples/incast-3leaf.yaml")}`,
      "duration: 400us",
      "sample: 50us",
      "overrides: { hosts: { dcqcn: nvidia } }",
      "timeline:",
      "  - at: 10us",
      `    start: { type: incast, name: burst, to: h17, from: ${from}, size: 64KB }`,
    ].join("\n"),
  );
  return file;
}

t.test("workload start jitter: off by default, within [at, at + jitter) when set", async (t) => {
  const spec: WorkloadSpec = {
    type: "incast",
    name: "w",
    op: "write",
    qps: 1,
    repeat: 1,
    intervalNs: 0,
    to: "h17",
    from: ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"],
    bytes: 1000,
  };
  const ids = () => {
    let n = 1;
    return () => n++;
  };
  const plain = generateFlows(spec, 5000, createRandom(1, "w"), ids());
  t.ok(
    plain.every((f) => f.atNs === 5000),
    "no jitter: every message at its time",
  );
  const a = generateFlows({ ...spec, startJitterNs: 1000 }, 5000, createRandom(1, "w"), ids());
  const b = generateFlows({ ...spec, startJitterNs: 1000 }, 5000, createRandom(2, "w"), ids());
  t.ok(
    a.every((f) => f.atNs >= 5000 && f.atNs < 6000),
    "within the jitter",
  );
  t.ok(new Set(a.map((f) => f.atNs)).size > 4, "the senders no longer start in the same nanosecond");
  t.notSame(
    a.map((f) => f.atNs),
    b.map((f) => f.atNs),
    "another seed, other start times",
  );
});

t.test("a job sets the seed, the start jitter and a per-switch ECMP seed", async (t) => {
  const file = incast(t.testdir({}), "four", 4);
  const base = loadScenario(file);
  const variant: Variant = { label: "four", file };
  const [j1, j2] = planJobs([variant], { seeds: [1, 2], jitterNs: 1000, varyEcmp: true }, {});
  const s1 = applyJob(base, j1!);
  const s2 = applyJob(base, j2!);
  t.equal(s1.seed, 1);
  t.equal(s2.seed, 2);
  const step = s1.timeline[0]!.action;
  t.ok(step.kind === "start" && step.workload.startJitterNs === 1000, "jitter on the workload");
  const seedOf = (s: typeof s1, n: string) => s.overrides.nodes[n]?.at(-1)?.ecmp?.seed;
  t.ok(seedOf(s1, "leaf1") !== undefined && seedOf(s1, "leaf1") !== seedOf(s1, "leaf2"), "switches differ");
  t.not(seedOf(s1, "leaf1"), seedOf(s2, "leaf1"), "seeds differ");
  const fixed = applyJob(base, { ...j1!, varyEcmp: false, jitterNs: 0 });
  t.same(fixed.overrides, base.overrides, "--same-ecmp leaves the scenario's settings alone");
  t.same(fixed.timeline, base.timeline, "--jitter 0 leaves the workloads alone");
});

t.test("sweep values are settings layers the schema accepts; others are refused by name", async (t) => {
  const v = parseSweep("switches.ecn.ai.mode=off,local");
  t.same(
    v.map((x) => x.label),
    ["ecn.ai.mode=off", "ecn.ai.mode=local"],
  );
  t.same(v[1]!.settings, { ecn: { ai: { mode: "local" } } });
  t.same(parseSweep("hosts.dcqcn.g=0.004, 0.06")[1]!.settings, { dcqcn: { g: 0.06 } });
  t.throws(() => parseSweep("switches.ecn.ai.mode=sideways"), { name: "SweepError" });
  t.throws(() => parseSweep("switches.ecn.ai.mode=sideways"), /switches\.ecn\.ai\.mode/);
  t.throws(() => parseSweep("fabric.x=1"), /expected switches\.PATH=V1,V2/);
});

t.test("16 senders into one port finish later than 4, beyond any change of seed", async (t) => {
  const dir = t.testdir({});
  const variants: Variant[] = [
    { label: "four", file: incast(dir, "four", 4) },
    { label: "sixteen", file: incast(dir, "sixteen", 16) },
  ];
  const jobs = planJobs(variants, { seeds: [1, 2, 3], jitterNs: 1000, varyEcmp: true }, {});
  const out = await runComparison(jobs, 1);
  t.equal(out.runs.length, 6);
  const fct = out.metrics.find((m) => m.id === "fct-p99")!;
  t.equal(fct.variants.length, 2);
  const spread = new Set(fct.variants[1]!.values);
  t.ok(spread.size > 1, `the seeds change the outcome: ${[...spread].join(", ")}`);
  const p = fct.pairs[0]!;
  t.equal(p.direction, 1, p.text);
  t.ok(p.beyondSeedScatter, p.text);
  t.match(p.text, /four lower than sixteen/);
  const again = await runComparison(jobs, 1);
  t.same(again.runs, out.runs, "the same command gives the same numbers");
});

t.test("rocelab compare over two worker threads: JSON and the plot", async (t) => {
  const dir = t.testdir({});
  const a = incast(dir, "four", 4);
  const b = incast(dir, "sixteen", 16);
  const out = join(dir, "out");
  const r = await rl(["compare", a, b, "--seeds", "2", "--jobs", "2", "--out", out, "--quiet"]);
  t.equal(r.exitCode, 0, r.stderr);
  t.match(r.stdout, /compare: 2 variants × 2 seeds in the simulator/);
  t.match(r.stdout, /sixteen vs four:/);
  const doc = JSON.parse(readFileSync(join(out, "compare.json"), "utf8")) as {
    runs: unknown[];
    metrics: { id: string }[];
  };
  t.equal(doc.runs.length, 4);
  t.ok(doc.metrics.some((m) => m.id === "goodput"));
  t.match(readFileSync(join(out, "compare.svg"), "utf8"), /<svg/);
  const bad = await rl(["compare", a, "--seeds", "1"]);
  t.not(bad.exitCode, 0, "one seed gives no interval: refused");
  t.match(bad.stderr, /--seeds takes a number from 2/);
});
