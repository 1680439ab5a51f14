// Static routes in topology files: they go over the computed routes, are withdrawn with their link, and
// a route naming a port or host that does not exist is a configuration error.
import t from "tap";
import { hostAddress, planAddresses } from "../../src/scenario/address-plan.js";
import { ConfigError } from "../../src/scenario/config-error.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { resolveTopology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";

t.test("a static route replaces the computed one; its link going down withdraws it", (t) => {
  const topo = loadTopology("docs/examples/ring4-loop.yaml");
  const plan = planAddresses(topo);
  const h3 = hostAddress(plan, "h3").ip;
  const at = (sw: string, down = new Set<number>()) =>
    computeRoutes(topo, plan, down)
      .get(sw)!
      .find((r) => r.prefix === h3 && r.prefixLength === 32)!;
  // s3 has h3 attached on eth3, but the static route sends it to s4 over eth1.
  const s3 = at("s3");
  t.same(s3.nextHops, [{ port: 1, via: plan.ports.get("s3:1")!.peerIp }]);
  const s1 = at("s1");
  t.same(s1.nextHops, [{ port: 1, via: plan.ports.get("s1:1")!.peerIp }], "s1: only the clockwise hop");
  const ringLink = topo.links.find((l) => l.a.node === "s3" && l.a.port === 1)!.id;
  t.same(at("s3", new Set([ringLink])).nextHops, [{ port: 3, via: 0 }], "withdrawn: the attached route");
  t.end();
});

t.test("static routes naming a missing port or host are refused", (t) => {
  const file = {
    nodes: {
      s1: { kind: "switch" as const, routes: [{ to: "h9", via: "eth7" }] },
      h1: { kind: "host" as const },
    },
    links: [["h1:eth1", "s1:eth1"]] as [string, string][],
  };
  try {
    resolveTopology(file, "inline", null);
    t.fail("accepted");
  } catch (e) {
    t.ok(e instanceof ConfigError);
    const msg = (e as Error).message;
    t.match(msg, /s1 has no link on eth7/);
    t.match(msg, /"h9" is not a host/);
  }
  t.end();
});
