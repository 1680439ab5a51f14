// The device entrypoint's set-up of the namespace it runs in (a container's, or one a test made): what
// provisioning does for each namespace of a local lab (interface-setup.ts), for this device alone. The
// engine that started the container (containerlab, Kubernetes with clabernetes or meshnet) creates the
// links — veth pairs, VXLAN tunnels — often after the container has started, so the ports are waited for.
// Idempotent: a restarted container keeps its network namespace.

import { execa } from "execa";
import type { DeviceFile } from "./device-file.js";
import {
  hostStackCommands,
  hostSysctls,
  noIpv6Sysctls,
  offloadsOffArgs,
  portCommand,
} from "./interface-setup.js";

/** VXLAN's encapsulation: outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 bytes (RFC 7348 section 5). */
export const VXLAN_OVERHEAD = 50;
const POLL_MS = 200;

/** The namespace is not what the device file needs (a missing port, an MTU, read-only sysctls). */
export class PrepareError extends Error {}

interface IpLink {
  readonly ifname: string;
  readonly mtu: number;
  readonly max_mtu?: number;
  readonly linkinfo?: { readonly info_kind?: string };
}

async function links(): Promise<IpLink[]> {
  const { stdout } = await execa("ip", ["-j", "-d", "link", "show"]);
  return JSON.parse(stdout) as IpLink[];
}

/** Waits until every interface in `names` exists; the error lists what is there. */
export async function waitForInterfaces(
  node: string,
  names: readonly string[],
  waitMs: number,
  log: (line: string) => void,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    const present = new Set((await links()).map((l) => l.ifname));
    const missing = names.filter((n) => !present.has(n));
    if (missing.length === 0) return;
    if (Date.now() >= deadline)
      throw new PrepareError(
        `${missing.join(", ")} did not appear within ${waitMs / 1000} s (interfaces here: ${[...present].join(", ")}): ` +
          `the engine must connect every link of ${node} to the interface its device file names`,
      );
    if (!told) log(`waiting for ${missing.join(", ")} (the engine connects the links)`);
    told = true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Why `ifname` refused `mtu`; for a VXLAN interface, what its underlay needs. */
async function mtuProblem(ifname: string, mtu: number): Promise<string> {
  const l = (await links()).find((x) => x.ifname === ifname);
  const fix = "raise it, or lower the topology's mtu (interface MTU = path MTU + 128)";
  if (l?.linkinfo?.info_kind === "vxlan")
    return `${ifname} cannot take MTU ${mtu}: it is a VXLAN interface, which carries ${VXLAN_OVERHEAD} bytes less than its underlay, so the underlay needs an MTU of at least ${mtu + VXLAN_OVERHEAD}; ${fix}`;
  const max = l?.max_mtu ?? 0;
  return `${ifname} cannot take MTU ${mtu}${max > 0 ? ` (its largest is ${max})` : ""}; ${fix}`;
}

async function ip(args: readonly string[], input?: string): Promise<void> {
  await execa("ip", args, input === undefined ? {} : { input });
}

/** Sets up the device's ports and (a NIC) its host stack in the current namespace. */
export async function prepareInterfaces(
  f: DeviceFile,
  waitMs: number,
  log: (line: string) => void,
): Promise<void> {
  const h = f.hostStack;
  const wire = f.ports.filter((p) => p.ifname !== h?.nicIf);
  await waitForInterfaces(
    f.node,
    wire.map((p) => p.ifname),
    waitMs,
    log,
  );
  await ip(["link", "set", "lo", "up"]);
  for (const p of wire) {
    const cmd =
      p.mac !== undefined ? portCommand(p.ifname, p.mac, f.mtu) : `link set ${p.ifname} mtu ${f.mtu} up`;
    await ip(cmd.split(" ")).catch(async (e: Error) => {
      throw new PrepareError(
        /mtu|invalid argument/i.test(e.message) ? await mtuProblem(p.ifname, f.mtu) : e.message,
      );
    });
  }
  const ifnames = f.ports.map((p) => p.ifname);
  if (h) {
    const present = new Set((await links()).map((l) => l.ifname));
    if (!present.has(h.nicIf)) await ip(["link", "add", h.nicIf, "type", "veth", "peer", "name", h.kernelIf]);
    const cmds = hostStackCommands({ ...h, mtu: f.mtu }, "replace");
    for (const r of h.routes) cmds.push(`route replace ${r} via ${h.gateway} dev ${h.kernelIf}`);
    // A container's default route belongs to its management network; a bare namespace gets the leaf's.
    const { stdout } = await execa("ip", ["-j", "route", "show", "default"]);
    if ((JSON.parse(stdout || "[]") as unknown[]).length === 0)
      cmds.push(`route add default via ${h.gateway} dev ${h.kernelIf}`);
    await ip(["-batch", "-"], `${cmds.join("\n")}\n`);
    ifnames.push(h.kernelIf);
  }
  const sysctls = noIpv6Sysctls(ifnames);
  if (h) sysctls.push(...hostSysctls(wire[0]!.ifname, h.nicIf));
  const r = await execa("sysctl", ["-q", "-w", ...sysctls], { reject: false });
  if (r.exitCode !== 0)
    throw new PrepareError(
      `cannot set ${sysctls.join(" ")} (${r.stderr.trim()}): the device needs a writable /proc/sys in its namespace (a privileged container)`,
    );
  for (const i of ifnames) await execa("ethtool", offloadsOffArgs(i), { reject: false });
  log(`interfaces ready: ${ifnames.join(", ")} (MTU ${f.mtu}, offloads off)`);
}
