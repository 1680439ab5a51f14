// Live chaos (src/run/live-chaos.ts): one seeded short run of the chaos scenario in a live lab, with
// a spine's process SIGKILLed mid-run and restarted. The supervisor must report the death (status
// crashed, an event naming SIGKILL) and the restart; every message between surviving hosts completes; no
// lossless drop except at a failed link; `down` leaves nothing. Needs root; the lab is always taken down.
import t from "tap";
import { runLiveChaos } from "../../src/run/live-chaos.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "h4cx";
t.teardown(async () => {
  await rl(["down", "--name", LAB]);
});

t.test("seeded live chaos: flaps, settings changes and a killed spine during lossless traffic", async (t) => {
  await rl(["down", "--name", LAB]); // builds dist/ for the device processes, clears leftovers
  const r = await runLiveChaos(
    defaultTopology(),
    "default",
    { seed: 1, trafficNs: 500_000, flaps: 2, changes: 2, kills: 1, elephantBytes: 500_000 },
    { lab: LAB, dilation: 2000 },
  );
  t.equal(r.kills.length, 1, "one device killed");
  const k = r.kills[0]!;
  t.match(k.node, /^spine[12]$/, "a spine (the fabric stays connected)");
  t.equal(k.reported, "crashed", "the supervisor reports the death");
  t.match(k.event, /signal SIGKILL/, "and says it was SIGKILL");
  t.same(k.restarted, { status: "running", restarts: 1 }, "restarted");
  const s = r.report.summary;
  t.same(
    r.problems,
    [],
    `survived: messages ${s.flowsCompleted}/${s.flowsTotal}, lossless drops ${s.drops.lossless}, retransmissions ${s.retransmits}`,
  );
  t.same(r.leftovers, { namespaces: [], processes: [], stateDir: false }, "down left nothing");
});
