// The interface set-up of one live device, as `ip -batch` commands, sysctls and ethtool arguments: used by
// provisioning for every namespace of a local lab (provision.ts) and by the device entrypoint for the
// namespace it runs in (device-prepare.ts), so both set up the very same thing.

/** A port: the address plan's MAC, the lab's MTU, up. */
export function portCommand(ifname: string, mac: string, mtu: number): string {
  return `link set ${ifname} address ${mac} mtu ${mtu} up`;
}

export interface HostStackSetup {
  /** The kernel's interface (its IP stack lives there) and the NIC's side of that veth pair. */
  readonly kernelIf: string;
  readonly nicIf: string;
  /** The wire port's MAC: to the fabric, the host has one MAC. */
  readonly mac: string;
  readonly mtu: number;
  readonly ip: string;
  readonly prefixLength: number;
  readonly gateway: string;
}

/** The host kernel's side of a NIC: MAC, MTU, its address and the route through the leaf. */
export function hostStackCommands(h: HostStackSetup, verb: "add" | "replace" = "add"): string[] {
  return [
    `link set ${h.kernelIf} address ${h.mac} mtu ${h.mtu} up`,
    `link set ${h.nicIf} mtu ${h.mtu} up`,
    `addr ${verb} ${h.ip}/${h.prefixLength} dev ${h.kernelIf}`,
  ];
}

/**
 * No IPv6 on the fabric's interfaces (router solicitations and MLD would be noise on the links).
 */
export function noIpv6Sysctls(ifnames: readonly string[] | "all"): string[] {
  if (ifnames === "all") return ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"];
  return ifnames.map((i) => `net.ipv6.conf.${i}.disable_ipv6=1`);
}

/**
 * On a host the kernel must hear the wire only through the NIC (its kernel interface): Linux accepts a
 * packet for any local address on any interface and answers ARP likewise, so without this it would also
 * answer, from the wire port itself, every ping and ARP the NIC hands up — duplicates — and every RoCE
 * packet with a port-unreachable. Strict reverse-path filtering and arp_ignore=8 make the wire port and
 * the NIC's side of the host pair deaf to the kernel.
 */
export function hostSysctls(wireIf: string, nicIf: string): string[] {
  const out: string[] = [];
  for (const iface of [wireIf, nicIf]) {
    out.push(`net.ipv4.conf.${iface}.rp_filter=1`, `net.ipv4.conf.${iface}.arp_ignore=8`);
  }
  return out;
}

/**
 * ethtool arguments that turn offloads off: kernel-made frames must leave complete (no partial
 * checksums, no super-frames), or userspace devices would see bytes a real wire never carries.
 */
export function offloadsOffArgs(ifname: string): string[] {
  return ["-K", ifname, "rx", "off", "tx", "off", "sg", "off", "tso", "off", "gso", "off", "gro", "off"];
}
