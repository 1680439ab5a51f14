// The switch issue's lossless promise, in virtual time: 16-to-1 incast with PFC holds without a single
// lossless drop and pushes back hop by hop; without PFC, or with headroom below the link's BDP, it drops.
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario, type Scenario } from "../../src/scenario/scenario.js";

function run(sc: Scenario): { report: Report } {
  return { report: runScenarioSim(sc).report };
}

function portCounter(r: Report, device: string, port: string, name: string): number {
  return r.devices[device]!.ports[port]![name] as number;
}

t.test("incast-pfc: zero lossless drops, and pause propagates leaf3 -> spines -> leaves -> senders", (t) => {
  const sc = loadScenario("docs/experiments/incast-pfc.yaml");
  const firstXoff = new Map<string, number>();
  const { report } = runScenarioSim(sc, {
    onEvent: (e) => {
      if (e.kind === "pfc-xoff" && !firstXoff.has(e.device)) firstXoff.set(e.device, e.t);
    },
  });
  const s = report.summary;
  t.equal(s.drops.lossless, 0, "no lossless drops");
  t.equal(s.retransmits, 0, "nothing to retransmit");
  t.equal(s.flowsCompleted, 16, "all 16 flows completed");
  t.ok(s.pauseFramesTx > 0, `pause frames were sent (${s.pauseFramesTx})`);
  // Hop by hop: the bottleneck leaf pauses first, then the spines, then the senders' leaves.
  const leaf3 = firstXoff.get("leaf3");
  const spines = Math.min(firstXoff.get("spine1") ?? Infinity, firstXoff.get("spine2") ?? Infinity);
  const leaves = Math.min(firstXoff.get("leaf1") ?? Infinity, firstXoff.get("leaf2") ?? Infinity);
  t.ok(
    leaf3 !== undefined && leaf3 < spines && spines < leaves && leaves < Infinity,
    `first XOFF: leaf3 ${leaf3} ns, spines ${spines} ns, sending leaves ${leaves} ns`,
  );
  // The senders' NICs were paused: the lossless promise reached the edge.
  let pausedHosts = 0;
  for (let h = 1; h <= 16; h++) if (portCounter(report, `h${h}`, "eth1", "rx_prio3_pause") > 0) pausedHosts++;
  t.equal(pausedHosts, 16, "every sender received PFC pause frames");
  t.equal(portCounter(report, "h17", "eth1", "rx_prio3_pause"), 0, "the receiver was never paused");
  t.end();
});

t.test("incast-no-pfc: the lossless class drops without PFC, and go-back-N recovers", (t) => {
  const { report } = run(loadScenario("docs/experiments/incast-no-pfc.yaml"));
  const s = report.summary;
  t.equal(s.pauseFramesTx, 0, "no PFC frames");
  t.ok(s.drops.lossless > 0, `lossless-class drops (${s.drops.lossless})`);
  t.ok(s.retransmits > 0, `retransmissions (${s.retransmits})`);
  const egressLimit = Object.values(report.devices).reduce(
    (a, d) => a + (d.counters.drop_egress_limit ?? 0),
    0,
  );
  t.equal(egressLimit, s.drops.lossless, "every drop is a congested queue reaching its dynamic threshold");
  t.end();
});

t.test("PFC on but headroom below the link's BDP: lossless drops appear", (t) => {
  const base = loadScenario("docs/experiments/incast-pfc.yaml");
  // 100 Gb/s host links and 400 Gb/s fabric links at 1 µs: the round trip alone is 25 KB / 100 KB.
  const sc: Scenario = {
    ...base,
    overrides: { ...base.overrides, switches: [{ buffer: { headroom: 8000 } }] },
  };
  const { report } = run(sc);
  t.ok(report.summary.pauseFramesTx > 0, "PFC is on and pausing");
  t.ok(
    report.summary.drops.lossless > 0,
    `lossless drops with 8 KB headroom (${report.summary.drops.lossless})`,
  );
  const reasons = Object.values(report.devices).reduce(
    (a, d) => a + (d.counters.drop_headroom_exhausted ?? 0),
    0,
  );
  t.equal(reasons, report.summary.drops.lossless, "every drop is a headroom overflow");
  t.end();
});
