// The metrics of a simulated fabric's devices, read in this process (a live lab asks each device process
// for the same DeviceMetrics).

import { dumpRegistry } from "../../device/counter-dump.js";
import type { DeviceMetricsEntry } from "../../metrics/families.js";
import type { Nic } from "../../nic/nic.js";
import { DROP_REASONS as NIC_DROP_REASONS } from "../../nic/nic-ids.js";
import { DROP_REASONS as SWITCH_DROP_REASONS } from "../../switch/drops.js";
import type { SimFabric } from "./sim-fabric.js";

/** Every switch's and NIC's metrics at `now`, in topology order. */
export function simDeviceMetrics(
  fabric: SimFabric,
  nics: ReadonlyMap<string, Nic>,
  now: number,
): DeviceMetricsEntry[] {
  const out: DeviceMetricsEntry[] = [];
  for (const n of fabric.topo.nodes) {
    const sw = fabric.switches.get(n.name);
    if (sw !== undefined) {
      const registry = dumpRegistry(sw.counters, now, SWITCH_DROP_REASONS);
      out.push({ node: n.name, kind: "switch", ports: n.ports, metrics: { now, registry, qps: [] } });
      continue;
    }
    const nic = nics.get(n.name);
    if (nic === undefined) continue;
    const registry = dumpRegistry(nic.counters, now, NIC_DROP_REASONS);
    const metrics = { now, registry, qps: nic.stats(now).detail.qps };
    out.push({ node: n.name, kind: "nic", ports: n.ports, metrics });
  }
  return out;
}
