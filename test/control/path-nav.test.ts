// Path navigation in virtual time on a 4-spine, 4-leaf, 16-host fabric: the LLDP tables match the
// wiring, the routes the controller rebuilds from them match the lab's, host mode's source ports put every
// QP's packets on its planned path, network mode's entries do the same, and both keep every flow going
// through a spine link failure (network mode by falling back to ECMP, then re-planning). Network mode runs
// without its write costs here (entries written at once, failover in the data plane): these tests are about
// where the planned paths go; the costs are test/switch/path-table.test.ts's and the experiment's.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { FabricGraph } from "../../src/control/path-nav/fabric-graph.js";
import { SimFabric } from "../../src/lab/sim/sim-fabric.js";
import { runScenarioSim, type SimRunResult } from "../../src/run/run-sim.js";
import { hostAddress, planAddresses, portKey } from "../../src/scenario/address-plan.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { SettingsLayers } from "../../src/scenario/settings-layers.js";
import { linkAt, NodeKind } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import type { LldpTable } from "../../src/switch/control/lldp.js";
import { ipToString } from "../../src/wire/bytes.js";
import { EtherType, ethType } from "../../src/wire/ethernet.js";
import { ipv4Dst, ipv4Protocol, ipv4Src } from "../../src/wire/ipv4.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOPO = resolve("docs/experiments/path-navigation/fabric-4x4.yaml");
const topo = loadTopology(TOPO);
const dir = tempDir("path-nav-");

function scenario(name: string, controller: string, extra = ""): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      `topology: ${TOPO}`,
      "seed: 3",
      "duration: 200us",
      "overrides: { switches: { pathTable: { installLatency: 0, failover: fallback } } }",
      controller,
      "timeline:",
      "  - at: 10us",
      "    start: { type: permutation, name: perm, hosts: all, size: 256KB }",
      extra,
    ].join("\n"),
  );
  return file;
}

/** Runs a scenario and records, per (src IP, dst IP, UDP source port), the switch ports its data left by. */
function runTapped(file: string): { r: SimRunResult; crossed: Map<string, Set<string>> } {
  const crossed = new Map<string, Set<string>>();
  const switches = new Set(topo.nodes.filter((n) => n.kind === NodeKind.Switch).map((n) => n.name));
  const r = runScenarioSim(loadScenario(file), {
    onFrame: (_t, from, _to, frame) => {
      if (!switches.has(from.device) || ethType(frame) !== EtherType.IPv4 || ipv4Protocol(frame, 14) !== 17)
        return;
      if (((frame[36]! << 8) | frame[37]!) !== 4791 || frame[42]! > 0x0a) return; // RC SEND/WRITE data only
      const key = `${ipv4Src(frame, 14)}>${ipv4Dst(frame, 14)}:${(frame[34]! << 8) | frame[35]!}`;
      const set = crossed.get(key) ?? new Set<string>();
      set.add(`${from.device}:eth${from.port}`);
      crossed.set(key, set);
    },
  });
  return { r, crossed };
}

function lldpTables(fabric: SimFabric): Map<string, LldpTable> {
  const out = new Map<string, LldpTable>();
  for (const [name, sw] of fabric.switches) out.set(name, sw.stats(fabric.sim.now).detail!.lldp!);
  return out;
}

t.test("LLDP neighbour tables match the wiring; routes rebuilt from them match the lab's", (t) => {
  const lldp = { switches: [{ lldp: { enabled: true } }], nodes: {}, hosts: [] };
  const fabric = new SimFabric(
    topo,
    () => ({ receive() {}, fire() {}, command: () => ({}), start() {}, stats: () => ({}) }) as never,
    {
      settings: new SettingsLayers(topo, lldp),
    },
  );
  fabric.sim.run(20_000);
  const plan = planAddresses(topo);
  const tables = lldpTables(fabric);
  let checked = 0;
  for (const node of topo.nodes.filter((n) => n.kind === NodeKind.Switch)) {
    const table = tables.get(node.name)!;
    for (const port of node.ports) {
      const peer = linkAt(topo, node.name, port)!.peer;
      const heard = table.neighbours.find((n) => n.port === port);
      if (topo.nodes.find((n) => n.name === peer.node)!.kind === NodeKind.Host) {
        t.equal(heard, undefined, `${node.name}:eth${port} (a host) hears no LLDP`);
        continue;
      }
      t.same(
        heard && [heard.systemName, heard.portId, heard.managementIp],
        [peer.node, `eth${peer.port}`, plan.ports.get(portKey(peer.node, peer.port))!.ip],
        `${node.name}:eth${port} hears ${peer.node}:eth${peer.port}`,
      );
      checked++;
    }
  }
  t.equal(checked, 32, "both ends of all 16 switch links");

  const graph = new FabricGraph(tables);
  const routes = computeRoutes(topo, plan);
  for (const h of topo.nodes.filter((n) => n.kind === NodeKind.Host)) {
    const ip = hostAddress(plan, h.name).ip;
    const at = graph.attachment(ip)!;
    for (const [sw, list] of routes) {
      const lab = list.find((r) => r.prefix === ip && r.prefixLength === 32)!;
      t.same(
        graph.nextHops(sw, at),
        [...lab.nextHops].sort((a, b) => a.port - b.port),
        `${sw} -> ${h.name} (${ipToString(ip)})`,
      );
    }
  }
  t.end();
});

for (const mode of ["host", "network"] as const) {
  t.test(`${mode} mode: every QP's data crosses exactly the switch ports of its planned path`, (t) => {
    const { r, crossed } = runTapped(scenario(`perm-${mode}`, `controller: { pathNavigation: ${mode} }`));
    const nav = r.pathNavigation!;
    t.equal(nav.plans.length, 1, "planned once, when the workload started");
    t.equal(nav.plans[0]!.maxLoad, 1, "link-disjoint: no fabric link carries two planned QPs");
    t.equal(nav.plans[0]!.unplanned, 0);
    const plan = planAddresses(topo);
    let onPlan = 0;
    for (const f of nav.flows) {
      const key = `${hostAddress(plan, f.src).ip}>${hostAddress(plan, f.dst).ip}:${f.udpSrcPort}`;
      const want = f.path.split(" > ").sort();
      if (JSON.stringify([...(crossed.get(key) ?? [])].sort()) === JSON.stringify(want)) onPlan++;
      else t.fail(`${f.src} -> ${f.dst}: crossed ${[...(crossed.get(key) ?? [])]} planned ${f.path}`);
    }
    t.equal(onPlan, 16, "16 of 16 QPs on their planned paths");
    t.equal(r.report.summary.flowsCompleted, 16);
    t.end();
  });
}

for (const mode of ["host", "network"] as const) {
  t.test(`${mode} mode through a spine link failure: re-planned without the link, every flow done`, (t) => {
    const { r } = runTapped(
      scenario(
        `fail-${mode}`,
        `controller: { pathNavigation: ${mode}, interval: 10us }`,
        "  - at: 40us\n    link: { down: leaf1:eth1 }",
      ),
    );
    const nav = r.pathNavigation!;
    t.equal(nav.plans.length, 2, "planned at the start and once after the failure");
    t.same(
      nav.plans.map((p) => [p.reason, p.links]),
      [
        ["workload", 16],
        ["topology", 15],
      ],
    );
    t.ok(nav.plans[1]!.atNs > 40_000 && nav.plans[1]!.atNs <= 50_000, "within one interval of the failure");
    t.notOk(
      nav.flows.some((f) => f.path.includes("leaf1:eth1 ") || f.path.includes("spine1:eth1 ")),
      "no planned path uses the failed link",
    );
    t.equal(r.report.summary.flowsCompleted, 16, "every flow completes");
    t.end();
  });
}

t.test("network mode: packets whose entry's next hop died fell back to ECMP (counted)", (t) => {
  const { r } = runTapped(
    scenario(
      "fallback",
      "controller: { pathNavigation: network, interval: 100us }",
      "  - at: 30us\n    link: { down: leaf1:eth1 }",
    ),
  );
  const fallbacks = Object.values(r.report.devices).reduce(
    (a, d) => a + (d.counters.path_table_fallbacks ?? 0),
    0,
  );
  const planned = r.pathNavigation!.plans[0]!;
  t.equal(planned.atNs, 10_000);
  t.ok(fallbacks > 0, `${fallbacks} packets fell back to ECMP before the controller re-planned at 100 µs`);
  t.equal(r.report.summary.flowsCompleted, 16);
  t.end();
});
