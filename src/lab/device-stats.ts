// The stats of any device in a lab: a discriminated union on `kind`, so the lab, the report and the TUI
// read a NIC's detail (QPs, flows, latency) after checking `kind === "nic"` instead of casting.

import type { NicStats } from "../nic/stats-types.js";
import type { SwitchStats } from "../switch/stats-types.js";

export type AnyDeviceStats = SwitchStats | NicStats;
