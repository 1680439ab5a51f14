// The clear-counters lab action in the simulated lab: counters of the named devices go back to zero,
// gauges keep their level, other devices keep counting; a device that is not there is refused by name.
import t from "tap";
import { readCounter } from "../../../src/device/counters.js";
import { PortCounter } from "../../../src/device/l2/port-counters.js";
import { SimLab } from "../../../src/lab/sim/sim-lab.js";
import { NicCounter } from "../../../src/nic/counters.js";
import { defaultTopology } from "../../../src/scenario/topology.js";
import { SwitchCounter } from "../../../src/switch/counter-defs.js";

const txBytes = (lab: SimLab, node: string): number =>
  readCounter(lab.snapshotNow().stats[node]!.ports[0]!.counters, PortCounter.txBytes);

t.test("clear-counters zeroes the named devices' counters only", async (t) => {
  const lab = new SimLab({ topology: defaultTopology(), seed: 3 });
  await lab.apply({ kind: "incast", to: "h5", from: 4, bytes: 2_000_000 });
  lab.step(100_000);
  t.ok(txBytes(lab, "h1") > 100_000, "h1 sent");
  t.ok(txBytes(lab, "leaf1") > 0, "leaf1 forwarded");
  const sharedBefore = readCounter(lab.snapshotNow().stats.leaf2!.counters, SwitchCounter.bufferSharedUsed);

  await lab.apply({ kind: "clear-counters", nodes: ["h1", "leaf2"] });
  const snap = lab.snapshotNow();
  t.equal(txBytes(lab, "h1"), 0, "h1's port counters cleared");
  t.equal(readCounter(snap.stats.h1!.counters, NicCounter.postsLate), 0);
  t.ok(txBytes(lab, "leaf1") > 0, "leaf1 was not named: it keeps its counts");
  t.equal(
    readCounter(snap.stats.leaf2!.counters, SwitchCounter.bufferSharedUsed),
    sharedBefore,
    "a gauge (the shared buffer in use) keeps its level",
  );

  lab.step(100_000);
  t.ok(txBytes(lab, "h1") > 0, "and counts again from zero");
  await t.rejects(lab.apply({ kind: "clear-counters", nodes: ["h99"] }), /no device h99 in this lab/);

  await lab.apply({ kind: "device", node: "spine1", running: false });
  await lab.apply({ kind: "clear-counters", nodes: "all" });
  t.equal(txBytes(lab, "leaf1"), 0, "all: every running device, a killed one skipped");
  await t.rejects(lab.apply({ kind: "clear-counters", nodes: ["spine1"] }), /spine1 is not running/);
  await lab.close();
  t.end();
});
