// Seeded chaos in the simulator (src/lab/chaos.ts): link flaps and settings changes during mixed lossless
// traffic. A correct fabric drops lossless packets only at a failed link, completes every message, and
// ends with nothing queued, paused or buffered.
import t from "tap";
import { chaosScenario, judgeChaos } from "../../src/lab/chaos.js";
import type { Report } from "../../src/lab/report/report.js";
import { runScenarioSim } from "../../src/lab/run-sim.js";
import { resolveScenario } from "../../src/lab/scenario.js";
import { defaultTopology } from "../../src/lab/topology.js";

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
