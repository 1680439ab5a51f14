// What the switch reports: its DeviceStats (kind "switch"). Everything it has is in the counter tables
// (device, per port, per queue); features with tables (LLDP, path navigation) add a detail object.

import type { DeviceStatsBase } from "../device/contract.js";
import type { PathEntry } from "../lb/path-table.js";
import type { LldpTable } from "./control/lldp.js";
import type { LagState } from "./features/lag-state.js";

/** What feature modules add to a switch's stats beyond counters (absent when they have nothing). */
export interface SwitchDetail {
  /** The LLDP agent's identity, ports and neighbour table (when LLDP is on). */
  readonly lldp?: LldpTable;
  /** Path-navigation entries installed (network mode). */
  readonly pathTable?: readonly PathEntry[];
  /** The path table's fill and writes: its capacity, entries the last install refused, writes pending. */
  readonly pathTableState?: { readonly capacity: number; readonly refused: number; readonly pending: number };
  /** Egress ports of each RoCEv2 flow, with packets and bytes per port (flow paths). */
  readonly flowPaths?: readonly FlowPathEntry[];
  /** The elephant identification table: each flow with its bytes and class (elephant/mice). */
  readonly elephants?: readonly ElephantFlow[];
  /** This switch as a VXLAN VTEP: its address, VNI and per-tunnel counters. */
  readonly vtep?: VtepState;
  /** Link aggregation groups and their members (features/lag-state.ts). */
  readonly lag?: readonly LagState[];
}

/** A switch's stats(). */
export interface SwitchStats extends DeviceStatsBase {
  readonly kind: "switch";
  readonly detail?: SwitchDetail;
}

/** A flow of the identification table and its class (`detail.elephants` of a switch's stats). */
export interface ElephantFlow {
  readonly srcIp: number;
  readonly dstIp: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly protocol: number;
  /** RoCEv2 BTH Dest QP, -1 for other traffic. */
  readonly destQp: number;
  /** Bytes counted since the flow entered the table. */
  readonly bytes: number;
  readonly elephant: boolean;
}

/** A flow as one switch saw it (`detail.flowPaths` of its stats). */
export interface FlowPathEntry {
  readonly srcIp: number;
  readonly dstIp: number;
  /** BTH Dest QP. */
  readonly destQp: number;
  /** Its packets arrived VXLAN-encapsulated or were encapsulated here (counted under the inner flow). */
  readonly vxlan: boolean;
  /** Emulated time of its last packet, ns. */
  readonly lastNs: number;
  /** Egress ports in first-use order. */
  readonly ports: readonly FlowPortShare[];
}

/** One egress port of a flow: what the switch enqueued there. */
export interface FlowPortShare {
  readonly port: number;
  readonly packets: number;
  readonly bytes: number;
}

/** A VTEP's state in its switch's stats (`detail.vtep`). */
export interface VtepState {
  readonly vni: number;
  readonly address: number;
  /** The ECN overlay: outer CE is copied into the inner header at decapsulation. */
  readonly ecn: boolean;
  readonly hostPorts: readonly number[];
  readonly tunnels: readonly VxlanTunnel[];
}

/** One tunnel of a VTEP: to a remote VTEP, and what crossed it each way. */
export interface VxlanTunnel {
  /** The remote VTEP's address. */
  readonly remote: number;
  /** Hosts behind it. */
  readonly hosts: number;
  /** Packets (and bytes, encapsulated) this VTEP sent into the tunnel. */
  readonly encapPackets: number;
  readonly encapBytes: number;
  /** Of those, CE on the inner header, copied to the outer one (RFC 6040 §4.1). */
  readonly encapCe: number;
  /** Packets (and bytes, encapsulated) from the remote VTEP this VTEP decapsulated. */
  readonly decapPackets: number;
  readonly decapBytes: number;
  /** Of those, CE on the outer header: marked in the underlay. */
  readonly outerCe: number;
  /** Outer CE copied to the inner header (ECN overlay) / discarded (overlay off). */
  readonly ceCopied: number;
  readonly ceLost: number;
}
