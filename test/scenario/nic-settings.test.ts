// Host settings reach the NICs: DCQCN profiles, and PFC from a NIC whose host cannot keep up.
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";

function scenario(hosts: Record<string, unknown>) {
  const parsed = scenarioFile.parse({
    name: "nic-settings",
    duration: "500us",
    overrides: { hosts },
    timeline: [{ at: "5us", start: { type: "flow", from: "h1", to: "h5", size: "2MB" } }],
  });
  return resolveScenario(parsed, "nic-settings.yaml", null);
}

t.test(
  "a NIC whose host ingests at half the line rate pauses its leaf with PFC, and nothing is lost",
  (t) => {
    const { report } = runScenarioSim(
      scenario({ cc: "none", rxBuffer: { hostIngestRate: "50G", xoff: "64KB", xon: "32KB" } }),
    );
    const h5 = report.devices.h5!.ports.eth1!;
    t.ok(h5.tx_prio3_pause! > 0, `h5 sent PFC XOFF (${h5.tx_prio3_pause})`);
    t.ok(report.devices.leaf2!.ports.eth3!.rx_prio3_pause! > 0, "leaf2 received it on the port towards h5");
    t.equal(report.summary.flowsCompleted, 1);
    t.equal(report.summary.drops.lossless, 0);
    t.ok(
      report.flows[0]!.fctNs! > ((2_000_000 * 8) / 50e9) * 1e9 * 0.95,
      `the flow ran at the host's pace (${report.flows[0]!.fctNs} ns)`,
    );
    t.end();
  },
);

t.test("without the receive buffer setting the same flow runs at line rate", (t) => {
  const { report } = runScenarioSim(scenario({ cc: "none" }));
  t.equal(report.devices.h5!.ports.eth1!.tx_prio3_pause, 0);
  t.ok(
    report.flows[0]!.fctNs! < ((2_000_000 * 8) / 50e9) * 1e9 * 0.7,
    `line rate (${report.flows[0]!.fctNs} ns)`,
  );
  t.end();
});
