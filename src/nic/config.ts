// NIC configuration: the NIC's place in the fabric (its port, gateway, path MTU, whether a host stack
// shares its port) and one resolved section per feature module (features/registry.ts), whose names are the
// names users write under `hosts:`. resolve-config.ts turns what a caller gives into the fully resolved NicConfig
// a NIC runs with.

import type { BitsPerSecond, Nanoseconds } from "../device/contract.js";
import type { Ipv4Address, MacAddress } from "../wire/bytes.js";

export interface NicPortConfig {
  readonly mac: MacAddress;
  readonly ip: Ipv4Address;
  readonly rateBps: BitsPerSecond;
  /** One-way propagation delay of the attached link (for display; the runtime applies it). */
  readonly delayNs: Nanoseconds;
}

/**
 * Everything that can be changed at run time: one resolved section per feature module, under the module's
 * key. Each module adds its own section here (`declare module "../config.js"` in its file), so this file
 * depends on no feature; features/registry.ts checks at compile time that the sections are exactly those
 * of the registered modules.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the feature modules fill it in (see above)
export interface NicTunables {}

/** A fully resolved NIC configuration. */
export interface NicConfig extends NicTunables {
  readonly name: string;
  readonly port: NicPortConfig;
  /** MAC every frame is sent to: the leaf port, or the peer NIC on a back-to-back link. */
  readonly gatewayMac: MacAddress;
  /** RoCE path MTU: payload bytes per packet. */
  readonly mtu: number;
  /** Answer ARP requests for our address (the simulator; in the live lab the host kernel answers). */
  readonly answerArp: boolean;
  /**
   * Port 2 is the host's own IP stack (the live lab's kernel): everything on the wire that is not RoCE for
   * us goes up to it, and what it sends goes out on the wire between our own frames, as a real RDMA NIC
   * shares its port between the RDMA engine and the host's network driver.
   */
  readonly hostPort: boolean;
  /** The fabric's largest base RTT between two hosts, ns (scenario/fabric-rtt.ts; 0: not known). */
  readonly fabricRttNs: number;
  /** The NIC's layer-2 domain for RoCEv1 (transport/frames-v1.ts): its VLAN and peers; null: none known. */
  readonly rocev1: RoceV1Config | null;
}

/** The RoCEv1 side of a NIC: its VLAN and the hosts of its bridge domain. */
export interface RoceV1Config {
  /** VID of the frames (the bridge domain's), 1..4094. */
  readonly vlan: number;
  /** Hosts reachable at layer 2: their IP (the QP's peer address) and MAC. */
  readonly peers: readonly { readonly ip: Ipv4Address; readonly mac: MacAddress }[];
}
