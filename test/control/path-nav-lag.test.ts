// Path navigation over a link aggregation group: LLDP runs per member link, but routing sees the group as
// one next hop (docs/link-aggregation.md), so the controller's graph must too — one hop named by the
// group's lowest member, the switch picking an active member. Fabric: 2 spines, 2 leaves, leaf1 joined to
// spine1 by a 2-member static group; the graph's next hops must equal the lab's routes everywhere, with
// the group whole and with a member down, and a navigated permutation must finish every flow.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { FabricGraph, type LagView } from "../../src/control/path-nav/fabric-graph.js";
import { SimFabric } from "../../src/lab/sim/sim-fabric.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { hostAddress, planAddresses } from "../../src/scenario/address-plan.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { SettingsLayers } from "../../src/scenario/settings-layers.js";
import { linkAt, NodeKind } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import type { LldpTable } from "../../src/switch/control/lldp.js";
import { tempDir } from "../helpers/temp-dir.js";

const dir = tempDir("path-nav-lag-");
const TOPO = join(dir, "lag-fabric.yaml");
writeFileSync(
  TOPO,
  `name: lag-fabric
defaults: { link: { rate: 100G, delay: 1us } }
nodes:
  spine1: { kind: switch }
  spine2: { kind: switch }
  leaf1: { kind: switch }
  leaf2: { kind: switch }
  h1: { kind: host }
  h2: { kind: host }
  h3: { kind: host }
  h4: { kind: host }
links:
  - [leaf1:eth1, spine1:eth1]
  - [leaf1:eth2, spine1:eth2]
  - [leaf1:eth3, spine2:eth1]
  - [leaf2:eth1, spine1:eth3]
  - [leaf2:eth2, spine2:eth2]
  - [h1:eth1, leaf1:eth4]
  - [h2:eth1, leaf1:eth5]
  - [h3:eth1, leaf2:eth3]
  - [h4:eth1, leaf2:eth4]
lags:
  - { name: po1, members: [leaf1:eth1, leaf1:eth2] }
`,
);
const topo = loadTopology(TOPO);

function views(fabric: SimFabric) {
  const tables = new Map<string, LldpTable>();
  const lags = new Map<string, readonly LagView[]>();
  for (const [name, sw] of fabric.switches) {
    const d = sw.stats(fabric.sim.now).detail!;
    tables.set(name, d.lldp!);
    if (d.lag !== undefined) lags.set(name, d.lag);
  }
  return { tables, lags };
}

t.test("the controller's graph sees the group as one hop, as routing does", (t) => {
  const lldp = { switches: [{ lldp: { enabled: true } }], nodes: {}, hosts: [] };
  const fabric = new SimFabric(
    topo,
    () => ({ receive() {}, fire() {}, command: () => ({}), start() {}, stats: () => ({}) }) as never,
    { settings: new SettingsLayers(topo, lldp) },
  );
  fabric.sim.run(20_000);
  const plan = planAddresses(topo);
  const check = (down: Set<number>, what: string) => {
    const { tables, lags } = views(fabric);
    const graph = new FabricGraph(tables, lags);
    t.equal(graph.linkCount, 4, `${what}: 4 switch links, the group one of them`);
    const toSpine1 = graph.adjacency.get("leaf1")!.filter((a) => a.peer === "spine1");
    t.equal(toSpine1.length, 1, `${what}: one adjacency leaf1 → spine1`);
    const routes = computeRoutes(topo, plan, down);
    for (const h of topo.nodes.filter((n) => n.kind === NodeKind.Host)) {
      const ip = hostAddress(plan, h.name).ip;
      const at = graph.attachment(ip)!;
      t.ok(at, `${what}: ${h.name} is found`);
      for (const [sw, list] of routes) {
        const lab = list.find((r) => r.prefix === ip && r.prefixLength === 32)!;
        t.same(
          graph.nextHops(sw, at),
          [...lab.nextHops].sort((a, b) => a.port - b.port),
          `${what}: ${sw} -> ${h.name}`,
        );
      }
    }
    const h1 = graph.attachment(hostAddress(plan, "h1").ip)!;
    const h3 = graph.attachment(hostAddress(plan, "h3").ip)!;
    t.equal(graph.paths(h1, h3).length, 2, `${what}: h1 → h3 over spine1 (the group) or spine2`);
    return toSpine1[0]!;
  };
  const whole = check(new Set(), "whole");
  t.same(whole.lag, { name: "po1", members: [1, 2] }, "named by its lowest member, both members listed");
  const flat = new FabricGraph(views(fabric).tables);
  const ends = ["h1", "h3"].map((h) => flat.attachment(hostAddress(plan, h).ip)!);
  t.equal(flat.paths(ends[0]!, ends[1]!).length, 3, "without the groups the members look like two paths");

  const first = linkAt(topo, "leaf1", 1)!.link.id;
  fabric.setLinkUp(first, false);
  fabric.sim.run(fabric.sim.now + 20_000);
  const one = check(new Set([first]), "eth1 down");
  t.same(one.lag, { name: "po1", members: [2] }, "eth2 alone carries the group");
  t.equal(one.port, 1, "still named by its lowest member, as routing names it");
  t.end();
});

t.test("a navigated permutation over the group finishes every flow (network and host mode)", (t) => {
  for (const mode of ["network", "host"]) {
    const file = join(dir, `perm-${mode}.yaml`);
    writeFileSync(
      file,
      [
        `name: perm-${mode}`,
        `topology: ${TOPO}`,
        "seed: 3",
        "duration: 300us",
        "overrides: { switches: { pathTable: { installLatency: 0 } } }",
        `controller: { pathNavigation: ${mode}, interval: 20us }`,
        "timeline:",
        "  - at: 10us",
        "    start: { type: permutation, name: perm, hosts: all, size: 256KB }",
      ].join("\n"),
    );
    const r = runScenarioSim(loadScenario(file)).report;
    t.equal(r.summary.flowsCompleted, r.summary.flowsTotal, `${mode}: every flow completes`);
    t.ok(
      (r.devices.leaf1!.ports!.eth1!.lag_member_frames ?? 0) +
        (r.devices.leaf1!.ports!.eth2!.lag_member_frames ?? 0) >
        0,
      `${mode}: the group carried packets`,
    );
  }
  t.end();
});
