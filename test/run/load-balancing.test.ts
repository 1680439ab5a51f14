// Load-balancing schemes end to end in virtual time, on the four-spine example fabric (8 hosts, four paths
// between the leaves): spray with NIC reordering delivers every byte with zero retransmissions, spray
// without it pays go-back-N, and the report's load-balance figure tells an even fabric from a skewed one.
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { type ScenarioFile, scenarioFile } from "../../src/scenario/schema.js";

/** h1-h4 (leaf1) each write 1 MB to h5-h8 (leaf2), with the given overrides. */
function run(overrides: ScenarioFile["overrides"]): Report {
  const parsed = scenarioFile.parse({
    name: "lb",
    topology: "../../docs/examples/four-spines.yaml",
    duration: "3ms",
    sample: "20us",
    ...(overrides ? { overrides } : {}),
    timeline: [1, 2, 3, 4].map((i) => ({
      at: "10us",
      start: { type: "flow", name: `f${i}`, from: `h${i}`, to: `h${i + 4}`, size: "1MB" },
    })),
  });
  return runScenarioSim(resolveScenario(parsed, "test/lab/lb.yaml", null)).report;
}

const nicCounter = (r: Report, name: string): number =>
  Object.values(r.devices).reduce((a, d) => a + (d.kind === "nic" ? (d.counters[name] ?? 0) : 0), 0);

t.test("spray with NIC reordering: every byte delivered, zero retransmissions, an even fabric", (t) => {
  const r = run({ switches: { lb: { mode: "dlb-spray" } }, hosts: { reorder: { window: 256 } } });
  t.equal(r.summary.flowsCompleted, 4);
  t.equal(r.summary.retransmits, 0, "no retransmission");
  t.equal(nicCounter(r, "naks_sent"), 0, "no NAK");
  t.ok(nicCounter(r, "ooo_placed_packets") > 0, "packets did arrive out of order and were placed");
  t.equal(nicCounter(r, "rx_write_requests"), 4, "each message delivered once");
  t.ok(r.loadBalance!.figure < 1.2, `load-balance figure ${r.loadBalance!.figure.toFixed(2)}`);
  const spray = r;
  const gbn = run({ switches: { lb: { mode: "dlb-spray" } } });
  t.ok(gbn.summary.retransmits > 0, `without reordering go-back-N resends (${gbn.summary.retransmits})`);
  const jct = (x: Report) => Math.max(...x.flows.map((f) => f.endNs ?? Infinity));
  t.ok(jct(spray) < jct(gbn), "and finishes later");
  t.end();
});

t.test("the report's per-link loads: each direction's bytes are what the sending port sent", (t) => {
  const r = run({ switches: { ecmp: { fields: ["dstIp"] } } });
  const up = r.links!.filter((l) => l.fabric && l.from.startsWith("leaf1:"));
  t.equal(up.length, 4, "four uplinks of leaf1");
  for (const l of up) t.equal(l.bytes, r.devices.leaf1!.ports[l.from.slice(6)]!.tx_bytes);
  const used = up.filter((l) => l.bytes > 100_000);
  t.ok(used.length < 4, `destination-only hashing leaves uplinks idle (${used.length} used)`);
  t.ok(r.loadBalance!.figure > 1.2, `skewed: figure ${r.loadBalance!.figure.toFixed(2)}`);
  t.end();
});
