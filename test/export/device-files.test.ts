// The device files an export mounts into containers: what the live supervisor hands each device at start
// (compared with the supervisor itself), JSON-safe, with the container set-up a device entrypoint needs.
import { isDeepStrictEqual } from "node:util";
import t from "tap";
import { DEVICE_FILE_FORMAT, deviceFiles, planFile } from "../../src/export/device-files.js";
import { deviceSetup, liveSlack } from "../../src/lab/live/device-inits.js";
import { hostAddress, planAddresses } from "../../src/scenario/address-plan.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { SettingsLayers, switchChange } from "../../src/scenario/settings-layers.js";
import { defaultTopology, type Topology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import type { SwitchConfig } from "../../src/switch/config.js";
import { autoHeadroomBytes } from "../../src/switch/mmu.js";
import { ipToString } from "../../src/wire/bytes.js";

/** What the live supervisor starts a node with: its own settings layers (live slack) and deviceSetup. */
function supervisorInit(topo: Topology, node: string, dilation: number, seed: number) {
  const routes = computeRoutes(topo, planAddresses(topo));
  const layers = new SettingsLayers(topo, switchChange(liveSlack(dilation)));
  const setup = deviceSetup(topo, planAddresses(topo), layers, node, routes.get(node) ?? []);
  return { ...setup, seed, dilation };
}

for (const [name, topo] of [
  ["the default fabric", defaultTopology()],
  ["the VXLAN overlay example", loadTopology("docs/examples/vxlan.yaml")],
  ["the RoCEv1 bridge example", loadTopology("docs/examples/rocev1.yaml")],
] as const) {
  t.test(
    `${name}: every device file holds what the live supervisor would start that device with`,
    async (t) => {
      for (const dilation of [1000, 50]) {
        const files = deviceFiles(topo, { lab: "h2dev", dilation, seed: 7 });
        t.equal(files.length, topo.nodes.length);
        for (const f of files) {
          const init = supervisorInit(topo, f.node, dilation, 7);
          t.equal(f.format, DEVICE_FILE_FORMAT);
          t.equal(f.kind, init.kind, `${f.node}: kind`);
          t.ok(
            isDeepStrictEqual(f.config, init.config),
            `${f.node} at dilation ${dilation}: the same config`,
          );
          t.same(
            f.ports.map(({ port, ifname, delayNs }) => ({ port, ifname, delayNs })),
            init.ports,
            `${f.node}: the same ports`,
          );
          t.equal(f.seed, init.seed);
          t.equal(f.dilation, init.dilation);
          t.ok(isDeepStrictEqual(JSON.parse(JSON.stringify(f)), f), `${f.node}: survives JSON unchanged`);
        }
      }
    },
  );
}

t.test(
  "a host's file says how to set up its kernel side; a switch's carries every port's MAC and MTU",
  async (t) => {
    const topo = defaultTopology();
    const files = deviceFiles(topo, { lab: "h2dev", dilation: 1000, seed: 1 });
    const h1 = files.find((f) => f.node === "h1")!;
    const a = hostAddress(planAddresses(topo), "h1");
    t.same(h1.hostStack, {
      kernelIf: "host0",
      nicIf: "nic0",
      mac: "02:00:00:05:01:00",
      ip: ipToString(a.ip),
      prefixLength: 31,
      gateway: ipToString(a.peerIp),
      routes: ["10.1.0.0/16", "10.0.0.0/16"],
    });
    t.same(
      h1.ports[1],
      { port: 2, ifname: "nic0", delayNs: 0 },
      "the host-stack side keeps the kernel's MAC",
    );
    t.equal(h1.mtu, 4224, "path MTU 4096 + 128, as the live lab's ports");
    const leaf1 = files.find((f) => f.node === "leaf1")!;
    t.same(
      leaf1.ports.map((p) => [p.ifname, p.mac]),
      [1, 2, 3, 4, 5, 6].map((p) => [`eth${p}`, `02:00:00:03:0${p}:00`]),
    );
    t.equal(leaf1.hostStack, undefined);
    // The fields of `rocelab device-config`'s device files (format rocelab-device/1), and no others.
    const fields = [
      "format",
      "lab",
      "node",
      "kind",
      "topology",
      "dilation",
      "seed",
      "reactionMs",
      "mtu",
      "ports",
    ];
    for (const f of files)
      t.same(Object.keys(f).sort(), [...fields, "config", ...(f.hostStack ? ["hostStack"] : [])].sort());
    t.equal(leaf1.reactionMs, 10, "the local lab's reaction budget");
    const plan = planFile(topo, "h2dev");
    t.equal(plan.lab, "h2dev");
    t.equal(plan.ports.length, 24, "both ends of 12 links");
    t.match(plan.ports[0], { port: "leaf1:eth1", mac: "02:00:00:03:01:00" });
  },
);

t.test(
  "a tunnelled link's headroom covers the tunnel; the propagation the device adds does not change",
  async (t) => {
    const topo = defaultTopology();
    const leaf1spine2 = topo.links.find((l) => l.a.node === "leaf1" && l.b.node === "spine2")!;
    const plain = deviceFiles(topo, { lab: "h2dev", dilation: 1000, seed: 1 });
    const tunnelled = deviceFiles(topo, {
      lab: "h2dev",
      dilation: 1000,
      seed: 1,
      tunnels: new Map([[leaf1spine2.id, 250_000]]),
    });
    const port = (files: typeof plain, node: string, p: number) =>
      (files.find((f) => f.node === node)!.config as unknown as SwitchConfig).ports.find(
        (x) => x.port === p,
      )!;
    // 250 µs of real latency at dilation 1000 is 250 ns of emulated delay on top of the link's 1 µs.
    t.equal(port(plain, "leaf1", 2).delayNs, 1000);
    t.equal(port(tunnelled, "leaf1", 2).delayNs, 1250);
    t.equal(port(tunnelled, "spine2", 1).delayNs, 1250, "at both ends");
    t.equal(port(tunnelled, "leaf1", 1).delayNs, 1000, "other ports keep theirs");
    const leaf1 = tunnelled.find((f) => f.node === "leaf1")!;
    t.equal(
      leaf1.ports.find((p) => p.port === 2)!.delayNs,
      1000,
      "the device still adds the link's own 1 µs",
    );
    t.same(
      tunnelled.filter((f) => f.kind === "nic"),
      plain.filter((f) => f.kind === "nic"),
      "NICs have no headroom to size",
    );
    // What that buys: the automatic headroom of that port grows by the round trip of 250 ns at 100 Gb/s.
    const cfg = leaf1.config as unknown as SwitchConfig;
    const grown =
      autoHeadroomBytes(100e9, 1250, cfg.maxFrameBytes, cfg.pfc.headroomSlack) -
      autoHeadroomBytes(100e9, 1000, cfg.maxFrameBytes, cfg.pfc.headroomSlack);
    t.equal(grown, (2 * 250 * 100e9) / 8e9, "6250 bytes more headroom");
  },
);
