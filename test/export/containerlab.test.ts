// `rocelab export containerlab`: every topology it builds is valid against containerlab's published JSON
// schema (vendored), on one machine and spread over several, for every example topology; the tunnels on
// the two sides of a cross link match; the files the binds name are the export's own.
import { readdirSync, readFileSync } from "node:fs";
import t from "tap";
import { parse } from "yaml";
import {
  CLAB_VXLAN_PORT,
  type ContainerlabOptions,
  exportContainerlab,
} from "../../src/export/containerlab.js";
import { parseMachines } from "../../src/export/placement.js";
import { yamlText } from "../../src/export/yaml-text.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { clabValidator, errorsOf } from "../helpers/export-schemas.js";

const validate = clabValidator();

const OPTIONS: ContainerlabOptions = {
  lab: "h2dev",
  image: "rocelab-device:latest",
  machines: [],
  mgmtSubnet: "172.20.30.0/24",
  controlPort: 7700,
  vniBase: 10000,
  underlayMtu: 9000,
  underlayLatencyNs: 100_000,
  dilation: 1000,
  seed: 1,
};

interface Link {
  type: string;
  endpoint?: { node: string; interface: string; mac: string };
  endpoints?: { node: string; interface: string; mac: string }[];
  remote?: string;
  vni?: number;
  "dst-port"?: number;
  mtu: number;
}
type Definition = {
  topology: { nodes: Record<string, { binds: string[]; ports?: string[] }>; links: Link[] };
};

/** The definition as containerlab reads it: through the YAML text the export writes. */
function asRead(definition: Record<string, unknown>): Definition & Record<string, unknown> {
  return parse(yamlText(definition)) as Definition & Record<string, unknown>;
}

t.test("the schema check is not vacuous: broken topologies fail it", async (t) => {
  const [one] = exportContainerlab(defaultTopology(), OPTIONS).topologies;
  const good = asRead(one!.definition);
  t.ok(validate(good), errorsOf(validate));
  const cases: [string, (d: Definition & Record<string, unknown>) => void][] = [
    ["an unknown kind", (d) => Object.assign(d.topology.nodes.leaf1!, { kind: "rocelab" })],
    ["a link of an unknown type", (d) => Object.assign(d.topology.links[0]!, { type: "wire" })],
    ["a MAC that is not one", (d) => Object.assign(d.topology.links[0]!.endpoints![0]!, { mac: "nope" })],
    ["an unknown node field", (d) => Object.assign(d.topology.nodes.h1!, { image_pull: "always" })],
    ["a lab name with a space", (d) => Object.assign(d, { name: "my lab" })],
  ];
  for (const [what, breakIt] of cases) {
    const bad = asRead(one!.definition);
    breakIt(bad);
    t.notOk(validate(bad), `rejected: ${what}`);
  }
  const split = exportContainerlab(defaultTopology(), {
    ...OPTIONS,
    machines: parseMachines("192.0.2.1,192.0.2.2"),
  });
  const tunnelled = asRead(split.topologies[0]!.definition);
  t.ok(validate(tunnelled), errorsOf(validate));
  for (const l of tunnelled.topology.links) if (l.type === "vxlan") delete l.remote;
  t.notOk(validate(tunnelled), "rejected: a vxlan link without its remote");
});

// Every example topology (scenarios, which have a timeline, aside).
const examples = readdirSync("docs/examples").filter(
  (f) => /\.ya?ml$/.test(f) && !("timeline" in (parse(readFileSync(`docs/examples/${f}`, "utf8")) as object)),
);
t.ok(examples.length >= 5, `the example topologies (${examples.join(", ")})`);
for (const file of examples) {
  const topo = loadTopology(`docs/examples/${file}`);
  t.test(`docs/examples/${file}: valid on one machine and on two, three and IPv6 ones`, async (t) => {
    for (const machines of [
      "",
      "a=192.0.2.1,b=192.0.2.2",
      "192.0.2.1,192.0.2.2,192.0.2.3",
      "x=2001:db8::1,y=2001:db8::2",
    ]) {
      const list = machines ? parseMachines(machines) : [];
      const switches = topo.nodes.filter((n) => n.kind === "switch").length;
      if (list.length > switches) {
        // More machines than switches (each with its hosts): one would be empty, which containerlab refuses.
        t.throws(
          () => exportContainerlab(topo, { ...OPTIONS, machines: list }),
          new RegExp(
            `--machines: .* would get no node \\(this fabric's switches, each with its hosts, fill ${switches} of the ${list.length} machines\\): name at most ${switches}`,
          ),
          `${machines}: refused, naming the machine left empty`,
        );
        continue;
      }
      const out = exportContainerlab(topo, { ...OPTIONS, machines: list });
      for (const top of out.topologies) {
        const ok = validate(asRead(top.definition));
        t.ok(ok, `${top.path} (${machines || "one machine"}): valid${ok ? "" : `\n${errorsOf(validate)}`}`);
      }
      const nodes = out.topologies.flatMap((x) => Object.keys(asRead(x.definition).topology.nodes));
      t.same(nodes.sort(), topo.nodes.map((n) => n.name).sort(), "every node on exactly one machine");
    }
  });
}

t.test(
  "a cross link is a vxlan link on each side: same VNI, each pointing at the other machine",
  async (t) => {
    const machines = parseMachines("a=192.0.2.1,b=192.0.2.2");
    const out = exportContainerlab(defaultTopology(), { ...OPTIONS, machines });
    const [a, b] = out.topologies.map((x) => asRead(x.definition));
    const tunnels = (d: Definition) => d.topology.links.filter((l) => l.type === "vxlan");
    t.equal(tunnels(a!).length, 2);
    t.equal(tunnels(b!).length, 2);
    for (const l of out.crossLinks) {
      const vni = OPTIONS.vniBase + l.id;
      const onA = tunnels(a!).find((x) => x.vni === vni)!;
      const onB = tunnels(b!).find((x) => x.vni === vni)!;
      t.equal(onA.remote, "192.0.2.2");
      t.equal(onB.remote, "192.0.2.1");
      t.same(
        [onA.endpoint!.node, onB.endpoint!.node].sort(),
        [l.a.node, l.b.node].sort(),
        `VNI ${vni}: the two ends of link ${l.a.node}-${l.b.node}`,
      );
      t.equal(onA["dst-port"], CLAB_VXLAN_PORT);
      t.equal(onA.mtu, 4224);
    }
    t.equal(new Set(out.crossLinks.map((l) => l.id)).size, 2, "a VNI per link");
    // Links within a machine stay veth pairs; every link appears once per side it touches.
    const veths = (d: Definition) => d.topology.links.filter((l) => l.type === "veth").length;
    t.equal(veths(a!) + veths(b!) + out.crossLinks.length, defaultTopology().links.length);
    t.ok(out.mtu?.fits, "a 9000-byte underlay carries RoCE MTU 4096 tunnels");
  },
);

t.test(
  "binds name the export's own files; control ports are published on the machine's address",
  async (t) => {
    const out = exportContainerlab(defaultTopology(), {
      ...OPTIONS,
      machines: parseMachines("a=192.0.2.1,b=192.0.2.2"),
    });
    const paths = new Set([...out.files.map((f) => f.path), "config/token"]);
    for (const top of out.topologies) {
      for (const [name, node] of Object.entries(asRead(top.definition).topology.nodes)) {
        for (const bind of node.binds) t.ok(paths.has(bind.split(":")[0]!), `${name}: ${bind}`);
        t.match(node.binds, [`config/${name}.json:/config/${name}.json:ro`]);
        const ep = out.endpoints.find((e) => e.node === name)!;
        const [, port] = /:(\d+)$/.exec(ep.control)!;
        t.same(node.ports, [`${top.machine === "a" ? "192.0.2.1" : "192.0.2.2"}:${port}:7700/tcp`]);
      }
    }
    const v6 = exportContainerlab(defaultTopology(), {
      ...OPTIONS,
      machines: parseMachines("2001:db8::1,2001:db8::2"),
    });
    t.equal(v6.endpoints[0]!.control, "tcp://[2001:db8::1]:7701", "an IPv6 machine's address in brackets");
    t.same(asRead(v6.topologies[0]!.definition).topology.nodes.spine1!.ports, ["7701:7700/tcp"]);
    const single = exportContainerlab(defaultTopology(), OPTIONS);
    t.same(
      single.endpoints.slice(0, 2).map((e) => e.control),
      ["tcp://172.20.30.2:7700", "tcp://172.20.30.3:7700"],
      "on one machine: each device's management address",
    );
    t.notOk("ports" in asRead(single.topologies[0]!.definition).topology.nodes.leaf1!, "nothing published");
  },
);

t.test("bad management subnets and VNI ranges are refused with what is allowed", async (t) => {
  const topo = defaultTopology();
  const two = parseMachines("a=192.0.2.1,b=192.0.2.2");
  const bad: [Partial<ContainerlabOptions>, RegExp][] = [
    [{ mgmtSubnet: "172.20.30.0" }, /not an IPv4 subnet like 172\.20\.30\.0\/24/],
    [{ mgmtSubnet: "172.20.30.5/24" }, /has host bits set \(the subnet starts at 172\.20\.30\.0\)/],
    [{ mgmtSubnet: "172.20.30.0/29" }, /holds 5 nodes, the topology has 12/],
    [{ mgmtSubnet: "300.1.1.0/24" }, /not an IPv4 subnet/],
    [{ machines: two, vniBase: 16777214 }, /VNIs 16777214 to 16777216; VNIs are 1 to 16777215/],
  ];
  for (const [o, message] of bad) t.throws(() => exportContainerlab(topo, { ...OPTIONS, ...o }), { message });
});
