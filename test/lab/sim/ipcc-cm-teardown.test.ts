// IPCC's flow table and RDMA CM teardown in the simulator: QPs connected on demand (REQ/REP/RTU) enter
// both directions of their connection from the REP; when a flow's work is done its active side sends a
// DREQ, and every switch on the way removes that connection's two entries at once (counted), instead of
// leaving them to age out. A run without CM keeps its entries until they age.
import t from "tap";
import { runScenarioSim } from "../../../src/run/run-sim.js";
import { resolveScenario } from "../../../src/scenario/scenario.js";
import { scenarioFile } from "../../../src/scenario/schema.js";

function run(connect: "on-demand" | "pre") {
  const flow = (name: string, from: string, to: string) => ({
    at: "10us",
    start: { type: "flow", name, from, to, size: "256KB", qps: 2, connect },
  });
  const sc = resolveScenario(
    scenarioFile.parse({
      name: "ipcc-teardown",
      topology: "lag.yaml",
      duration: "1ms",
      overrides: { switches: { ipcc: { enabled: true } } },
      timeline: [flow("f1", "h1", "h5"), flow("f2", "h2", "h6")],
    }),
    "docs/examples/ipcc-teardown.yaml",
    null,
  );
  return runScenarioSim(sc, {}).report;
}

t.test("a DREQ removes its connection's entries on every switch it crosses", (t) => {
  const r = run("on-demand");
  t.equal(r.summary.flowsCompleted, r.summary.flowsTotal, "the flows complete");
  for (const sw of ["leaf1", "leaf2"]) {
    const c = r.devices[sw]!.counters;
    t.equal(c.ipcc_flows_learned_cm, 8, `${sw}: 4 connections entered from CM, both directions`);
    t.equal(c.ipcc_flows_removed_cm, 8, `${sw}: every one removed by its DREQ`);
    t.equal(c.ipcc_flow_entries, 0, `${sw}: the table is empty after the teardown`);
    t.equal(c.ipcc_flows_aged, 0, `${sw}: nothing left to age`);
  }
  t.end();
});

t.test("pre-connected QPs have no teardown on the wire: their entries stay until they age", (t) => {
  const r = run("pre");
  const c = r.devices.leaf1!.counters;
  t.equal(c.ipcc_flows_removed_cm, 0);
  t.ok((c.ipcc_flow_entries ?? 0) > 0, `entries still held (${c.ipcc_flow_entries})`);
  t.end();
});
