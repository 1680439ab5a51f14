// Seeded chaos in the simulator (src/run/chaos.ts): link flaps and settings changes during mixed lossless
// traffic. A correct fabric drops lossless packets only at a failed link, completes every message, and
// ends with nothing queued, paused or buffered.
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { chaosScenario, judgeChaos, planKills, withKillSteps } from "../../src/run/chaos.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { rocelab } from "../helpers/cli.js";

for (const seed of [1, 2, 3]) {
  t.test(`chaos seed ${seed}: 3 flaps and 4 settings changes during mixed traffic`, async (t) => {
    const file = chaosScenario(defaultTopology(), "default", {
      seed,
      trafficNs: 1_000_000,
      flaps: 3,
      changes: 4,
      elephantBytes: 1_000_000,
    });
    t.equal(file.timeline.filter((s) => "link" in s).length, 6, "three links went down and came back");
    t.equal(file.timeline.filter((s) => "set" in s).length, 4, "four settings changes");
    const { report } = runScenarioSim(resolveScenario(file, "chaos.yaml", null), {});
    const v = judgeChaos(report);
    t.same(
      v.problems,
      [],
      `survived: ${v.flowsCompleted}/${v.flowsTotal} messages, ${v.losslessDrops} lossless drops, ${v.dropsAtFailedLinks} drops at failed links, ${v.retransmits} retransmissions`,
    );
    t.ok(v.dropsAtFailedLinks > 0, "the flaps hit traffic");
  });
}

for (const seed of [1, 2, 3]) {
  t.test(`chaos seed ${seed} with two spines killed and restarted in the simulator`, async (t) => {
    const topo = defaultTopology();
    const opts = { seed, trafficNs: 1_000_000, flaps: 3, changes: 4, elephantBytes: 1_000_000 };
    const plain = chaosScenario(topo, "default", opts);
    const plans = planKills(topo, { ...opts, kills: 2 });
    t.same(
      plans.map((p) => p.kind),
      ["switch", "switch"],
      "spines first",
    );
    const file = withKillSteps(plain, plans);
    t.equal(file.timeline!.filter((s) => "inject" in s && "kill" in s.inject).length, 2, "two kills");
    t.equal(file.timeline!.filter((s) => "inject" in s && "restart" in s.inject).length, 2, "two restarts");
    const killed = runScenarioSim(resolveScenario(file, "chaos.yaml", null), {});
    const v = judgeChaos(killed.report);
    t.same(
      v.problems,
      [],
      `survived: ${v.flowsCompleted}/${v.flowsTotal} messages, ${v.losslessDrops} lossless drops, ${v.retransmits} retransmissions`,
    );
    for (const p of plans) t.notOk(killed.fabric.sim.isDead(p.node), `${p.node} runs again at the end`);
    // A dead spine keeps its links up: what ECMP sends into it vanishes until the restart, and comes back
    // by retransmission.
    const baseline = judgeChaos(runScenarioSim(resolveScenario(plain, "chaos.yaml", null), {}).report);
    t.ok(
      v.retransmits > baseline.retransmits,
      `the kills cost retransmissions: ${v.retransmits} against ${baseline.retransmits} without them`,
    );
  });
}

t.test("the judge names what a broken fabric did", async (t) => {
  const report = {
    summary: { flowsCompleted: 3, flowsTotal: 4, drops: { lossless: 5, lossy: 0 }, retransmits: 0 },
    devices: {
      sw: {
        kind: "switch",
        counters: {
          dropped_lossless: 5,
          drop_link_down: 1,
          drop_headroom_exhausted: 4,
          buffer_shared_used_bytes: 9,
        },
        ports: { eth1: { pg3_xoff: 1 } },
      },
    },
  } as unknown as Report;
  const v = judgeChaos(report);
  t.equal(v.problems.length, 5);
  t.match(v.problems.join("\n"), /1 of 4 messages did not complete/);
  t.match(v.problems.join("\n"), /5 lossless drops, only 1 of them at a failed link/);
  t.match(v.problems.join("\n"), /pg3_xoff still asserted/);
});

t.test("a kill or restart step names a node of the topology", async (t) => {
  const file = {
    ...chaosScenario(defaultTopology(), "default", { seed: 1, trafficNs: 100_000, flaps: 0, changes: 0 }),
    timeline: [
      { at: 1000, inject: { kill: "spine9" } },
      { at: 2000, inject: { restart: "spine1" } },
    ],
  };
  t.throws(
    () => resolveScenario(file, "kills.yaml", null),
    /kills\.yaml: timeline\.0\.inject\.kill: no node spine9 in the topology/,
  );
});

t.test(
  "rocelab chaos --kills in the simulator says what it killed and whether the fabric survived",
  async (t) => {
    const run = ["chaos", "--seed", "1", "--flaps", "1", "--changes", "0", "--traffic", "300us"];
    const r = await rocelab([...run, "--kills", "2"]);
    t.equal(r.exitCode, 0, r.stderr);
    t.match(r.stdout, /2 device kills \(spine\d, spine\d\)/);
    t.match(r.stdout, /survived: no lossless drop except at a failed link/);
    const none = await rocelab(run);
    t.notMatch(none.stdout, /device kill/, "no --kills: none in the simulator");
  },
);
