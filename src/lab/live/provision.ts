// Provisioning a live lab from a topology, and taking it apart again.
//
// One network namespace per device (rl-<lab>-<node>) and one veth pair per link, created directly inside
// the two namespaces as eth<N> (nothing ever appears in the root namespace). Switch ports carry no kernel
// address: the switch process owns them. A host namespace has its wire port eth1, owned by the NIC process,
// and a second veth pair nic0/host0: the kernel's IP stack lives on host0, and the NIC process bridges
// everything that is not RoCE between nic0 and the wire — as a real RDMA NIC hands non-RDMA traffic to the
// host stack. The kernel therefore never sees RoCEv2 (no ICMP port-unreachable storms), and ping, tcpdump
// and ordinary UDP applications still work on the host.
//
// All commands are argument arrays (execa), never shell strings; `ip -batch` keeps it to a few calls.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { execa } from "execa";
import { type AddressPlan, hostAddress, type PortAddress, portKey } from "../../scenario/address-plan.js";
import { NodeKind, type Topology } from "../../scenario/topology.js";
import { ipToString, macToString } from "../../wire/bytes.js";
import {
  type HostStackSetup,
  hostStackCommands,
  hostSysctls,
  noIpv6Sysctls,
  offloadsOffArgs,
  portCommand,
} from "./interface-setup.js";
import {
  HOST_KERNEL_IF,
  HOST_NIC_IF,
  keptLogDir,
  labDir,
  labOfNamespace,
  NS_PREFIX,
  nsName,
} from "./names.js";
import { netnsEtcDirs, removeNetnsHosts, writeNetnsHosts } from "./netns-hosts.js";
import { alive, listLabDirs, readState } from "./state.js";

/**
 * Interface MTU: the path MTU plus room for IP, UDP, BTH, RETH, immediate data and ICRC, and for the INT
 * block (`intBytes`, docs/int.md) the lab's hosts put in each data packet on top of a full payload: a port
 * with less drops those frames (the kernel refuses to send a frame longer than its MTU).
 */
export function interfaceMtu(pathMtu: number, intBytes = 0): number {
  return pathMtu + 128 + intBytes;
}

export type Progress = (step: string) => void;

async function ipBatch(commands: readonly string[], namespace?: string): Promise<void> {
  if (commands.length === 0) return;
  const args = namespace ? ["-n", namespace, "-batch", "-"] : ["-batch", "-"];
  await execa("ip", args, { input: `${commands.join("\n")}\n` });
}

/** Runs `jobs` with at most `limit` at a time. */
async function parallel<T>(
  items: readonly T[],
  limit: number,
  job: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await job(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function provision(
  lab: string,
  topo: Topology,
  plan: AddressPlan,
  progress: Progress,
  mtu = interfaceMtu(topo.mtu),
): Promise<void> {
  const nodes = topo.nodes;
  progress(`creating ${nodes.length} network namespaces and ${topo.links.length} veth pairs`);
  const root: string[] = nodes.map((n) => `netns add ${nsName(lab, n.name)}`);
  for (const link of topo.links) {
    root.push(
      `link add eth${link.a.port} netns ${nsName(lab, link.a.node)} type veth peer name eth${link.b.port} netns ${nsName(lab, link.b.node)}`,
    );
  }
  for (const n of nodes) {
    if (n.kind === NodeKind.Host) {
      const ns = nsName(lab, n.name);
      root.push(`link add ${HOST_NIC_IF} netns ${ns} type veth peer name ${HOST_KERNEL_IF} netns ${ns}`);
    }
  }
  await ipBatch(root);
  writeNetnsHosts(lab, topo, plan);

  progress("configuring interfaces (MAC, MTU, host addresses and routes)");
  await parallel(nodes, 8, async (n) => {
    const ns = nsName(lab, n.name);
    const cmds = ["link set lo up"];
    for (const port of n.ports) {
      const addr = plan.ports.get(portKey(n.name, port))!;
      cmds.push(portCommand(`eth${port}`, macToString(addr.mac), mtu));
    }
    if (n.kind === NodeKind.Host) {
      const addr = plan.ports.get(portKey(n.name, 1))!;
      cmds.push(...hostStackCommands(hostStackOf(addr, mtu)));
      cmds.push(`route add default via ${ipToString(addr.peerIp)} dev ${HOST_KERNEL_IF}`);
    }
    await ipBatch(cmds, ns);
    const sysctls = noIpv6Sysctls("all");
    if (n.kind === NodeKind.Host) sysctls.push(...hostSysctls("eth1", HOST_NIC_IF));
    await execa("ip", ["netns", "exec", ns, "sysctl", "-q", "-w", ...sysctls]);
  });

  progress("turning offloads off on every port (checksums, TSO, GSO, GRO)");
  const ifaces: [string, string][] = [];
  for (const n of nodes) {
    const ns = nsName(lab, n.name);
    for (const port of n.ports) ifaces.push([ns, `eth${port}`]);
    if (n.kind === NodeKind.Host) ifaces.push([ns, HOST_NIC_IF], [ns, HOST_KERNEL_IF]);
  }
  await parallel(ifaces, 8, async ([ns, iface]) => {
    await execa("ip", ["netns", "exec", ns, "ethtool", ...offloadsOffArgs(iface)], { reject: false });
  });
}

/** A host's kernel interface set-up from its wire port's address. */
function hostStackOf(addr: PortAddress, mtu: number): HostStackSetup {
  return {
    kernelIf: HOST_KERNEL_IF,
    nicIf: HOST_NIC_IF,
    mac: macToString(addr.mac),
    mtu,
    ip: ipToString(addr.ip),
    prefixLength: addr.prefixLength,
    gateway: ipToString(addr.peerIp),
  };
}

/** Namespaces that look like ours (rl-*), optionally only those of one lab. */
export async function listNamespaces(lab?: string): Promise<string[]> {
  const { stdout } = await execa("ip", ["netns", "list"], { reject: false });
  const names = stdout
    .split("\n")
    .map((l) => l.split(" ")[0]!)
    .filter((n) => n.startsWith(NS_PREFIX));
  if (lab === undefined) return names;
  return names.filter((n) => n.startsWith(`${NS_PREFIX}${lab}-`));
}

/**
 * Processes that belong to a lab. Lab processes set their title to `rocelab-<lab>-<role>` (which is what
 * /proc/<pid>/cmdline then shows); before that, their command line carries `--lab <lab>` and a rocelab
 * entry point.
 */
export function findLabProcesses(lab?: string): { pid: number; lab: string; cmdline: string }[] {
  const out: { pid: number; lab: string; cmdline: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    let owner: string | undefined;
    const titled = /^rocelab-([a-z][a-z0-9]*)-\S+$/.exec(args[0]!.trim());
    if (titled) owner = titled[1]!;
    else if (args.some((a) => /(device-main|supervisor-main|udp-tool)\.js$/.test(a))) {
      const i = args.indexOf("--lab");
      if (i >= 0 && i + 1 < args.length) owner = args[i + 1]!;
    }
    if (owner === undefined) continue;
    if (lab !== undefined && owner !== lab) continue;
    out.push({ pid, lab: owner, cmdline: args.join(" ").trim() });
  }
  return out;
}

async function waitGone(pids: readonly number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter(alive);
  }
  return left;
}

export interface TeardownResult {
  readonly killed: number;
  readonly namespaces: number;
}

/**
 * Removes everything of `lab`: its processes (TERM, then KILL), its namespaces (which takes their veths
 * with them) and its state directory. Works from the state file and from the naming marks, so it also
 * cleans up after a crash or a SIGKILL of every lab process. `keepLogs` (an abnormal end): the lab's logs
 * are moved to keptLogDir first, so that what went wrong can still be read (processes still writing
 * write on into the kept files).
 */
export async function teardown(
  lab: string,
  progress: Progress = () => {},
  opts: { readonly keepLogs?: boolean } = {},
): Promise<TeardownResult> {
  if (opts.keepLogs) keepLogs(lab, progress);
  const state = readState(lab);
  if (state?.attached !== undefined) return detach(lab, state.supervisorPid, progress);
  const pids = new Set<number>();
  if (state?.supervisorPid) pids.add(state.supervisorPid);
  for (const d of Object.values(state?.devices ?? {})) if (d.pid) pids.add(d.pid);
  for (const h of state?.helpers ?? []) if (h.pid) pids.add(h.pid);
  for (const p of findLabProcesses(lab)) pids.add(p.pid);
  // Only signal processes that are really ours: a recorded pid may have been reused.
  const ours = new Set(findLabProcesses(lab).map((p) => p.pid));
  const targets = [...pids].filter((pid) => ours.has(pid) && alive(pid));
  if (targets.length > 0) progress(`stopping ${targets.length} processes`);
  for (const pid of targets) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {}
  }
  const stubborn = await waitGone(targets, 2000);
  for (const pid of stubborn) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  await waitGone(stubborn, 2000);
  const namespaces = new Set([...(state?.namespaces ?? []), ...(await listNamespaces(lab))]);
  // Exact lab match: rl-foo- must not take rl-foobar-'s namespaces.
  const mine = [...namespaces].filter((ns) => labOfNamespace(ns, [lab]) === lab);
  if (mine.length > 0) progress(`deleting ${mine.length} namespaces`);
  if (mine.length > 0)
    await ipBatch(mine.map((ns) => `netns delete ${ns}`)).catch(async () => {
      // One failure (already gone) must not stop the others.
      for (const ns of mine) await execa("ip", ["netns", "delete", ns], { reject: false });
    });
  rmSync(labDir(lab), { recursive: true, force: true });
  removeNetnsHosts(lab);
  await sweep(lab, progress);
  return { killed: targets.length, namespaces: mine.length };
}

/**
 * A last look after the teardown: on a loaded machine a process can outlive the waits above, or one
 * still shutting down can write into the state directory after it went. KILL whatever of the lab is left
 * and delete it again, until nothing is (three rounds at most).
 */
async function sweep(lab: string, progress: Progress): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const pids = findLabProcesses(lab)
      .map((p) => p.pid)
      .filter(alive);
    const namespaces = (await listNamespaces(lab)).filter((ns) => labOfNamespace(ns, [lab]) === lab);
    if (pids.length === 0 && namespaces.length === 0 && !existsSync(labDir(lab))) return;
    progress(`${pids.length} processes and ${namespaces.length} namespaces were still there: removing them`);
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    await waitGone(pids, 5000);
    for (const ns of namespaces) await execa("ip", ["netns", "delete", ns], { reject: false });
    rmSync(labDir(lab), { recursive: true, force: true });
    removeNetnsHosts(lab);
  }
}

/**
 * An attached lab (`rocelab attach`) owns no namespace and no device: only its own process (titled
 * rocelab-<lab>-attach) and its state directory go.
 */
async function detach(lab: string, pid: number | null, progress: Progress): Promise<TeardownResult> {
  const ours = findLabProcesses(lab).some(
    (p) => p.pid === pid && p.cmdline.startsWith(`rocelab-${lab}-attach`),
  );
  let killed = 0;
  if (pid !== null && ours && alive(pid)) {
    progress("stopping the attachment (the devices run on)");
    try {
      process.kill(pid, "SIGTERM");
      killed = 1;
    } catch {}
    const left = await waitGone([pid], 2000);
    for (const p of left) {
      try {
        process.kill(p, "SIGKILL");
      } catch {}
    }
  }
  rmSync(labDir(lab), { recursive: true, force: true });
  return { killed, namespaces: 0 };
}

/** Moves the lab's logs to keptLogDir (replacing what an earlier abnormal end kept there). */
export function keepLogs(lab: string, progress: Progress = () => {}): void {
  const dir = labDir(lab);
  if (!existsSync(dir)) return;
  const logs = readdirSync(dir).filter((f) => f.endsWith(".log"));
  if (logs.length === 0) return;
  const kept = keptLogDir(lab);
  rmSync(kept, { recursive: true, force: true });
  mkdirSync(kept, { mode: 0o700 });
  for (const f of logs) renameSync(join(dir, f), join(kept, f));
  progress(
    `the lab's logs are kept in ${kept}/ (until the next \`rocelab up --name ${lab}\` or \`rocelab down --purge\`)`,
  );
}

/** Removes the logs kept after an abnormal end of `lab`; whether there were any. */
export function purgeKeptLogs(lab: string): boolean {
  const kept = keptLogDir(lab);
  if (!existsSync(kept)) return false;
  rmSync(kept, { recursive: true, force: true });
  return true;
}

/** Every lab that left a mark: state directories, namespaces, processes. */
export async function findAllLabs(): Promise<string[]> {
  const labs = new Set(listLabDirs());
  for (const p of findLabProcesses()) labs.add(p.lab);
  for (const d of netnsEtcDirs()) {
    const lab = labOfNamespace(basename(d), [...labs]);
    if (lab) labs.add(lab);
  }
  for (const ns of await listNamespaces()) {
    const lab = labOfNamespace(ns, [...labs]);
    if (lab) labs.add(lab);
  }
  return [...labs].sort();
}

/**
 * A real fabric has its neighbours resolved long before traffic: every host's kernel pings its leaf once,
 * and the leaf learns the host from that ARP. Otherwise the first lossless packets towards a host whose NIC
 * came up after the leaf's ARP retries ran out wait for ARP and overflow its queue (drop_arp_unresolved),
 * a drop no network would make.
 *
 * Then the kernel's entry for its leaf is made permanent (the address plan knows the leaf's MAC): the
 * kernel (on host0, behind the NIC, which carries its frames) would otherwise re-validate it whenever it
 * goes stale, 15–45 real seconds later, and an ARP request and reply in the middle of a run take wire time
 * on the host's link (84 bytes at 100 Gb/s: 6.7 ns) that the simulator's run does not have, shifting every
 * later frame (seen: h1's and h8's kernels asking for their leaf 22 and 28 µs into a run).
 */
export async function resolveNeighbours(lab: string, topo: Topology, plan: AddressPlan): Promise<void> {
  const hosts = topo.nodes.filter((n) => n.kind === NodeKind.Host);
  await Promise.all(
    hosts.map(async (h) => {
      const addr = hostAddress(plan, h.name);
      const gateway = ipToString(addr.peerIp);
      const ns = nsName(lab, h.name);
      await execa("ip", ["netns", "exec", ns, "ping", "-c", "1", "-W", "2", gateway], { reject: false });
      const mac = macToString(addr.peerMac);
      const dev = HOST_KERNEL_IF;
      const r = await execa(
        "ip",
        [
          "netns",
          "exec",
          ns,
          "ip",
          "neigh",
          "replace",
          gateway,
          "lladdr",
          mac,
          "dev",
          dev,
          "nud",
          "permanent",
        ],
        { reject: false },
      );
      if (r.exitCode !== 0)
        throw new Error(
          `cannot pin ${h.name}'s ARP entry for its leaf ${gateway} (${mac} on ${dev}): ${r.stderr.trim()}`,
        );
    }),
  );
}
