// What the switch reports: its DeviceStats (kind "switch"). Everything it has is in the counter tables
// (device, per port, per queue); features with tables (LLDP, path navigation) add a detail object.

import type { DeviceStatsBase } from "../device/contract.js";
import type { PathEntry } from "../lb/path-table.js";
import type { LldpTable } from "./control/lldp.js";
import type { ElephantFlow } from "./features/elephant.js";
import type { FlowPathEntry } from "./features/flow-paths.js";
import type { VtepState } from "./features/vxlan-overlay.js";

/** What feature modules add to a switch's stats beyond counters (absent when they have nothing). */
export interface SwitchDetail {
  /** The LLDP agent's identity, ports and neighbour table (when LLDP is on). */
  readonly lldp?: LldpTable;
  /** Path-navigation entries installed (network mode). */
  readonly pathTable?: readonly PathEntry[];
  /** Egress ports of each RoCEv2 flow, with packets and bytes per port (flow paths). */
  readonly flowPaths?: readonly FlowPathEntry[];
  /** The elephant identification table: each flow with its bytes and class (elephant/mice). */
  readonly elephants?: readonly ElephantFlow[];
  /** This switch as a VXLAN VTEP: its address, VNI and per-tunnel counters. */
  readonly vtep?: VtepState;
}

/** A switch's stats(). */
export interface SwitchStats extends DeviceStatsBase {
  readonly kind: "switch";
  readonly detail?: SwitchDetail;
}
