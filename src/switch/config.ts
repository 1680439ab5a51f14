// Switch configuration: every knob, its unit and its default. The lab validates user input and hands
// the switch a fully resolved SwitchConfig; docs/switch.md documents the same table.

import type { BitsPerSecond, Nanoseconds } from "../device/contract.js";
import type { Ipv4Address, MacAddress } from "../wire/bytes.js";

export const PRIORITIES = 8;
export const DSCP_VALUES = 64;

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
  /** Who is on the other end, for display and neighbour discovery. */
  readonly peer: { readonly node: string; readonly port: number; readonly kind: "switch" | "host" } | null;
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

export interface QosConfig {
  /** Trusted DSCP -> 802.1p priority, 64 entries. */
  readonly dscpToPriority: readonly number[];
  /** Priority -> egress queue, 8 entries (default identity). The ingress priority group is the priority. */
  readonly priorityToQueue: readonly number[];
  /** Priority of frames without an IP header (ARP, LLDP) and of packets the switch originates. */
  readonly controlPriority: number;
  /** Priorities that are lossless: PFC-protected when PFC is enabled, counted as lossless drops. */
  readonly lossless: readonly number[];
  /** Queues served by strict priority, highest queue number first, before any DWRR queue. */
  readonly strictQueues: readonly number[];
  /** DWRR weights of the 8 queues (strict queues ignore theirs). */
  readonly dwrrWeights: readonly number[];
  /** DWRR quantum per unit of weight, bytes. */
  readonly dwrrQuantumBytes: number;
}

export interface BufferConfig {
  /** Total shared-memory buffer, bytes. */
  readonly sizeBytes: number;
  /** Guaranteed bytes per (ingress port, priority group). */
  readonly reserveBytes: number;
  /** Dynamic-threshold α for lossy queues: a queue may hold α × (free shared buffer). */
  readonly lossyAlpha: number;
  /** PFC headroom per (port, lossless priority group), bytes; "auto" sizes it from the link (see mmu.ts). */
  readonly headroomBytes: number | "auto";
}

export type XoffThreshold =
  /** XOFF when the PG's shared use reaches α × (free shared buffer) (Choudhury-Hahne DT, as in HPCC's MMU). */
  | { readonly mode: "dynamic"; readonly alpha: number }
  /** XOFF when the PG's use reaches a fixed number of bytes (the vendor "xoff-threshold"). */
  | { readonly mode: "static"; readonly bytes: number };

export interface PfcConfig {
  readonly enabled: boolean;
  readonly xoff: XoffThreshold;
  /** XON when use falls this far below the XOFF threshold (and headroom is empty), bytes. */
  readonly resumeOffsetBytes: number;
  /** Pause time carried by XOFF frames, quanta of 512 bit times (0xffff: the longest). */
  readonly pauseQuanta: number;
  /** XOFF is re-sent after this fraction of the pause time while still congested (0 < f < 1). */
  readonly refreshFraction: number;
  /** Extra reaction time added to the automatic headroom (slow peers, live-runtime jitter), ns. */
  readonly headroomSlackNs: Nanoseconds;
}

export interface EcnQueueConfig {
  readonly kminBytes: number;
  readonly kmaxBytes: number;
  /** Marking probability at Kmax (0..1); above Kmax every ECT packet is marked. */
  readonly pmax: number;
}

export interface EcnConfig {
  /** WRED/ECN per egress queue; queues without an entry are tail-drop only. */
  readonly queues: Readonly<Record<number, EcnQueueConfig>>;
  /** Fast ECN: decide at dequeue (on the departing packet) instead of at enqueue. */
  readonly fast: boolean;
}

export const HashField = {
  SrcIp: "srcIp",
  DstIp: "dstIp",
  Protocol: "protocol",
  SrcPort: "srcPort",
  DstPort: "dstPort",
} as const;
export type HashField = (typeof HashField)[keyof typeof HashField];

export const HashAlgorithm = {
  Crc16: "crc16",
  Crc32: "crc32",
} as const;
export type HashAlgorithm = (typeof HashAlgorithm)[keyof typeof HashAlgorithm];

export interface EcmpConfig {
  readonly fields: readonly HashField[];
  readonly algorithm: HashAlgorithm;
  /** Per-switch seed mixed into the hash, so that tiers do not polarise. */
  readonly seed: number;
}

/** Everything that can be changed at run time (scenario `set` steps, TUI presets). */
export interface SwitchTunables {
  readonly qos: QosConfig;
  readonly buffer: BufferConfig;
  readonly pfc: PfcConfig;
  readonly ecn: EcnConfig;
  readonly ecmp: EcmpConfig;
}

export interface SwitchConfig extends SwitchTunables {
  readonly name: string;
  readonly ports: readonly PortConfig[];
  readonly routes: readonly Route[];
  /** Largest frame the fabric carries, bytes (sizes automatic headroom). */
  readonly maxFrameBytes: number;
}

/** DSCP 26 -> priority 3 (RoCE data, lossless), DSCP 48 -> priority 6 (CNP), everything else -> 0. */
export function defaultDscpMap(): number[] {
  const map = new Array<number>(DSCP_VALUES).fill(0);
  map[26] = 3;
  map[48] = 6;
  return map;
}

export function defaultTunables(hashSeed: number): SwitchTunables {
  return {
    qos: {
      dscpToPriority: defaultDscpMap(),
      priorityToQueue: [0, 1, 2, 3, 4, 5, 6, 7],
      controlPriority: 7,
      lossless: [3],
      strictQueues: [6, 7],
      dwrrWeights: [1, 1, 1, 1, 1, 1, 1, 1],
      dwrrQuantumBytes: 4224,
    },
    buffer: {
      // HPCC's ns-3 MMU uses 32 MB at 100 Gb/s (reference/switch.md §2.2).
      sizeBytes: 32 * 1024 * 1024,
      // HPCC: 4 KB reserved per (port, queue).
      reserveBytes: 4096,
      // SONiC's dynamic buffer model default (dynamic_th 0, α = 1).
      lossyAlpha: 1,
      headroomBytes: "auto",
    },
    pfc: {
      enabled: true,
      // HPCC: pfc_a_shift 3, α = 1/8.
      xoff: { mode: "dynamic", alpha: 1 / 8 },
      // HPCC: resume_offset 3 KB.
      resumeOffsetBytes: 3072,
      pauseQuanta: 0xffff,
      refreshFraction: 0.5,
      headroomSlackNs: 0,
    },
    ecn: {
      // Seed 002's "balanced" thresholds for the lossless queue (150 KB / 1500 KB); Pmax 20 % as in
      // HPCC's and ConWeave's DCQCN runs (reference/switch.md §2.5).
      queues: { 3: { kminBytes: 150_000, kmaxBytes: 1_500_000, pmax: 0.2 } },
      fast: false,
    },
    ecmp: {
      fields: [HashField.SrcIp, HashField.DstIp, HashField.Protocol, HashField.SrcPort, HashField.DstPort],
      algorithm: HashAlgorithm.Crc32,
      seed: hashSeed,
    },
  };
}
