// A device's counters since a time: what a live run's report holds, so that it counts what happened from
// the scenario's time 0 on, as the simulator's does (the simulator has no time before 0). A live lab's
// devices run long before the scenario starts (bring-up: the switches' ARP for their neighbours, the host
// kernels' ping and ARP through their NICs, LACP and LLDP where they are on), and those frames are in
// their counters. The device reads its tables at time 0 (a baseline, device-host.ts) and the report
// takes every counter's difference from it (runtime/realtime/protocol.ts StatsBaseline); levels (gauges: buffer in use, a watermark, a threshold)
// stay as read at the end.

import type { Counters } from "../device/contract.js";
import type { StatsBaseline } from "../runtime/realtime/protocol.js";
import type { AnyDeviceStats } from "./device-stats.js";

function since(end: Counters, base: Counters | undefined, levels: ReadonlySet<string>): Counters {
  if (base === undefined) return end;
  const out: Counters = {};
  for (const [k, v] of Object.entries(end)) out[k] = levels.has(k) ? v : v - (base[k] ?? 0);
  return out;
}

/** `end`'s counters minus `base`'s (device, per port by name, per queue by number); levels as in `end`. */
export function statsSince<S extends AnyDeviceStats>(
  end: S,
  base: Pick<StatsBaseline, "stats" | "levels">,
): S {
  const levels = new Set(base.levels);
  const b = base.stats;
  const basePorts = new Map(b.ports.map((p) => [p.name, p]));
  return {
    ...end,
    counters: since(end.counters, b.counters, levels),
    ports: end.ports.map((p) => {
      const bp = basePorts.get(p.name);
      const counters = since(p.counters, bp?.counters, levels);
      if (p.queues === undefined) return { ...p, counters };
      const bq = new Map((bp?.queues ?? []).map((q) => [q.queue, q.counters]));
      return {
        ...p,
        counters,
        queues: p.queues.map((q) => ({ ...q, counters: since(q.counters, bq.get(q.queue), levels) })),
      };
    }),
  };
}
