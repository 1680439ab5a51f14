// What the switch reports: its DeviceStats (kind "switch"). Everything it has is in the counter tables
// (device, per port, per queue); it carries no detail object.

import type { DeviceStatsBase } from "../device/contract.js";

/** A switch's stats(). */
export interface SwitchStats extends DeviceStatsBase {
  readonly kind: "switch";
  readonly detail?: undefined;
}
