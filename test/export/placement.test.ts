// Spreading a fabric over machines: the --hosts and --place syntax, and where the nodes land.
import t from "tap";
import {
  crossLinks,
  ExportInputError,
  parseMachines,
  parsePins,
  placeNodes,
} from "../../src/export/placement.js";
import { defaultTopology, NodeKind, resolveTopology, type Topology } from "../../src/scenario/topology.js";

const two = parseMachines("a=192.0.2.1,b=192.0.2.2");

function machinesOf(topo: Topology, placement: Map<string, string>): Record<string, string[]> {
  const by: Record<string, string[]> = {};
  for (const n of topo.nodes) {
    const m = placement.get(n.name)!;
    by[m] = [...(by[m] ?? []), n.name];
  }
  return by;
}

t.test(
  "--hosts: NAME=ADDRESS pairs, bare addresses named by position, errors that say what is allowed",
  async (t) => {
    t.same(two, [
      { name: "a", address: "192.0.2.1", family: "ipv4" },
      { name: "b", address: "192.0.2.2", family: "ipv4" },
    ]);
    t.same(parseMachines("2001:db8::1, 2001:db8::2"), [
      { name: "h1", address: "2001:db8::1", family: "ipv6" },
      { name: "h2", address: "2001:db8::2", family: "ipv6" },
    ]);
    const bad: [string, RegExp][] = [
      ["", /name at least one machine/],
      ["a=server1.example", /"server1.example" \(machine a\) is not an IPv4 or IPv6 address/],
      ["A=192.0.2.1", /"A" is not a machine name/],
      ["a=192.0.2.1,a=192.0.2.2", /name a is given twice/],
      ["a=192.0.2.1,b=192.0.2.1", /address 192.0.2.1 is given twice/],
      ["a=192.0.2.1,b=2001:db8::2", /all be IPv4 or all IPv6/],
    ];
    for (const [text, message] of bad)
      t.throws(() => parseMachines(text), { name: "ExportInputError", message });
    t.ok(new ExportInputError("x") instanceof Error);
  },
);

t.test(
  "the default fabric on two machines: a leaf with its hosts and a spine on each, two links cross",
  async (t) => {
    const topo = defaultTopology();
    const placement = placeNodes(topo, two);
    t.same(machinesOf(topo, placement), {
      a: ["spine1", "leaf1", "h1", "h2", "h3", "h4"],
      b: ["spine2", "leaf2", "h5", "h6", "h7", "h8"],
    });
    const cross = crossLinks(topo, placement);
    t.equal(cross.length, 2, "leaf1-spine2 and leaf2-spine1");
    const kind = new Map(topo.nodes.map((n) => [n.name, n.kind]));
    t.ok(
      cross.every((l) => kind.get(l.a.node) === NodeKind.Switch && kind.get(l.b.node) === NodeKind.Switch),
      "no host link crosses machines",
    );
    t.same(placeNodes(topo, two), placement, "the same input places the same way");
  },
);

t.test(
  "three machines: the leaves with their hosts spread first, then the spines where there is room",
  async (t) => {
    const topo = defaultTopology();
    const placement = placeNodes(topo, parseMachines("192.0.2.1,192.0.2.2,192.0.2.3"));
    t.same(machinesOf(topo, placement), {
      h1: ["leaf1", "h1", "h2", "h3", "h4"],
      h2: ["leaf2", "h5", "h6", "h7", "h8"],
      h3: ["spine1", "spine2"],
    });
    t.equal(crossLinks(topo, placement).length, 4);
    t.equal(
      crossLinks(topo, placeNodes(topo, parseMachines("192.0.2.9"))).length,
      0,
      "one machine: nothing crosses",
    );
  },
);

t.test("--place pins nodes; the hosts of a pinned leaf go with it; errors name what exists", async (t) => {
  const topo = defaultTopology();
  const pins = parsePins("leaf1=b, spine1=b", topo, two);
  const placement = placeNodes(topo, two, pins);
  const by = machinesOf(topo, placement);
  t.same(by.b, ["spine1", "leaf1", "h1", "h2", "h3", "h4"], "the pinned nodes and leaf1's hosts");
  t.same(by.a, ["spine2", "leaf2", "h5", "h6", "h7", "h8"], "the rest fills the other machine");
  // A pinned host stays where it is pinned, even away from its leaf: then its link crosses.
  const apart = placeNodes(topo, two, parsePins("h1=b,leaf1=a", topo, two));
  t.equal(apart.get("h1"), "b");
  t.equal(apart.get("h2"), "a", "leaf1's other hosts stay with it");
  t.ok(
    crossLinks(topo, apart).some((l) => l.a.node === "h1"),
    "h1's link is a tunnel",
  );
  const bad: [string, RegExp][] = [
    ["leaf9=a", /no node leaf9 in topology default \(nodes: spine1, spine2, leaf1/],
    ["leaf1=c", /no machine c in --hosts \(machines: a, b\)/],
    ["leaf1", /"leaf1" is not NODE=MACHINE/],
    ["leaf1=a=b", /"leaf1=a=b" is not NODE=MACHINE/],
    ["leaf1=a,leaf1=b", /leaf1 is placed twice/],
  ];
  for (const [text, message] of bad) t.throws(() => parsePins(text, topo, two), { message });
});

t.test("hosts linked only to each other are placed together, like a switch with its hosts", async (t) => {
  const topo = resolveTopology(
    {
      nodes: { x: { kind: "host" }, y: { kind: "host" }, s1: { kind: "switch" }, s2: { kind: "switch" } },
      links: [
        ["x:eth1", "y:eth1"],
        ["s1:eth1", "s2:eth1"],
      ],
    },
    "test",
    null,
  );
  const placement = placeNodes(topo, two);
  // x carries y (weight 2) to a; then s1 to b, and s2 to b too (load 1 < 2), next to its neighbour.
  t.same(machinesOf(topo, placement), { a: ["x", "y"], b: ["s1", "s2"] });
  t.equal(crossLinks(topo, placement).length, 0);
});
