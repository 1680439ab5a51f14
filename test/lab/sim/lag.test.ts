// A 4-member LACP group between two simulated leaves (docs/examples/lag.yaml) under member failure and
// recovery: the failed member leaves the group at once (carrier loss), the incast keeps going on the other
// members and completes, and the member rejoins after LACP agrees again and carries traffic.

import t from "tap";
import { runScenarioSim } from "../../../src/run/run-sim.js";
import { resolveScenario } from "../../../src/scenario/scenario.js";
import { scenarioFile } from "../../../src/scenario/schema.js";

function run(timeline: unknown[]) {
  const sc = resolveScenario(
    scenarioFile.parse({ name: "lag-fail", topology: "lag.yaml", duration: "3ms", timeline }),
    "docs/examples/lag-fail.yaml",
    null,
  );
  return runScenarioSim(sc, {}).report;
}

t.test("a member fails and recovers under an incast", async (t) => {
  const incast = (at: string, name: string) => ({
    at,
    start: { type: "incast", name, to: "h5", from: ["h1", "h2", "h3", "h4"], size: "2MB", qps: 4 },
  });
  const r = run([
    incast("50us", "before"),
    { at: "200us", link: { down: "leaf1:eth2" } },
    { at: "1ms", link: { up: "leaf1:eth2" } },
    incast("1200us", "after"),
  ]);
  t.equal(r.summary.flowsCompleted, r.summary.flowsTotal, "every flow completes across the failure");
  const port = (n: number, c: string) => r.devices.leaf1!.ports![`eth${n}`]![c] ?? 0;
  t.equal(port(2, "lag_member_active"), 1, "member 2 is active again at the end");
  // It joined in the bring-up, before time 0 (run/bring-up.ts), where a report does not count.
  t.equal(port(2, "lag_member_changes"), 2, "left and rejoined during the run");
  // The same run without the recovery: what member 2 carried before it failed.
  const never = run([
    incast("50us", "before"),
    { at: "200us", link: { down: "leaf1:eth2" } },
    incast("1200us", "after"),
  ]);
  t.equal(never.summary.flowsCompleted, never.summary.flowsTotal, "the other three members carry it all");
  const before = never.devices.leaf1!.ports!.eth2!.lag_member_frames ?? 0;
  t.ok(before > 0, "member 2 carried frames before it failed");
  t.ok(port(2, "lag_member_frames") > before, "and again after it recovered");
});
