// A device's counters since a time: what a report holds, so that it counts what happened from the
// scenario's time 0 on. A lab's devices run before the scenario starts (bring-up: the switches' ARP for
// their neighbours, a live host kernel's ping through its NIC, LACP and LLDP where they are on), in both
// runtimes (the simulator's: run/bring-up.ts), and those frames are in their counters. Each device reads
// its tables at time 0 (a baseline: runtime/device-tables.ts) and the report takes every counter's
// difference from it; levels (gauges: buffer in use, a watermark, a threshold) stay as read at the end,
// high-water marks restarted at time 0.

import type { Counters } from "../device/contract.js";
import type { StatsBaseline } from "../runtime/realtime/protocol.js";
import type { AnyDeviceStats } from "./device-stats.js";

function since(end: Counters, base: Counters | undefined, levels: ReadonlySet<string>): Counters {
  if (base === undefined) return end;
  const out: Counters = {};
  for (const [k, v] of Object.entries(end)) out[k] = levels.has(k) ? v : toPicoseconds(v - (base[k] ?? 0));
  return out;
}

/**
 * A difference of fractional sums (wire time: 6.72 ns a minimum-size frame at 100 Gb/s) to 3 decimals, as
 * its last bits depend on what was summed before the baseline: the same 3,190.4 ns of wire time since time
 * 0 is 3,190.400000000018 after one bring-up and 3,190.4000000000183 after another.
 */
function toPicoseconds(x: number): number {
  return Number.isInteger(x) ? x : Math.round(x * 1000) / 1000;
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
