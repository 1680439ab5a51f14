// Per-workload metrics of `rocelab compare`: with more than one workload in a run, each workload's FCT
// percentiles and unfinished flows are figures of their own, by the workload's name (the mice apart from the
// elephants they share a port with), analysed over seeds like every other metric; with one workload there
// are none (its figures are those of all flows).
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { runComparison } from "../../src/run/compare/compare.js";
import { metricDefsOf, metricWorkload } from "../../src/run/compare/metrics.js";
import { planJobs, type Variant } from "../../src/run/compare/variants.js";

function scenario(dir: string, name: string, elephants: number, mice: boolean): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      `topology: ${resolve("docs/examples/incast-3leaf.yaml")}`,
      "duration: 400us",
      "sample: 50us",
      "timeline:",
      "  - at: 10us",
      `    start: { type: incast, name: elephants, to: h17, from: ${elephants}, size: 128KB }`,
      ...(mice
        ? ["  - at: 20us", "    start: { type: incast, name: mice, to: h17, from: 2, size: 4KB }"]
        : []),
    ].join("\n"),
  );
  return file;
}

t.test("the mice and the elephants are measured apart, by workload name", async (t) => {
  const dir = t.testdir({});
  const variants: Variant[] = [
    { label: "two", file: scenario(dir, "two", 2, true) },
    { label: "eight", file: scenario(dir, "eight", 8, true) },
  ];
  const out = await runComparison(
    planJobs(variants, { seeds: [1, 2, 3], jitterNs: 1000, varyEcmp: true }, {}),
    1,
  );
  const ids = out.metrics.map((m) => m.id);
  for (const w of ["elephants", "mice"])
    for (const k of ["fct-p50", "fct-p99", "unfinished"])
      t.ok(ids.includes(`workload:${w}:${k}`), `${w} ${k}`);
  const m = (id: string) => out.metrics.find((x) => x.id === id)!;
  t.equal(m("workload:mice:fct-p99").label, "FCT p99 (workload mice)");
  for (const r of out.runs) {
    const mice = r.values["workload:mice:fct-p99"]!.value;
    const elephants = r.values["workload:elephants:fct-p99"]!.value;
    const all = r.values["fct-p99"]!.value;
    t.ok(mice < elephants, `${r.variant} seed ${r.seed}: mice p99 ${mice} < elephants p99 ${elephants}`);
    t.ok(mice < all, "the mice's p99 is not the p99 of all flows");
  }
  // Eight elephants into h17 instead of two: the elephants' p99 rises beyond the seed scatter.
  const ele = m("workload:elephants:fct-p99").pairs[0]!;
  t.equal(ele.direction, 1, ele.text);
  t.match(ele.text, /FCT p99 \(workload elephants\): two lower than eight/);
});

t.test("one workload: no per-workload metrics; a workload some variants lack is left out", async (t) => {
  const dir = t.testdir({});
  const variants: Variant[] = [
    { label: "alone", file: scenario(dir, "alone", 2, false) },
    { label: "mixed", file: scenario(dir, "mixed", 2, true) },
  ];
  const out = await runComparison(planJobs(variants, { seeds: [1, 2], jitterNs: 0, varyEcmp: false }, {}), 1);
  const alone = out.runs.filter((r) => r.variant === "alone");
  t.same(
    Object.keys(alone[0]!.values).filter((id) => metricWorkload(id) !== null),
    [],
    "a run with one workload has none",
  );
  t.ok(
    metricDefsOf(out.runs).some((d) => d.id === "workload:mice:fct-p99"),
    "the mixed runs have them",
  );
  t.notOk(
    out.metrics.some((m) => metricWorkload(m.id) !== null),
    "not in the comparison: the alone variant has no per-workload figures",
  );
  t.equal(metricWorkload("workload:a:b:fct-p99"), "a:b", "a name with a colon survives");
});
