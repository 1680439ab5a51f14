// docs/experiments/qp-errors: every run's golden summary and flows (test/golden), re-run (see
// experiments.test.ts), and the PFC watchdog verdict of the page over seeds: with ConnectX's QP attributes
// (timeout 14, retryCnt 7) the stormed flow of a 700 ms storm fails whatever the watchdog does, and only a
// watchdog that restores the upstream queues before 537 ms saves the neighbour the storm's pause caught.
import { join } from "node:path";
import t from "tap";
import { runComparison } from "../../src/run/compare/compare.js";
import { planJobs, type Variant } from "../../src/run/compare/variants.js";
import { checkExperiment, experimentsUnder } from "../helpers/experiments.js";

const files = experimentsUnder("qp-errors/");
t.ok(files.length >= 7, `${files.length} experiments under qp-errors/`);
for (const file of files) {
  t.test(`${file} reproduces its golden`, (t) => {
    checkExperiment(t, file);
    t.end();
  });
}

t.test(
  "a 700 ms storm: the victim fails in every seed; the 100 ms watchdog alone saves the neighbour",
  async (t) => {
    const variants: Variant[] = ["storm-700ms-no-watchdog", "storm-700ms-watchdog", "storm-700ms-sonic"].map(
      (label) => ({ label, file: join("docs", "experiments", "qp-errors", `${label}.yaml`) }),
    );
    // Seeds 1..3: seed 1 puts the neighbour on the stormed spine, seed 2 not (ECMP seeds vary per seed).
    const jobs = planJobs(variants, { seeds: [1, 2, 3], jitterNs: 1000, varyEcmp: true }, {});
    const out = await runComparison(jobs, 1);
    const failed = (label: string) =>
      out.runs.filter((r) => r.variant === label).map((r) => r.values.failed!.value);
    t.same(failed("storm-700ms-watchdog"), [1, 1, 1], "only the victim fails with the 100 ms watchdog");
    t.same(
      failed("storm-700ms-no-watchdog"),
      [2, 1, 2],
      "without it the neighbour fails where it shares the spine",
    );
    t.same(
      failed("storm-700ms-sonic"),
      [2, 1, 2],
      "and at SONiC's 200 ms the watchdog restores too late for it",
    );
  },
);
