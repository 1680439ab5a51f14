// The LLDP agent of a switch (IEEE 802.1AB-2016): on every up port it sends an LLDPDU every transmit
// interval (and at once when a port comes up), and it keeps a neighbour table from what it receives — one
// entry per port, forgotten when its TTL runs out, when the neighbour sends TTL 0 (shutdown), or when the
// port loses carrier. Each LLDPDU carries chassis ID (the switch's MAC, subtype 4), port ID (the
// interface name, subtype 5), TTL, port description, system name and the port's IPv4 management address,
// which is what a controller needs to rebuild the fabric and its next-hop addresses from the tables alone.

import type { Nanoseconds } from "../../device/contract.js";
import type { Ipv4Address, MacAddress } from "../../wire/bytes.js";
import { ETHERNET_HEADER_LENGTH } from "../../wire/ethernet.js";
import { ChassisIdSubtype, type Lldpdu, PortIdSubtype, parseLldp } from "../../wire/lldp.js";
import { buildLldpFrame } from "../../wire/lldp-frame.js";
import type { SwitchPort } from "../port.js";

const NS_PER_S = 1e9;

/** One neighbour, as `lldpctl` shows it: what the peer said about itself in its last LLDPDU. */
export interface LldpNeighbour {
  /** Our port it was heard on. */
  readonly port: number;
  readonly portName: string;
  /** The peer's chassis ID, as text (a MAC aa:bb:.. or the locally assigned string). */
  readonly chassisId: string;
  readonly systemName: string | null;
  /** The peer's port ID, as text (its interface name). */
  readonly portId: string;
  /** The peer port's IPv4 management address (the next hop to reach it), or null. */
  readonly managementIp: Ipv4Address | null;
  readonly ttlSeconds: number;
  /** Emulated ns: when it was last heard, and when it is forgotten unless heard again. */
  readonly lastHeardNs: Nanoseconds;
  readonly expiresNs: Nanoseconds;
}

/** One of our own ports, as a controller reading the table needs it (addresses, carrier). */
export interface LldpLocalPort {
  readonly port: number;
  readonly name: string;
  readonly ip: Ipv4Address;
  readonly prefixLength: number;
  readonly up: boolean;
}

/** What `rocelab stats` shows and a controller reads: the switch's identity, ports and neighbours. */
export interface LldpTable {
  readonly systemName: string;
  readonly chassisId: string;
  readonly ports: readonly LldpLocalPort[];
  readonly neighbours: readonly LldpNeighbour[];
}

export function macText(mac: MacAddress): string {
  return mac
    .toString(16)
    .padStart(12, "0")
    .replace(/(..)(?!$)/g, "$1:");
}

function hex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

function chassisText(d: Lldpdu): string {
  const c = d.chassisId;
  if (c.subtype === ChassisIdSubtype.MacAddress) return macText(c.mac);
  if (c.subtype === ChassisIdSubtype.Local) return c.id;
  return hex(c.value);
}

function portText(d: Lldpdu): string {
  const p = d.portId;
  if (p.subtype === PortIdSubtype.InterfaceName) return p.name;
  if (p.subtype === PortIdSubtype.Local) return p.id;
  if (p.subtype === PortIdSubtype.MacAddress) return macText(p.mac);
  return hex(p.value);
}

export class LldpAgent {
  private readonly neighbours = new Map<number, LldpNeighbour>();
  private frames = new Map<number, Uint8Array>();
  /** The chassis MAC: the lowest port MAC (switches use their base MAC). */
  readonly chassisMac: MacAddress;

  constructor(
    readonly systemName: string,
    private readonly ports: readonly SwitchPort[],
  ) {
    this.chassisMac = Math.min(...ports.map((p) => p.cfg.mac));
  }

  /** Builds each port's LLDPDU for a TTL of `ttlSeconds` (the content is constant between changes). */
  prepare(ttlSeconds: number): void {
    this.frames = new Map();
    for (const ps of this.ports) {
      this.frames.set(
        ps.port,
        buildLldpFrame({
          src: ps.cfg.mac,
          chassisId: { subtype: ChassisIdSubtype.MacAddress, mac: this.chassisMac },
          portId: { subtype: PortIdSubtype.InterfaceName, name: ps.cfg.name },
          ttl: ttlSeconds,
          portDescription: ps.cfg.name,
          systemName: this.systemName,
          managementAddress: ps.cfg.ip,
        }),
      );
    }
  }

  /** Sends the port's LLDPDU (if the port is up); true when it went to the wire's control queue. */
  send(ps: SwitchPort, now: Nanoseconds): boolean {
    const frame = this.frames.get(ps.port);
    return frame !== undefined && ps.sendControlFrame(frame, now);
  }

  /** An LLDP frame arrived on `ps`: false when it does not parse (the caller counts it). */
  receive(ps: SwitchPort, frame: Uint8Array, now: Nanoseconds): boolean {
    const parsed = parseLldp(frame, ETHERNET_HEADER_LENGTH);
    if (!parsed.ok) return false;
    const d = parsed.value;
    if (d.ttl === 0) {
      this.neighbours.delete(ps.port);
      return true;
    }
    const mgmt = d.managementAddresses.find((m) => m.ipv4 !== null);
    this.neighbours.set(ps.port, {
      port: ps.port,
      portName: ps.cfg.name,
      chassisId: chassisText(d),
      systemName: d.systemName,
      portId: portText(d),
      managementIp: mgmt?.ipv4 ?? null,
      ttlSeconds: d.ttl,
      lastHeardNs: now,
      expiresNs: now + d.ttl * NS_PER_S,
    });
    return true;
  }

  /** Carrier lost on `port`: its neighbour is gone (802.1AB: the port's remote entries are deleted). */
  forgetPort(port: number): void {
    this.neighbours.delete(port);
  }

  forgetAll(): void {
    this.neighbours.clear();
  }

  /** Drops entries whose TTL ran out; returns how many. */
  age(now: Nanoseconds): number {
    let n = 0;
    for (const [port, e] of this.neighbours) {
      if (e.expiresNs <= now) {
        this.neighbours.delete(port);
        n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.neighbours.size;
  }

  table(now: Nanoseconds): LldpTable {
    this.age(now);
    return {
      systemName: this.systemName,
      chassisId: macText(this.chassisMac),
      ports: this.ports.map((ps) => ({
        port: ps.port,
        name: ps.cfg.name,
        ip: ps.cfg.ip,
        prefixLength: ps.cfg.prefixLength,
        up: ps.up,
      })),
      neighbours: [...this.neighbours.values()].sort((a, b) => a.port - b.port),
    };
  }
}
