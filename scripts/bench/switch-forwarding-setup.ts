// switch-forwarding's set-up: the bench fabric (generator -> switch -> sink) from the lab's own address
// plan and switch-config builder, its namespaces and veths (execa argument arrays and `ip -batch`, as the lab
// does), the frame it sends, and the kernel's interface counters it reads.

import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";
import { nsName } from "../../src/lab/live/names.js";
import { interfaceMtu } from "../../src/lab/live/provision.js";
import { planAddresses } from "../../src/scenario/address-plan.js";
import { topologyFile } from "../../src/scenario/schema.js";
import { DEFAULT_MTU, resolveTopology } from "../../src/scenario/topology.js";
import { type Ipv4Address, ipToString, type MacAddress, macToString } from "../../src/wire/bytes.js";
import { EtherType, serializeEthernet } from "../../src/wire/ethernet.js";
import { Ecn, IpProtocol, serializeIpv4 } from "../../src/wire/ipv4.js";
import { ROCEV2_UDP_PORT, serializeUdp } from "../../src/wire/udp.js";
import { fmt, readSystemCpu, systemCpuDelta } from "./common.js";
import { DATA_DSCP, pctOfCore } from "./switch-forwarding-report.js";

/** The benchmark's lab name: namespaces rl-bench-*, processes rocelab-bench-*. */
export const BENCH_LAB = "bench";

// -------------------------------------------------------------------------------------------------------
// The little fabric: addresses from the lab's own address plan, switch config from the lab's own builder

export function benchTopology(rateBps: number) {
  const file = topologyFile.parse({
    name: BENCH_LAB,
    description: "switch-forwarding benchmark: gen -> sw -> sink",
    // No propagation delay: the emulated link must add nothing to what is measured.
    defaults: { link: { rate: rateBps, delay: 0 }, mtu: DEFAULT_MTU },
    nodes: { sender: { kind: "host" }, sw: { kind: "switch" }, sink: { kind: "host" } },
    links: [
      ["sender:eth1", "sw:eth1"],
      ["sink:eth1", "sw:eth2"],
    ],
  });
  const topo = resolveTopology(file, "switch-forwarding benchmark", null);
  const plan = planAddresses(topo);
  const at = (node: string, port: number) => plan.ports.get(`${node}:${port}`)!;
  return { topo, plan, gen: at("sender", 1), swIn: at("sw", 1), swOut: at("sw", 2), sink: at("sink", 1) };
}

export type Fabric = ReturnType<typeof benchTopology>;

/** One UDP/IPv4 frame from the generator to the sink, addressed to the switch's ingress port. */
export function buildFrame(
  bytes: number,
  from: { mac: MacAddress; ip: Ipv4Address },
  gatewayMac: MacAddress,
  to: Ipv4Address,
): Uint8Array {
  const frame = new Uint8Array(bytes);
  let off = serializeEthernet({ dst: gatewayMac, src: from.mac, etherType: EtherType.IPv4 }, frame);
  off = serializeIpv4(
    {
      src: from.ip,
      dst: to,
      protocol: IpProtocol.UDP,
      payloadLength: bytes - off - 20,
      dscp: DATA_DSCP,
      ecn: Ecn.Ect0,
    },
    frame,
    off,
  );
  serializeUdp({ srcPort: 0xc000, dstPort: ROCEV2_UDP_PORT, payloadLength: bytes - off - 8 }, frame, off);
  return frame;
}

// -------------------------------------------------------------------------------------------------------
// Provisioning (execa argument arrays and `ip -batch`, as the lab does)

export const ns = (node: string): string => nsName(BENCH_LAB, node);

export async function ipBatch(commands: readonly string[], namespace?: string): Promise<void> {
  const args = namespace ? ["-n", namespace, "-batch", "-"] : ["-batch", "-"];
  await execa("ip", args, { input: `${commands.join("\n")}\n` });
}

export async function sysctl(namespace: string, settings: readonly string[]): Promise<void> {
  await execa("ip", ["netns", "exec", namespace, "sysctl", "-q", "-w", ...settings]);
}

export async function provisionBench(f: Fabric): Promise<void> {
  const mtu = interfaceMtu(f.topo.mtu);
  await ipBatch([
    `netns add ${ns("sender")}`,
    `netns add ${ns("sw")}`,
    `netns add ${ns("sink")}`,
    `link add eth1 netns ${ns("sender")} type veth peer name eth1 netns ${ns("sw")}`,
    `link add eth1 netns ${ns("sink")} type veth peer name eth2 netns ${ns("sw")}`,
  ]);
  const port = (name: string, mac: MacAddress): string =>
    `link set ${name} address ${macToString(mac)} mtu ${mtu} up`;
  await ipBatch(
    ["link set lo up", port("eth1", f.gen.mac), `addr add ${ipToString(f.gen.ip)}/31 dev eth1`],
    ns("sender"),
  );
  await ipBatch(["link set lo up", port("eth1", f.swIn.mac), port("eth2", f.swOut.mac)], ns("sw"));
  await ipBatch(
    ["link set lo up", port("eth1", f.sink.mac), `addr add ${ipToString(f.sink.ip)}/31 dev eth1`],
    ns("sink"),
  );
  const noV6 = ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"];
  for (const node of ["sender", "sw", "sink"]) await sysctl(ns(node), noV6);
  await sysctl(ns("sw"), ["net.ipv4.ip_forward=0"]);
  // Offloads off, as on every lab port: userspace must see the frames a wire would carry.
  const ports: [string, string][] = [
    [ns("sender"), "eth1"],
    [ns("sw"), "eth1"],
    [ns("sw"), "eth2"],
    [ns("sink"), "eth1"],
  ];
  for (const [namespace, iface] of ports) {
    await execa(
      "ip",
      [
        ...["netns", "exec", namespace, "ethtool", "-K", iface],
        ...["rx", "off", "tx", "off", "sg", "off", "tso", "off", "gso", "off", "gro", "off"],
      ],
      { reject: false },
    );
  }
}

/** Interface counters from the kernel (`ip -s -j link show`): costs the measured processes nothing. */
export async function linkCounters(
  namespace: string,
  iface: string,
): Promise<{ rx: number; rxDropped: number }> {
  const { stdout } = await execa("ip", ["-n", namespace, "-s", "-j", "link", "show", iface]);
  const [entry] = JSON.parse(stdout) as { stats64: { rx: { packets: number; dropped: number } } }[];
  return { rx: entry!.stats64.rx.packets, rxDropped: entry!.stats64.rx.dropped };
}

/** The machine counts as quiet below this much busy time over a second, % of one core. */
const QUIET_BUSY_PCT = 15;

/**
 * Waits (at most `maxSeconds`) until the machine has been quiet for a second: on a shared 2-CPU machine
 * another person's test run would take a CPU from the measured processes. Returns the last second's busy %.
 */
export async function waitForQuiet(maxSeconds: number, log: (line: string) => void): Promise<number> {
  const deadline = Date.now() + maxSeconds * 1000;
  let waited = false;
  for (;;) {
    const a = readSystemCpu();
    await sleep(1000);
    const busy = pctOfCore(systemCpuDelta(a, readSystemCpu()).busy, 1);
    if (busy <= QUIET_BUSY_PCT || Date.now() >= deadline) {
      if (waited) log(`  (waited for a quieter machine: ${fmt(busy)} % busy now)`);
      return busy;
    }
    waited = true;
  }
}
