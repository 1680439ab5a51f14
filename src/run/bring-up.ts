// A scenario's bring-up in the simulator. A live lab's devices run long before the scenario's time 0: the
// switches ask their neighbours' MACs (ARP), LACP groups agree, LLDP is heard, and a report counts from time
// 0 on (lab/stats-since.ts). The simulator does the same: its devices start `bringUpNs` before time 0, so
// that the bring-up is over when the first flow starts and its frames are neither on the wire beside the
// first packets nor in the report. At time 0, before anything else of that nanosecond, every device's
// tables are read as a baseline (and its high-water marks restart), as a live device reads its own
// (runtime/realtime/device-host.ts readAt). What happened before 0 is in no report, event log, capture or
// series; a device restarted during the run starts its tables then, in both runtimes.

import type { Device } from "../device/contract.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import { statsSince } from "../lab/stats-since.js";
import { takeBaseline } from "../runtime/device-tables.js";
import type { StatsBaseline } from "../runtime/realtime/protocol.js";
import type { Topology } from "../scenario/topology.js";

/** At least one ARP retry interval (switch/control/arp.ts), so that an unanswered first request is repeated. */
export const MIN_BRING_UP_NS = 100_000;

/** How long before time 0 the devices start: 100 µs, or 20 one-way delays of the longest link. */
export function bringUpNs(topo: Topology): number {
  let longest = 0;
  for (const l of topo.links) longest = Math.max(longest, l.delayNs);
  return Math.max(MIN_BRING_UP_NS, Math.ceil((20 * longest) / 1000) * 1000);
}

/** The baselines read at time 0, by device name. */
export class TimeZeroBaselines {
  private readonly taken = new Map<string, { device: Device; baseline: StatsBaseline }>();

  /** Reads `devices`' tables now (time 0). */
  take(devices: Iterable<[string, Device]>, now: number): void {
    for (const [name, device] of devices)
      this.taken.set(name, { device, baseline: takeBaseline(device, now, now, false) });
  }

  /**
   * `s` (a device's stats at the end) counted from time 0; whole when its device was replaced since (a
   * restart: a new device, whose tables start at its start).
   */
  since<S extends AnyDeviceStats>(s: S, device: Device): S {
    const t = this.taken.get(s.name);
    return t === undefined || t.device !== device ? s : statsSince(s, t.baseline);
  }
}
