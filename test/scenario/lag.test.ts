// Link aggregation groups in topologies (scenario/lag.ts): what a group may join, with messages that name
// the path and what is allowed, and routing that sees a group as one next hop while any member is up.
import t from "tap";
import { hostAddress, planAddresses } from "../../src/scenario/address-plan.js";
import { ConfigError } from "../../src/scenario/config-error.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { topologyFile } from "../../src/scenario/schema.js";
import { buildSwitchConfig } from "../../src/scenario/switch-config.js";
import { resolveTopology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { defaultTunables } from "../../src/switch/features/registry.js";

t.test("routing: a group is one next hop while any member link is up", (t) => {
  const topo = loadTopology("docs/examples/lag.yaml");
  t.equal(topo.lags.length, 1);
  t.same(topo.lags[0]!.ends, [
    { node: "leaf1", ports: [1, 2, 3, 4] },
    { node: "leaf2", ports: [1, 2, 3, 4] },
  ]);
  const plan = planAddresses(topo);
  const h5 = hostAddress(plan, "h5").ip;
  const toH5 = (down: Set<number>) =>
    computeRoutes(topo, plan, down)
      .get("leaf1")!
      .find((r) => r.prefix === h5 && r.prefixLength === 32);
  t.same(toH5(new Set())?.nextHops, [{ port: 1, via: plan.ports.get("leaf1:1")!.peerIp }], "one next hop");
  t.same(toH5(new Set([0, 1, 2]))?.nextHops.length, 1, "still one with three members down");
  t.equal(toH5(new Set([0, 1, 2, 3])), undefined, "gone with every member down");
  const cfg = buildSwitchConfig(topo, plan, [], "leaf2", defaultTunables({ hashSeed: 1 }));
  t.same(
    cfg.lags?.[0]?.members.map((m) => [m.port, m.via === plan.ports.get("leaf2:3")!.peerIp]),
    [
      [1, false],
      [2, false],
      [3, true],
      [4, false],
    ],
    "the far end has the group too, each member with its link's peer address",
  );
  t.equal(cfg.lags?.[0]?.mode, "lacp");
  t.equal(cfg.lags?.[0]?.key, 1);
  t.same(cfg.lags?.[0]?.hash, ["srcIp", "dstIp", "protocol", "srcPort", "dstPort"], "the group's own fields");
  t.end();
});

t.test("a group without its own hash inherits the switch's ecmp.fields at run time (null)", (t) => {
  const file = topologyFile.parse({
    nodes: { s1: { kind: "switch" }, s2: { kind: "switch" } },
    links: [
      ["s1:eth1", "s2:eth1"],
      ["s1:eth2", "s2:eth2"],
    ],
    lags: [{ name: "po1", members: ["s1:eth1", "s1:eth2"] }],
  });
  const topo = resolveTopology(file, "t.yaml", null);
  const cfg = buildSwitchConfig(topo, planAddresses(topo), [], "s1", defaultTunables({ hashSeed: 1 }));
  t.equal(cfg.lags?.[0]?.hash, null, "not frozen to the fields in force when the lab was built");
  t.end();
});

t.test("groups that cannot exist are refused with the path and what is allowed", (t) => {
  const base = {
    nodes: {
      s1: { kind: "switch" },
      s2: { kind: "switch" },
      s3: { kind: "switch" },
      h1: { kind: "host" },
    },
    links: [
      ["s1:eth1", "s2:eth1"],
      ["s1:eth2", "s2:eth2"],
      ["s1:eth3", "s3:eth1"],
      ["h1:eth1", "s1:eth4"],
      ["s2:eth3", "s3:eth2"],
    ],
  };
  const problems = (lags: unknown[]): string[] => {
    try {
      resolveTopology(topologyFile.parse({ ...base, lags }), "t.yaml", null);
      return [];
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return e.problems.map((p) => `${p.path}: ${p.message}`);
    }
  };
  t.same(problems([{ name: "po1", members: ["s1:eth1", "s1:eth2"] }]), [], "a good group");
  t.match(problems([{ name: "po1", members: ["s1:eth1", "s1:eth4"] }]), [/lags.0.members.1: .*a host/]);
  t.match(problems([{ name: "po1", members: ["s1:eth1", "s1:eth3"] }]), [
    /lags.0.members.1: s1:eth3 leads to s3, the other members to s2/,
  ]);
  t.match(problems([{ name: "po1", members: ["s1:eth1", "s2:eth3"] }]), [/members.1: .*is on s2/]);
  t.match(problems([{ name: "po1", members: ["s1:eth9"] }]), [/not the end of any link/]);
  t.match(problems([{ name: "po1", members: ["s9:eth1"] }]), [/"s9" is not a switch/]);
  t.match(
    problems([
      { name: "po1", members: ["s1:eth1"] },
      { name: "po2", members: ["s2:eth1", "s2:eth2"] },
    ]),
    [/lags.1.members.0: .*already a member of po1/],
  );
  t.match(problems([{ name: "po1", members: ["s1:eth1"], rate: "fast" }]), [/lags.0.rate: .*mode: lacp/]);
  t.match(
    problems([
      { name: "po1", members: ["s1:eth1"] },
      { name: "po1", members: ["s1:eth2"] },
    ]),
    [/lags.1.name: .*used by another group/],
  );
  const bad = topologyFile.safeParse({
    ...base,
    lags: [{ name: "po1", members: ["s1:eth1"], mode: "pagp" }],
  });
  t.notOk(bad.success, "modes are static or lacp");
  t.end();
});
