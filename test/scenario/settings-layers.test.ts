// The one owner of settings layers: the topology's layers lie under the lab's, a later layer wins for every
// key it names, and a change (a scenario `set` step, a preset, a configure request) changes only what it
// names, only where it names it. Host layers merge the same way, and a NIC is told about DCQCN only when
// a change touches it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import {
  hostChange,
  NO_CHANGE,
  resolveTunables,
  SettingsLayers,
  switchChange,
} from "../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";

t.test("switch layers: later ones win per key, a change touches only what and where it names", (t) => {
  const topo = defaultTopology();
  const layers = new SettingsLayers(topo);
  t.same(layers.switches, ["spine1", "spine2", "leaf1", "leaf2"], "the switches, in topology order");
  const base = layers.switchTunables("leaf1");
  t.same(base, resolveTunables(topo, "leaf1"), "no lab layer: what the topology says");

  layers.push(switchChange({ buffer: { reserve: 1000 }, pfc: { resumeOffset: 7000 } }));
  layers.push(switchChange({ buffer: { reserve: 2000 } }));
  const all = layers.switchTunables("leaf1");
  t.equal(all.buffer.reserve, 2000, "the later layer wins the key both name");
  t.equal(all.pfc.resumeOffset, 7000, "the earlier layer keeps the key only it names");
  t.equal(all.buffer.size, base.buffer.size, "keys no layer names keep their value");

  // A `set` step for leaf2 only.
  layers.push({ ...NO_CHANGE, nodes: { leaf2: [{ pfc: { xoff: 123_456 } }] } });
  t.equal(layers.switchTunables("leaf2").pfc.xoff, 123_456, "the named switch");
  t.same(layers.switchTunables("leaf1"), all, "the other switches are untouched");
  t.equal(layers.switchTunables("leaf2").buffer.reserve, 2000, "the named switch keeps the rest");
  t.same(
    layers.switchLayers("leaf2"),
    [
      { buffer: { reserve: 1000 }, pfc: { resumeOffset: 7000 } },
      { buffer: { reserve: 2000 } },
      { pfc: { xoff: 123_456 } },
    ],
    "the lab layers of a switch, bottom first",
  );

  // A preset: the profile goes down first, the keys it does not name stay, a later layer beats it.
  layers.push(switchChange({ profile: "aggressive" }, ["leaf1"]));
  const preset = layers.switchTunables("leaf1");
  t.same(preset.ecn.queues[3], { kmin: 50_000, kmax: 200_000, pmax: 1 }, "the profile's ECN");
  t.equal(preset.pfc.xoff, 100_000, "the profile's XOFF");
  t.equal(preset.buffer.reserve, 2000, "earlier keys the profile does not name stay");
  t.equal(preset.pfc.resumeOffset, 17_000, "the profile wins over an earlier layer");
  layers.push(switchChange({ ecn: { queues: { "3": { kmin: 60_000, kmax: 300_000, pmax: 0.5 } } } }));
  t.same(
    layers.switchTunables("leaf1").ecn.queues[3],
    { kmin: 60_000, kmax: 300_000, pmax: 0.5 },
    "a layer after the profile wins",
  );
  t.throws(() => layers.switchLayers("h1"), /no switch h1/, "hosts have no switch layers");
  t.end();
});

t.test("the topology's layers lie under the lab's", (t) => {
  const file = join(t.testdir({}), "layers.yaml");
  writeFileSync(
    file,
    [
      "defaults: { switch: { profile: balanced, buffer: { reserve: 3000 } } }",
      "nodes:",
      "  s1: { kind: switch, buffer: { headroom: 50KB } }",
      "  a: { kind: host }",
      "links: [['a:eth1', 's1:eth1']]",
      "",
    ].join("\n"),
  );
  const layers = new SettingsLayers(
    loadTopology(file),
    switchChange({ buffer: { headroom: 60_000 } }),
    switchChange({ buffer: { reserve: 4000 } }, ["s1"]),
  );
  const s1 = layers.switchTunables("s1");
  t.equal(s1.buffer.headroom, 60_000, "a base lab layer over the node's own settings");
  t.equal(s1.buffer.reserve, 4000, "a per-node lab layer over the topology defaults");
  t.equal(s1.pfc.xoff, 3_000_000, "the topology's profile still underneath");
  t.end();
});

t.test(
  "host layers: sections merge key by key, the NIC is told about DCQCN only when a change touches it",
  (t) => {
    const layers = new SettingsLayers(
      defaultTopology(),
      hostChange({ transport: { rto: 1000, ackReqEvery: 4 }, dcqcn: { profile: "paper" } }),
    );
    layers.push(hostChange({ qos: { ackDscp: 10 } }));
    layers.push(hostChange({ transport: { rto: 2000 } }));
    t.same(
      layers.hostSettings(),
      { transport: { rto: 2000, ackReqEvery: 4 }, dcqcn: { profile: "paper" }, qos: { ackDscp: 10 } },
      "merged section by section, later keys win",
    );
    const rtoOnly = layers.hostConfigure([{ transport: { rto: 2000 } }]);
    t.same(
      rtoOnly,
      { type: "configure", settings: { transport: { rto: 2000, ackReqEvery: 4 }, qos: { ackDscp: 10 } } },
      "an RTO change leaves DCQCN alone",
    );
    t.notOk("dcqcn" in rtoOnly.settings, "no DCQCN key at all (it would restart every reaction point)");
    layers.push(hostChange({ dcqcn: { g: 1 / 128 } }));
    const dcqcn = layers.hostConfigure([{ dcqcn: { g: 1 / 128 } }]);
    t.same(dcqcn.settings.dcqcn, { profile: "paper", g: 1 / 128 }, "a DCQCN change sends the DCQCN section");
    t.equal(dcqcn.settings.cc, null, "and the algorithm (its defaults), so the NIC restarts both");
    t.same(dcqcn.settings.transport, { rto: 2000, ackReqEvery: 4 }, "and the merged rest");
    t.same(layers.switchTunables("leaf1"), resolveTunables(defaultTopology(), "leaf1"), "switches untouched");
    t.end();
  },
);
