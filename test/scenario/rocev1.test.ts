// RoCEv1 in the simulator over leaf1's bridge domain (docs/examples/rocev1.yaml): an RC WRITE between two
// hosts of one leaf completes with every byte delivered, and a RoCEv1 WRITE to a host on another leaf
// never arrives.

import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";

type Report = ReturnType<typeof runScenarioSim>["report"];

function scenario(to: string, roce: "v1" | "v2" = "v1") {
  return resolveScenario(
    scenarioFile.parse({
      name: "rocev1",
      topology: "rocev1.yaml",
      duration: "300us",
      overrides: { hosts: { roce } },
      timeline: [{ at: "5us", start: { type: "flow", name: "w", from: "h1", to, size: "1MB" } }],
    }),
    "docs/examples/scenario.yaml",
    null,
  );
}

const counter = (r: Report, dev: string, name: string): number => r.devices[dev]!.counters[name] ?? 0;

t.test("a RoCEv1 RC WRITE between two hosts of one leaf completes across the bridge", async (t) => {
  const r = runScenarioSim(scenario("h2")).report;
  t.equal(r.summary.flowsCompleted, 1, "the WRITE completes");
  t.equal(r.summary.flowsTotal, 1);
  t.equal(counter(r, "h2", "payload_mismatch"), 0, "every byte as sent");
  t.equal(counter(r, "h2", "rx_write_requests"), 1, "h2's responder took one WRITE");
  t.ok(counter(r, "leaf1", "bridge_frames") > 250, "leaf1 bridged the frames (1 MB in 4 KB packets + ACKs)");
  t.ok(counter(r, "leaf1", "bridge_macs_learnt") >= 2, "it learnt h1's and h2's MACs");
  t.ok(counter(r, "leaf1", "bridge_flooded") > 0, "until h2 spoke, its MAC was unknown: flooded");
  t.equal(r.summary.retransmits ?? 0, 0, "nothing lost");
});

t.test("RoCEv1 cannot be routed: a WRITE to a host on another leaf never arrives", async (t) => {
  // h5 is behind leaf2. h1's NIC has no layer-2 peer h5, so it sends to its gateway's MAC (leaf1's port),
  // as an RDMA stack resolves an off-link destination. leaf1 gets a frame addressed to itself that is not
  // IPv4: there is no IP header, so nothing to route, and it stays on leaf1 (rx_not_for_us).
  const r = runScenarioSim(scenario("h5")).report;
  t.equal(r.summary.flowsCompleted, 0, "the WRITE never completes");
  t.ok(counter(r, "leaf1", "rx_not_for_us") > 0, "leaf1 could not route the RoCEv1 frames");
  t.equal(counter(r, "leaf2", "bridge_frames"), 0);
  t.equal(counter(r, "h5", "rx_write_requests"), 0, "h5 never saw the WRITE");
  t.equal(counter(r, "leaf1", "bridge_frames"), 0, "nothing was bridged either: h5 is not in the domain");
  // The same WRITE over RoCEv2 is routed through the spines and completes: the fabric itself is fine.
  const v2 = runScenarioSim(scenario("h5", "v2")).report;
  t.equal(v2.summary.flowsCompleted, 1, "RoCEv2 to h5 completes");
});
