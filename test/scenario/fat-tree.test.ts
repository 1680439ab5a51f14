import t from "tap";
import { planAddresses } from "../../src/scenario/address-plan.js";
import { fatTreeTopology } from "../../src/scenario/fat-tree.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { topologyFile } from "../../src/scenario/schema.js";
import { hosts, resolveTopology, switches } from "../../src/scenario/topology.js";

t.test("a k-ary fat tree: k³/4 hosts, 5k²/4 switches of k ports, k/2 equal-cost paths up", (t) => {
  for (const k of [4, 8]) {
    const topo = resolveTopology(topologyFile.parse(fatTreeTopology({ k })), "generated", null);
    t.equal(hosts(topo).length, k ** 3 / 4, `k=${k}: hosts`);
    t.equal(switches(topo).length, (5 * k * k) / 4, `k=${k}: switches`);
    t.ok(
      switches(topo).every(
        (s) => s.ports.length === k && s.ports.join() === [...Array(k).keys()].map((i) => i + 1).join(),
      ),
      `k=${k}: every switch uses ports 1..k`,
    );
    t.equal(topo.links.length, (3 * k ** 3) / 4, `k=${k}: k³/4 links per layer, three layers`);
    const routes = computeRoutes(topo, planAddresses(topo));
    // From an edge switch to a host in another pod: up through any of the k/2 aggregation switches.
    const edge = routes.get("p1e1")!;
    const farHost = edge.find((r) => r.nextHops.length > 1)!;
    t.equal(farHost.nextHops.length, k / 2, `k=${k}: an edge switch spreads over k/2 uplinks`);
    const agg = routes.get("p1a1")!;
    t.ok(
      agg.some((r) => r.nextHops.length === k / 2),
      `k=${k}: an aggregation switch spreads over k/2 cores`,
    );
  }
  t.throws(() => fatTreeTopology({ k: 5 }), /even/);
  t.end();
});
