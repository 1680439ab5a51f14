// IPCC in a whole fabric, in virtual time: with ECN marking off (so no receiver NIC sends a CNP), the
// switches' own CNPs reach the senders' QPs — and only those — and their DCQCN reaction points cut their
// rates. The same run without IPCC cuts nothing, so the test fails if the CNPs go astray.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import type { SimEvent } from "../../src/runtime/sim/simulator.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { tempDir } from "../helpers/temp-dir.js";

const SENDERS = ["h1", "h2", "h5", "h6"];

function run(ipcc: boolean) {
  const dir = tempDir("ipcc-sim-");
  const file = join(dir, "scenario.yaml");
  writeFileSync(
    file,
    [
      "name: ipcc-sim",
      "description: 4-to-1 incast, ECN marking off",
      "topology: default",
      "seed: 1",
      "duration: 1500us",
      "sample: 100us",
      "overrides:",
      "  hosts: { dcqcn: nvidia }",
      `  switches: { ipcc: { enabled: ${ipcc} }, ecn: { queues: { "3": null } } }`,
      "timeline:",
      "  - at: 10us",
      "    start: { type: incast, name: warmup, to: h4, from: [h1, h2, h5, h6], size: 16KB }",
      "  - at: 100us",
      "    start: { type: incast, name: incast, to: h4, from: [h1, h2, h5, h6], size: 2MB }",
      "",
    ].join("\n"),
  );
  const cuts: SimEvent[] = [];
  const { report } = runScenarioSim(loadScenario(file), {
    onEvent: (e) => {
      if (e.kind === "rate-cut") cuts.push(e);
    },
  });
  return { report, cuts };
}

t.test("IPCC CNPs reach the senders' QPs and cut their rates; none without IPCC", (t) => {
  const on = run(true);
  const nic = (h: string, c: string) => on.report.devices[h]!.counters[c] ?? 0;
  t.equal(on.report.summary.ecnMarked, 0, "no ECN marks");
  t.equal(on.report.summary.cnpSent, 0, "no receiver NIC sent a CNP");
  for (const h of SENDERS) {
    const qps = new Set(on.report.flows.filter((f) => f.src === h).map((f) => f.qp));
    t.ok(nic(h, "rp_cnp_handled") > 0, `${h} handled ${nic(h, "rp_cnp_handled")} switch CNPs`);
    t.ok(
      on.cuts.some((e) => e.device === h && qps.has(e.qp ?? -1)),
      `${h}'s incast QP was cut (${on.cuts.filter((e) => e.device === h).length} cut events)`,
    );
  }
  for (const h of Object.keys(on.report.devices)) {
    if (on.report.devices[h]!.kind !== "nic") continue;
    t.equal(nic(h, "rp_cnp_ignored"), 0, `${h}: no CNP for an unknown QP`);
    if (!SENDERS.includes(h)) t.equal(nic(h, "rp_cnp_handled"), 0, `${h} (not a sender) got no CNP`);
  }
  t.equal(on.report.summary.drops.lossless, 0, "lossless");
  t.equal(on.report.summary.flowsCompleted, 8, "every flow completed");

  const off = run(false);
  t.equal(off.report.summary.cnpHandled, 0, "without IPCC (and without ECN) no CNP at all");
  t.equal(off.cuts.length, 0, "and no rate cut");
  t.end();
});
