// PFC deadlock in virtual time (issue 14): a static routing loop s1→s2→s3→s4→s1 (docs/examples/
// ring4-loop.yaml) fills the lossless queues of the ring, every switch pauses the one before it, and without
// a watchdog the cycle never lets go — nothing moves on the ring, the victim flow included. With the
// watchdog the deadlock is detected and broken; a PFC storm from a broken NIC is contained to its port.
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import type { SimEvent } from "../../src/runtime/sim/simulator.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import type { Switch } from "../../src/switch/switch.js";

const RING = ["s1", "s2", "s3", "s4"] as const;

function portStats(sw: Switch, name: string, now: number) {
  return sw.stats(now).ports.find((p) => p.name === name)!;
}

function queue3(sw: Switch, name: string, now: number) {
  return portStats(sw, name, now).queues![3]!;
}

t.test("static routes loop: the ring deadlocks without the watchdog", (t) => {
  const sc = loadScenario("docs/experiments/pfc-deadlock/loop-no-watchdog.yaml");
  const { fabric, report } = runScenarioSim(sc);
  const sim = fabric.sim;
  const before = RING.map((n) => queue3(fabric.switches.get(n)!, "eth1", sim.now).counters.tx_packets);
  sim.run(sim.now + 2_000_000);
  const now = sim.now;
  for (const [i, n] of RING.entries()) {
    const sw = fabric.switches.get(n)!;
    const q = queue3(sw, "eth1", now);
    t.ok(q.counters.packets! > 0, `${n} eth1 queue 3 holds packets (${q.counters.packets})`);
    t.ok(q.paused, `${n} eth1 queue 3 is paused by the next switch`);
    t.equal(q.counters.tx_packets, before[i], `${n} eth1 sent nothing in the last 2 ms`);
    t.equal(portStats(sw, "eth2", now).counters.pg3_xoff, 1, `${n} holds the previous switch in XOFF`);
  }
  t.equal(report.summary.flowsCompleted, 0, "neither the looped nor the victim flow completes");
  t.equal(report.summary.drops.lossless, 0, "and nothing is dropped: the packets are stuck, not lost");
  t.end();
});

function stormEvents(events: readonly SimEvent[]) {
  return events.filter((e) => e.kind === "pfc-storm" || e.kind === "pfc-storm-restored");
}

for (const action of ["drop", "forward"] as const) {
  t.test(
    `the watchdog (${action}) detects the deadlock within detection + poll and the victim finishes`,
    (t) => {
      const sc = loadScenario(`docs/experiments/pfc-deadlock/loop-watchdog-${action}.yaml`);
      const events: SimEvent[] = [];
      // When each ring switch's egress (eth1) was first paused: the cycle is closed at the last of them.
      const pausedAt = new Map<string, number>();
      const { fabric, report } = runScenarioSim(sc, {
        onEvent: (e) => {
          if (e.kind === "pfc-storm" || e.kind === "pfc-storm-restored") events.push(e);
          if (e.kind === "paused-on" && e.port === 1 && !pausedAt.has(e.device)) pausedAt.set(e.device, e.t);
        },
      });
      const closed = Math.max(...RING.map((n) => pausedAt.get(n)!));
      const storms = stormEvents(events).filter((e) => e.kind === "pfc-storm");
      t.same(
        [...new Set(storms.map((e) => e.device))].sort(),
        [...RING],
        "every ring switch detected a storm",
      );
      t.ok(
        storms.every((e) => e.port === 1 && e.priority === 3 && e.detail === action),
        "on its ring egress port, priority 3, with the configured action",
      );
      // sonic-mgmt's bound: detected no sooner than detection time and within detection time + poll
      // interval of the queue becoming stuck (here: the cycle of pauses closing).
      const latency = Math.min(...storms.map((e) => e.t)) - closed;
      t.ok(latency >= 400_000 && latency <= 500_000, `detected ${latency} ns after the cycle closed`);
      t.ok(
        events.some((e) => e.kind === "pfc-storm-restored"),
        "PFC was restored afterwards",
      );
      const victim = report.flows.find((f) => f.workload === "victim")!;
      t.ok(
        victim.fctNs !== null && victim.fctNs !== undefined,
        `the victim flow completed (${victim.fctNs} ns)`,
      );
      let counted = 0;
      for (const n of RING) {
        const c = portStats(fabric.switches.get(n)!, "eth1", fabric.sim.now).counters;
        counted += action === "drop" ? c.pfcwd_prio3_tx_drop! : c.pfcwd_prio3_tx_ok!;
      }
      t.ok(counted > 0, `packets ${action === "drop" ? "dropped" : "forwarded"} during recovery: ${counted}`);
      t.end();
    },
  );
}

t.test("a PFC storm from one NIC: held for good without the watchdog, contained with it", (t) => {
  const none = runScenarioSim(loadScenario("docs/experiments/pfc-deadlock/storm-no-watchdog.yaml"));
  const leaf2 = none.fabric.switches.get("leaf2")!;
  t.equal(none.report.summary.flowsCompleted, 0, "without the watchdog nothing completes, even h2 → h6");
  t.ok(portStats(leaf2, "eth3", none.fabric.sim.now).counters.rx_prio3_pause! > 5, "h5 kept pausing");

  const events: SimEvent[] = [];
  const sc = loadScenario("docs/experiments/pfc-deadlock/storm-watchdog.yaml");
  const wd = runScenarioSim(sc, { onEvent: (e) => events.push(e) });
  const storms = stormEvents(events);
  t.same(
    storms.map((e) => [e.kind, e.device, e.port, e.priority]),
    [
      ["pfc-storm", "leaf2", 3, 3],
      ["pfc-storm-restored", "leaf2", 3, 3],
    ],
    "one storm, on leaf2:eth3 priority 3 only, and its restoration",
  );
  const [storm, restored] = storms;
  t.ok(
    storm!.t - 100_000 >= 400_000 && storm!.t - 100_000 <= 500_000,
    `detected ${storm!.t - 100_000} ns in`,
  );
  t.ok(restored!.t - 2_000_000 >= 400_000 && restored!.t - 2_000_000 <= 500_000, "restored after the storm");
  const neighbour = wd.report.flows.find((f) => f.workload === "neighbour")!;
  t.ok(neighbour.fctNs !== null && neighbour.fctNs !== undefined, "h2 → h6 completed");
  const w = portStats(wd.fabric.switches.get("leaf2")!, "eth3", wd.fabric.sim.now).counters;
  t.ok(w.pfcwd_prio3_tx_drop! > 0, `the stormed queue's packets were dropped (${w.pfcwd_prio3_tx_drop})`);
  t.end();
});

t.test("with port-group prevention the loop never deadlocks and the victim keeps moving", (t) => {
  const sc = loadScenario("docs/experiments/pfc-deadlock/loop-prevention.yaml");
  const { fabric, report } = runScenarioSim(sc);
  const victim = report.flows.find((f) => f.workload === "victim")!;
  t.ok(victim.fctNs !== null && victim.fctNs !== undefined, `the victim completed (${victim.fctNs} ns)`);
  t.equal(report.summary.drops.lossless, 0, "no lossless drops");
  const sim = fabric.sim;
  for (const n of RING) {
    const q = portStats(fabric.switches.get(n)!, "eth1", sim.now).queues!;
    t.notOk(q[3]!.paused || q[4]!.paused, `${n} eth1: no lossless queue left paused`);
  }
  const s3 = portStats(fabric.switches.get("s3")!, "eth1", sim.now).queues!;
  t.ok(s3[4]!.counters.deadlock_remapped! > 0, "s3 remapped bounced packets into queue 4");
  t.ok(s3[1]!.counters.deadlock_remapped! > 0, "and twice-bounced ones into lossy queue 1");
  t.end();
});
