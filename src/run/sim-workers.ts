// How many worker threads a simulator run takes (`rocelab run --workers auto`, the default): one per core
// where splitting the fabric pays, one elsewhere. Measured on 2 cores (docs/parallel-sim.md, "How many
// workers"): the k = 8 fat tree (128 hosts) under its 10 ms of web-search traffic ran 1.14–2.22× faster on
// 2 workers than on 1, while every smaller fabric measured ran slower (the k = 6 fat tree, 54 hosts,
// 0.74–0.82×; the 64:1 incast, 65 hosts on one switch, 0.80×; the 96 experiments with goldens, at most
// 17 hosts, 0.35–0.83×), and so does a large fabric with little to carry (the workers' start costs more
// than the split saves). So a split needs MIN_HOSTS_PER_WORKER hosts a worker and MIN_OFFERED_BYTES on
// the timeline to carry, and a run that a split cannot carry exactly (parallelRefusal) stays on one.

import { createRandom } from "../device/prng.js";
import { workloadStream } from "../lab/timeline.js";
import { generateFlows } from "../nic/workloads.js";
import type { Scenario } from "../scenario/scenario.js";
import { hosts } from "../scenario/topology.js";
import { type ParallelAsks, parallelRefusal } from "./sim-parallel.js";

/** Hosts each worker needs before a split is chosen: the k = 8 fat tree's 128 on 2 workers, 64 each. */
export const MIN_HOSTS_PER_WORKER = 64;

/**
 * Bytes the timeline must carry (offeredBytes) before a split is chosen. On the k = 8 fat tree's web-search
 * mix (2 cores, 2026-12-07) 2 workers ran at 0.79× the speed of 1 for 1 ms (317 MiB), 1.00× for 2 ms
 * (787 MiB), 1.45× for 5 ms (2,072 MiB) and 1.57× for 10 ms: below about 1 GiB the workers' start (a cold
 * V8 isolate each, each building its share of the fabric) and windows too light to pay for their barrier
 * cost more than the split saves.
 */
export const MIN_OFFERED_BYTES = 2 ** 30;

export type WorkersOption = number | "auto";

/** `--workers`: a whole number >= 1 or `auto`; a message naming what is allowed otherwise. */
export function parseWorkersOption(v: string): WorkersOption {
  if (v === "auto") return "auto";
  if (!/^[1-9]\d*$/.test(v)) throw new Error(`--workers takes auto or a whole number >= 1, not "${v}"`);
  return Number(v);
}

export interface WorkersChoice {
  readonly workers: number;
  /** Why this many, for one line on standard error. */
  readonly why: string;
}

/** What the rule gives a scenario on an idle machine: a split (its size), or one worker and why. */
export type SplitPlan =
  | (WorkersChoice & { readonly workers: 1 })
  | { readonly workers: number; readonly hosts: number; readonly offered: number };

/**
 * The workers `auto` gives `sc` on a machine of `cpus` cores of which other jobs keep `load` busy: those
 * are not counted (a worker that shares its core makes every other wait for it at each window's end:
 * docs/parallel-sim.md).
 */
export function autoWorkers(sc: Scenario, cpus: number, asks: ParallelAsks = {}, load = 0): WorkersChoice {
  return onMachine(splitPlan(sc, cpus, asks), cpus, load);
}

/** The rule without the machine's load: the cheap questions first, the bytes to carry last. */
export function splitPlan(sc: Scenario, cpus: number, asks: ParallelAsks = {}): SplitPlan {
  if (cpus < 2) return { workers: 1, why: "one core" };
  const n = hosts(sc.topology).length;
  const byHosts = Math.floor(n / MIN_HOSTS_PER_WORKER);
  if (byHosts < 2)
    return {
      workers: 1,
      why: `${n} hosts: a split pays from ${2 * MIN_HOSTS_PER_WORKER} (docs/parallel-sim.md)`,
    };
  const refusal = parallelRefusal(sc, asks);
  if (refusal !== null) return { workers: 1, why: `not split: ${refusal.split(":")[0]}` };
  const offered = offeredBytes(sc);
  if (offered < MIN_OFFERED_BYTES)
    return {
      workers: 1,
      why: `${mib(offered)} MiB to carry: a split pays from ${mib(MIN_OFFERED_BYTES)} (docs/parallel-sim.md)`,
    };
  return { workers: Math.min(cpus, byHosts), hosts: n, offered };
}

/** A plan on a machine whose other jobs keep `load` of its `cpus` cores busy. */
export function onMachine(plan: SplitPlan, cpus: number, load: number): WorkersChoice {
  if ("why" in plan) return plan;
  const free = cpus - Math.round(load);
  if (free < 2) return { workers: 1, why: `${load.toFixed(1)} of ${cpus} cores busy` };
  return {
    workers: Math.min(plan.workers, free),
    why: `${plan.hosts} hosts, ${mib(plan.offered)} MiB to carry, ${free} of ${cpus} cores free (--workers 1 for one thread)`,
  };
}

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

/**
 * The bytes the timeline can carry before the run ends, an estimate of the run's work known before it
 * starts: the RDMA messages of its `start` steps (the same generator and random stream as the run), each
 * host sending at most its link's rate from its first message to the end and receiving at most its link's
 * rate likewise (so an N-to-1 incast counts one link's worth), and each UDP stream at its rate.
 */
export function offeredBytes(sc: Scenario): number {
  const rate = new Map<string, number>();
  for (const l of sc.topology.links)
    for (const end of [l.a.node, l.b.node]) rate.set(end, Math.max(rate.get(end) ?? 0, l.rateBps));
  const sent = new Ends();
  const received = new Ends();
  let udp = 0;
  let id = 0;
  const nextId = (): number => id++;
  for (const { atNs, action: a } of sc.timeline) {
    if (a.kind === "start") {
      const random = createRandom(sc.seed, a.stream ?? workloadStream(a.workload.name));
      for (const f of generateFlows(a.workload, a.at ?? atNs, random, nextId)) {
        if (f.atNs >= sc.durationNs) continue;
        sent.add(f.src, f.bytes, f.atNs);
        received.add(f.dst, f.bytes, f.atNs);
      }
    } else if (a.kind === "udp") {
      const ns = Math.min(a.durationNs ?? Number.POSITIVE_INFINITY, sc.durationNs - atNs);
      udp += Math.max(0, (a.rateBps * ns) / 8e9);
    }
  }
  const capped = (e: Ends): number => {
    let total = 0;
    for (const [host, { bytes, fromNs }] of e.byHost)
      total += Math.min(bytes, ((sc.durationNs - fromNs) * (rate.get(host) ?? 0)) / 8e9);
    return total;
  };
  return Math.min(capped(sent), capped(received)) + udp;
}

/** Bytes per host and the time of its first message. */
class Ends {
  readonly byHost = new Map<string, { bytes: number; fromNs: number }>();
  add(host: string, bytes: number, atNs: number): void {
    const e = this.byHost.get(host);
    if (e === undefined) this.byHost.set(host, { bytes, fromNs: atNs });
    else {
      e.bytes += bytes;
      e.fromNs = Math.min(e.fromNs, atNs);
    }
  }
}
