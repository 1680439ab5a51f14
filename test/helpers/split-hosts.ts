// Two "machines" on one: each a network namespace with a root-namespace role (an underlay interface, a
// management bridge, the tunnels' ends), the device namespaces of its nodes beside it as containers
// would be, links between nodes of one machine as veth pairs, and links between the machines as kernel
// VXLAN tunnels over the underlay — what containerlab's `vxlan` links (the VXLAN interface made on the
// host and moved into the container) and `vxlan-stitch` links (a veth into the container, joined to a
// VXLAN interface on the host by tc mirred) build (containerlab links/link_vxlan.go,
// links/link_vxlan_stitched.go). Every namespace is rl-<lab>-<name>; removing them removes every
// interface (tc filters and tunnels go with their devices).
import { execa } from "execa";
import { VXLAN_OVERHEAD } from "../../src/lab/live/device-prepare.js";
import type { TopoLink, Topology } from "../../src/scenario/topology.js";

export const VXLAN_PORT = 4789;
/** The control port every device listens on (the device image's default). */
export const CONTROL_PORT = 7700;

export interface Machine {
  readonly name: string;
  readonly ns: string;
  /** Underlay address (10.250.0.N/30). */
  readonly underlay: string;
  /** Management subnet 172.31.M.0/24; the machine's bridge is .1. */
  readonly mgmt: number;
}

export interface CrossLink {
  readonly link: TopoLink;
  readonly vni: number;
  readonly style: "moved" | "stitched";
}

export interface SplitPlan {
  readonly lab: string;
  readonly machines: readonly [Machine, Machine];
  /** Which machine (0 or 1) each node runs on. */
  readonly placement: ReadonlyMap<string, 0 | 1>;
  /** Each node's management address (its control endpoint's host). */
  readonly mgmtIp: ReadonlyMap<string, string>;
  readonly crossLinks: readonly CrossLink[];
  /** Interface MTU of the fabric's ports, and the underlay's (that plus the VXLAN encapsulation). */
  readonly mtu: number;
  readonly underlayMtu: number;
}

export const nodeNs = (lab: string, node: string): string => `rl-${lab}-${node}`;

/** Places nodes on two machines; cross-machine links alternate between the two containerlab styles. */
export function planSplit(lab: string, topo: Topology, onSecond: readonly string[], mtu: number): SplitPlan {
  const machines: [Machine, Machine] = [
    { name: "hosta", ns: nodeNs(lab, "hosta"), underlay: "10.250.0.1", mgmt: 1 },
    { name: "hostb", ns: nodeNs(lab, "hostb"), underlay: "10.250.0.2", mgmt: 2 },
  ];
  const placement = new Map(topo.nodes.map((n) => [n.name, onSecond.includes(n.name) ? 1 : 0] as const));
  const mgmtIp = new Map(
    topo.nodes.map((n) => [n.name, `172.31.${machines[placement.get(n.name)!].mgmt}.${10 + n.index}`]),
  );
  const crossLinks = topo.links
    .filter((l) => placement.get(l.a.node) !== placement.get(l.b.node))
    .map((link, i) => ({
      link,
      vni: 100 + link.id,
      style: i % 2 === 0 ? ("moved" as const) : ("stitched" as const),
    }));
  return { lab, machines, placement, mgmtIp, crossLinks, mtu, underlayMtu: mtu + VXLAN_OVERHEAD };
}

async function batch(ns: string, cmds: readonly string[]): Promise<void> {
  await execa("ip", ["-n", ns, "-batch", "-"], { input: `${cmds.join("\n")}\n` });
}

async function sh(ns: string, cmd: string, ...args: string[]): Promise<void> {
  await execa("ip", ["netns", "exec", ns, cmd, ...args]);
}

/** Creates the machines, the device namespaces, management, veth links and VXLAN tunnels. */
export async function buildSplit(p: SplitPlan, topo: Topology): Promise<void> {
  const [a, b] = p.machines;
  const all = [a.ns, b.ns, ...topo.nodes.map((n) => nodeNs(p.lab, n.name))];
  for (const ns of all) await execa("ip", ["netns", "add", ns]);
  // The underlay: one veth between the machines, its MTU raised by the VXLAN encapsulation so that the
  // tunnels carry the fabric's full frames unfragmented.
  await execa("ip", ["-n", a.ns, "link", "add", "ul0", "type", "veth", "peer", "name", "ul0", "netns", b.ns]);
  for (const [m, other] of [
    [a, b],
    [b, a],
  ] as const) {
    await batch(m.ns, [
      "link set lo up",
      `link set ul0 mtu ${p.underlayMtu} up`,
      `addr add ${m.underlay}/30 dev ul0`,
      "link add mgmt type bridge",
      `addr add 172.31.${m.mgmt}.1/24 dev mgmt`,
      "link set mgmt up",
      // Replies to the management station come back to its bridge address, not the underlay's.
      `route add 172.31.${other.mgmt}.0/24 via ${other.underlay} src 172.31.${m.mgmt}.1`,
    ]);
    await sh(m.ns, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
  }
  // Management: eth0 of every device namespace on its machine's bridge, as a container's is.
  for (const n of topo.nodes) {
    const m = p.machines[p.placement.get(n.name)!];
    const ns = nodeNs(p.lab, n.name);
    await execa("ip", [
      "-n",
      m.ns,
      "link",
      "add",
      `m${n.index}`,
      "type",
      "veth",
      "peer",
      "name",
      "eth0",
      "netns",
      ns,
    ]);
    await batch(m.ns, [`link set m${n.index} master mgmt up`]);
    await batch(ns, [
      "link set lo up",
      "link set eth0 up",
      `addr add ${p.mgmtIp.get(n.name)}/24 dev eth0`,
      `route add 172.31.0.0/16 via 172.31.${m.mgmt}.1`,
    ]);
  }
  // Links inside one machine: a veth pair between the two device namespaces.
  const cross = new Set(p.crossLinks.map((c) => c.link.id));
  for (const l of topo.links) {
    if (cross.has(l.id)) continue;
    await execa("ip", [
      "link",
      "add",
      `eth${l.a.port}`,
      "netns",
      nodeNs(p.lab, l.a.node),
      "type",
      "veth",
      "peer",
      "name",
      `eth${l.b.port}`,
      "netns",
      nodeNs(p.lab, l.b.node),
    ]);
  }
  for (const c of p.crossLinks) {
    for (const end of [c.link.a, c.link.b]) {
      const m = p.machines[p.placement.get(end.node)!];
      const remote = p.machines[1 - p.placement.get(end.node)!]!;
      const vx = `vx${c.vni}`;
      await execa("ip", [
        "-n",
        m.ns,
        "link",
        "add",
        vx,
        "type",
        "vxlan",
        "id",
        String(c.vni),
        "local",
        m.underlay,
        "remote",
        remote.underlay,
        "dstport",
        String(VXLAN_PORT),
        "dev",
        "ul0",
        "nolearning",
      ]);
      const dev = nodeNs(p.lab, end.node);
      if (c.style === "moved") {
        // containerlab `vxlan`: the tunnel itself becomes the container's interface.
        await execa("ip", ["-n", m.ns, "link", "set", vx, "netns", dev]);
        await execa("ip", ["-n", dev, "link", "set", vx, "name", `eth${end.port}`]);
        continue;
      }
      // containerlab `vxlan-stitch`: a veth into the container, and tc mirred both ways on the host.
      const ve = `ve${c.vni}`;
      await execa("ip", [
        "-n",
        m.ns,
        "link",
        "add",
        ve,
        "type",
        "veth",
        "peer",
        "name",
        `eth${end.port}`,
        "netns",
        dev,
      ]);
      await batch(m.ns, [`link set ${ve} mtu ${p.mtu} up`, `link set ${vx} up`]);
      for (const [from, to] of [
        [ve, vx],
        [vx, ve],
      ] as const) {
        await sh(m.ns, "tc", "qdisc", "add", "dev", from, "ingress");
        await sh(
          m.ns,
          "tc",
          "filter",
          "add",
          "dev",
          from,
          "parent",
          "ffff:",
          "protocol",
          "all",
          "u32",
          "match",
          "u32",
          "0",
          "0",
          "action",
          "mirred",
          "egress",
          "mirror",
          "dev",
          to,
        );
      }
      for (const i of [ve, vx])
        await execa(
          "ip",
          ["netns", "exec", m.ns, "ethtool", "-K", i, "tx", "off", "gso", "off", "gro", "off"],
          { reject: false },
        );
    }
  }
}

/** Deletes every namespace of the split (which takes their interfaces, tunnels and filters along). */
export async function removeSplit(lab: string): Promise<string[]> {
  const { stdout } = await execa("ip", ["netns", "list"], { reject: false });
  const mine = stdout
    .split("\n")
    .map((l) => l.split(" ")[0]!)
    .filter((n) => n.startsWith(`rl-${lab}-`));
  for (const ns of mine) await execa("ip", ["netns", "delete", ns], { reject: false });
  return mine;
}

/** Packets a link's counters saw, in a namespace (tx, rx). */
export async function linkPackets(ns: string, ifname: string): Promise<{ tx: number; rx: number }> {
  const { stdout } = await execa("ip", ["-n", ns, "-s", "-j", "link", "show", "dev", ifname]);
  const s = (JSON.parse(stdout) as { stats64: { tx: { packets: number }; rx: { packets: number } } }[])[0]!
    .stats64;
  return { tx: s.tx.packets, rx: s.rx.packets };
}
