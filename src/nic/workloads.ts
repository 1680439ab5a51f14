// Workload generators: turn a workload description into the flows (RDMA messages) hosts post, with start
// times and dependencies. Pure and seeded, so a scenario gives the same flows every run and in both runtimes.
// The patterns are those of H3C RoCE overview §1.5: N-to-1 incast (storage networks), permutation and
// all-to-all, ring all-reduce with synchronised bursts over few QPs (low-entropy AI training traffic), and a
// Poisson mix of mice and elephants drawn from a flow-size distribution.

import type { Random } from "../device/prng.js";
import type { QpTransportLayer } from "./features/transport.js";

export const RdmaOp = {
  Write: "write",
  Send: "send",
  Read: "read",
} as const;
export type RdmaOp = (typeof RdmaOp)[keyof typeof RdmaOp];

export interface FlowSpec {
  /** Unique across the run. */
  readonly id: number;
  /** The requester: the host that posts the work request (for READ, the data flows dst -> src). */
  readonly src: string;
  readonly dst: string;
  readonly bytes: number;
  readonly op: RdmaOp;
  /** Which of the QPs between src and dst carries it (0-based). */
  readonly qpIndex: number;
  /** Earliest post time, emulated ns. */
  readonly atNs: number;
  /** Flows that must complete before this one is posted (ring all-reduce steps). */
  readonly after: readonly number[];
  /** Name of the workload that produced it. */
  readonly workload: string;
  /** On a QP pair of its own (created for it), not the host pair's shared QPs. */
  readonly ownQp?: boolean;
  /** Its workload's QP attributes: the workload then has QP pairs of its own (not shared with others). */
  readonly transport?: QpTransportLayer;
  /** After a failed completion: re-establish its QP pair and post the message again (`onError: reconnect`). */
  readonly reconnect?: boolean;
  /** Connected with RDMA CM on the wire when work is posted (`connect: on-demand`; nic/cm-agent.ts). */
  readonly onDemand?: boolean;
}

interface Common {
  readonly name: string;
  readonly op: RdmaOp;
  /** QPs per host pair; a message is split evenly across them. */
  readonly qps: number;
  readonly repeat: number;
  readonly intervalNs: number;
  /**
   * Every message on a QP pair of its own, as HPCC's ns-3 runs each flow, instead of the host pair's `qps`
   * shared QPs (where messages between the same hosts wait for each other).
   */
  readonly qpPerMessage?: boolean;
  /**
   * Each message is posted up to this much later than its pattern says, uniformly from the workload's
   * seeded stream (0 or absent: exactly on time): hosts in a real fabric never start in the same nanosecond.
   */
  readonly startJitterNs?: number;
  /** QP attributes over the hosts' transport settings for this workload's own QPs (features/transport.ts). */
  readonly transport?: QpTransportLayer;
  /** What the application does after a failed completion (default stop; lab/flow-driver.ts). */
  readonly onError?: "stop" | "reconnect";
  /** pre (default): QPs connected before the run; on-demand: RDMA CM on the wire (nic/cm-agent.ts). */
  readonly connect?: "pre" | "on-demand";
}

export type WorkloadSpec =
  | (Common & {
      readonly type: "incast";
      readonly to: string;
      readonly from: readonly string[];
      readonly bytes: number;
    })
  | (Common & { readonly type: "flow"; readonly from: string; readonly to: string; readonly bytes: number })
  | (Common & { readonly type: "permutation"; readonly hosts: readonly string[]; readonly bytes: number })
  | (Common & { readonly type: "all-to-all"; readonly hosts: readonly string[]; readonly bytes: number })
  | (Common & {
      readonly type: "all-reduce";
      readonly hosts: readonly string[];
      /**
       * Bytes each host reduces per iteration; each ring step moves bytes / hosts. Iterations are the
       * repetitions: one starts every interval (the synchronised burst).
       */
      readonly bytes: number;
    })
  | (Common & {
      readonly type: "mix";
      readonly hosts: readonly string[];
      /** Offered load per sending host, as a fraction of its link rate. */
      readonly load: number;
      readonly linkRateBps: number;
      readonly durationNs: number;
      readonly sizes: SizeDistribution;
    });

/** A flow-size CDF: points (bytes, cumulative probability 0..1), linearly interpolated. */
export interface SizeDistribution {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
}

/**
 * Built-in distributions, as published with HPCC's traffic generator (alibaba-edu/High-Precision-Congestion-
 * Control, traffic_gen/): the DCTCP web-search distribution and Facebook's Hadoop distribution.
 */
export const SIZE_DISTRIBUTIONS: Readonly<Record<string, SizeDistribution>> = {
  websearch: {
    name: "websearch",
    points: [
      [0, 0],
      [10_000, 0.15],
      [20_000, 0.2],
      [30_000, 0.3],
      [50_000, 0.4],
      [80_000, 0.53],
      [200_000, 0.6],
      [1_000_000, 0.7],
      [2_000_000, 0.8],
      [5_000_000, 0.9],
      [10_000_000, 0.97],
      [30_000_000, 1],
    ],
  },
  hadoop: {
    name: "hadoop",
    points: [
      [0, 0],
      [100, 0.01],
      [200, 0.02],
      [300, 0.05],
      [350, 0.15],
      [400, 0.2],
      [500, 0.3],
      [600, 0.4],
      [700, 0.5],
      [1000, 0.6],
      [2000, 0.67],
      [7000, 0.7],
      [30_000, 0.72],
      [50_000, 0.82],
      [80_000, 0.87],
      [120_000, 0.9],
      [300_000, 0.95],
      [1_000_000, 0.975],
      [2_000_000, 0.99],
      [10_000_000, 1],
    ],
  },
};

/** Draws one size (>= 1 byte) from a CDF by inverse-transform sampling with linear interpolation. */
export function sampleSize(dist: SizeDistribution, u: number): number {
  const pts = dist.points;
  for (let i = 1; i < pts.length; i++) {
    const [x1, p1] = pts[i]!;
    if (u <= p1) {
      const [x0, p0] = pts[i - 1]!;
      const x = p1 > p0 ? x0 + ((u - p0) / (p1 - p0)) * (x1 - x0) : x1;
      return Math.max(1, Math.round(x));
    }
  }
  return Math.max(1, Math.round(pts[pts.length - 1]![0]));
}

/** The mean of a CDF (trapezoid over the interpolated segments), bytes. */
export function meanSize(dist: SizeDistribution): number {
  let mean = 0;
  const pts = dist.points;
  for (let i = 1; i < pts.length; i++) {
    const [x0, p0] = pts[i - 1]!;
    const [x1, p1] = pts[i]!;
    mean += ((x0 + x1) / 2) * (p1 - p0);
  }
  return mean;
}

/** Generates flows; `nextId` numbers them, `random` is the run's seeded stream for this workload. */
export function generateFlows(
  spec: WorkloadSpec,
  startNs: number,
  random: Random,
  nextId: () => number,
): FlowSpec[] {
  const flows: FlowSpec[] = [];
  /** One message of `bytes` from src to dst at `at`, split across the QPs. */
  const message = (
    src: string,
    dst: string,
    bytes: number,
    at: number,
    after: readonly number[] = [],
  ): number[] => {
    const ids: number[] = [];
    const jitter = spec.startJitterNs ?? 0;
    const postAt = jitter > 0 ? at + random.int(jitter) : at;
    const per = Math.floor(bytes / spec.qps);
    for (let q = 0; q < spec.qps; q++) {
      const part = q === spec.qps - 1 ? bytes - per * (spec.qps - 1) : per;
      if (part <= 0) continue;
      const id = nextId();
      ids.push(id);
      flows.push({
        id,
        src,
        dst,
        bytes: part,
        op: spec.op,
        qpIndex: q,
        atNs: postAt,
        after,
        workload: spec.name,
        ...(spec.qpPerMessage === true ? { ownQp: true } : {}),
        ...(spec.transport !== undefined ? { transport: spec.transport } : {}),
        ...(spec.onError === "reconnect" ? { reconnect: true } : {}),
        ...(spec.connect === "on-demand" ? { onDemand: true } : {}),
      });
    }
    return ids;
  };
  for (let r = 0; r < spec.repeat; r++) {
    const at = startNs + r * spec.intervalNs;
    switch (spec.type) {
      case "flow":
        message(spec.from, spec.to, spec.bytes, at);
        break;
      case "incast":
        for (const src of spec.from) message(src, spec.to, spec.bytes, at);
        break;
      case "permutation": {
        const perm = derangement(spec.hosts.length, random);
        for (const [i, src] of spec.hosts.entries()) message(src, spec.hosts[perm[i]!]!, spec.bytes, at);
        break;
      }
      case "all-to-all":
        for (const src of spec.hosts)
          for (const dst of spec.hosts) if (src !== dst) message(src, dst, spec.bytes, at);
        break;
      case "all-reduce": {
        // Ring all-reduce: 2(n−1) steps (reduce-scatter, then all-gather); in each step every host sends one
        // chunk to its successor, and may do so only after it received the previous step's chunk.
        const n = spec.hosts.length;
        const chunk = Math.max(1, Math.ceil(spec.bytes / n));
        let previous: number[][] = spec.hosts.map(() => []);
        for (let step = 0; step < 2 * (n - 1); step++) {
          const current: number[][] = [];
          for (let i = 0; i < n; i++) {
            const fromPredecessor = previous[(i - 1 + n) % n]!;
            current.push(message(spec.hosts[i]!, spec.hosts[(i + 1) % n]!, chunk, at, fromPredecessor));
          }
          previous = current;
        }
        break;
      }
      case "mix": {
        // Poisson arrivals per sender at rate load × linkRate / mean size; destinations uniform.
        const mean = meanSize(spec.sizes);
        const ratePerNs = (spec.load * spec.linkRateBps) / 8 / mean / 1e9;
        for (const src of spec.hosts) {
          const others = spec.hosts.filter((h) => h !== src);
          if (others.length === 0 || ratePerNs <= 0) continue;
          let t = at + random.exponential(1 / ratePerNs);
          while (t < at + spec.durationNs) {
            const dst = others[random.int(others.length)]!;
            message(src, dst, sampleSize(spec.sizes, random.next()), Math.round(t));
            t += random.exponential(1 / ratePerNs);
          }
        }
        break;
      }
    }
  }
  return flows;
}

/** A random permutation with no fixed point (nobody sends to itself), Sattolo's algorithm (a single cycle). */
export function derangement(n: number, random: Random): number[] {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = random.int(i);
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}
