// PFC deadlock in virtual time (issue 14): a static routing loop s1→s2→s3→s4→s1 (docs/examples/
// ring4-loop.yaml) fills the lossless queues of the ring, every switch pauses the one before it, and without
// a watchdog the cycle never lets go — nothing moves on the ring, the victim flow included.
import t from "tap";
import { runScenarioSim } from "../../src/lab/run-sim.js";
import { loadScenario } from "../../src/lab/scenario.js";
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
