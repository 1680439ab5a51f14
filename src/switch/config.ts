// What a switch is built from: its ports, its routes and the resolved sections of its feature modules
// (features/registry.ts lists them; each section's names, units and defaults live in its module and are
// the names users write). The lab validates user input and hands the switch a fully resolved SwitchConfig.

import type { BitsPerSecond, Nanoseconds } from "../device/contract.js";
import type { Ipv4Address, MacAddress } from "../wire/bytes.js";

export interface PortConfig {
  /** Port number; the interface is `eth<port>`. */
  readonly port: number;
  readonly name: string;
  readonly mac: MacAddress;
  /** The port's own address (an L3 routed port). */
  readonly ip: Ipv4Address;
  readonly prefixLength: number;
  readonly rateBps: BitsPerSecond;
  /** One-way propagation delay of the attached link (sizes PFC headroom). */
  readonly delayNs: Nanoseconds;
  /**
   * Who is on the other end, for display and neighbour discovery. `mac`, when the lab's address plan gives
   * it, makes the peer a known neighbour from link-up (ARP still confirms it), as in a real fabric.
   */
  readonly peer: {
    readonly node: string;
    readonly port: number;
    readonly kind: "switch" | "host";
    readonly mac?: MacAddress;
  } | null;
}

export interface NextHop {
  readonly port: number;
  /** The next router's address; 0 when the destination is on the port's own subnet (ARP for it). */
  readonly via: Ipv4Address;
}

export interface Route {
  readonly prefix: Ipv4Address;
  readonly prefixLength: number;
  readonly nextHops: readonly NextHop[];
}

/** How a link aggregation group spreads packets over its active members (docs/link-aggregation.md). */
export type LagBalance = "hash" | "lbn" | "dlb-eligibility" | "dlb-fixed" | "dlb-spray";
/** The flow fields a group hashes (the names of the ecmp section's `fields`). */
export type LagHashField = "srcIp" | "dstIp" | "protocol" | "srcPort" | "dstPort" | "destQp";

export interface LagMemberConfig {
  readonly port: number;
  /** The peer's address on this member link (each member keeps its link's /31, see the doc's departures). */
  readonly via: Ipv4Address;
}

/** One link aggregation group of this switch, as the topology's `lags` declares it (scenario/lag.ts). */
export interface LagConfig {
  readonly name: string;
  /** 1-based position in the topology's list: the LACP operational key. */
  readonly key: number;
  readonly mode: "static" | "lacp";
  /** LACP: the rate this end asks its partner to send at (fast 1 s, slow 30 s). */
  readonly rate: "fast" | "slow";
  /**
   * The group's own `hash` fields; null: the switch's `ecmp.fields` in force, so a runtime `set` of those
   * fields reaches the group too.
   */
  readonly hash: readonly LagHashField[] | null;
  /** null: the switch's `lag.balance` (H3C: the global load-sharing mode, which a group's own overrides). */
  readonly balance: LagBalance | null;
  readonly members: readonly LagMemberConfig[];
}

/**
 * Everything that can be changed at run time: one resolved section per feature module, under the module's
 * key. Each module adds its own section here (`declare module "../config.js"` in its file), so this file
 * depends on no feature; features/registry.ts checks at compile time that the sections are exactly those
 * of the registered modules.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the feature modules fill it in (see above)
export interface SwitchTunables {}

export interface SwitchConfig extends SwitchTunables {
  readonly name: string;
  readonly ports: readonly PortConfig[];
  readonly routes: readonly Route[];
  /** Link aggregation groups (absent: none). */
  readonly lags?: readonly LagConfig[];
  /** Largest frame the fabric carries, bytes (sizes automatic headroom). */
  readonly maxFrameBytes: number;
}
