// Generated topologies. A k-ary fat tree (Al-Fares, Loukissas and Vahdat, "A Scalable, Commodity Data
// Center Network Architecture", SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches, (k/2)²
// core switches, k/2 hosts per edge switch — k³/4 hosts, every switch with k ports, full bisection
// bandwidth. Edge switch ports 1..k/2 go up to the pod's aggregation switches and k/2+1..k down to its
// hosts; aggregation switch ports 1..k/2 go down to the pod's edge switches and k/2+1..k up to the core;
// core switch i·(k/2)+j (0-based) meets aggregation switch i of every pod, pod p on its port p+1.

import type { z } from "zod";
import type { topologyFile } from "./schema.js";

/** A topology as users write it (units as text), ready to be printed as YAML or parsed. */
export type TopologyText = z.input<typeof topologyFile>;

export interface FatTreeOptions {
  /** Ports per switch: an even number ≥ 2. */
  readonly k: number;
  /** Link rate and delay as written in topology files (default "100G" and "1us"). */
  readonly rate?: string;
  readonly delay?: string;
  /** Path MTU of RoCE payloads (default: the topology default). */
  readonly mtu?: 256 | 512 | 1024 | 2048 | 4096;
}

/** Node names: core c1.., aggregation p1a1 (pod 1, aggregation 1), edge p1e1, hosts h1.. in edge order. */
export function fatTreeTopology(opts: FatTreeOptions): TopologyText {
  const { k } = opts;
  if (!Number.isInteger(k) || k < 2 || k % 2 !== 0 || k > 64) {
    throw new Error(`fat-tree k must be an even number from 2 to 64, got ${k}`);
  }
  const half = k / 2;
  const nodes: TopologyText["nodes"] = {};
  const links: [string, string][] = [];
  for (let c = 1; c <= half * half; c++) nodes[`c${c}`] = { kind: "switch" };
  let host = 0;
  for (let p = 1; p <= k; p++) {
    for (let a = 1; a <= half; a++) nodes[`p${p}a${a}`] = { kind: "switch" };
    for (let e = 1; e <= half; e++) nodes[`p${p}e${e}`] = { kind: "switch" };
    for (let e = 1; e <= half; e++) {
      for (let a = 1; a <= half; a++) links.push([`p${p}e${e}:eth${a}`, `p${p}a${a}:eth${e}`]);
      for (let h = 1; h <= half; h++) {
        host++;
        nodes[`h${host}`] = { kind: "host" };
        links.push([`h${host}:eth1`, `p${p}e${e}:eth${half + h}`]);
      }
    }
    for (let a = 1; a <= half; a++) {
      for (let j = 1; j <= half; j++)
        links.push([`p${p}a${a}:eth${half + j}`, `c${(a - 1) * half + j}:eth${p}`]);
    }
  }
  return {
    name: `fat-tree-k${k}`,
    description:
      `k = ${k} fat tree: ${k} pods, ${half * half} core, ${k * half} aggregation and ${k * half} edge ` +
      `switches, ${host} hosts; ${opts.rate ?? "100G"} links, ${opts.delay ?? "1us"} delay`,
    defaults: {
      link: { rate: opts.rate ?? "100G", delay: opts.delay ?? "1us" },
      ...(opts.mtu !== undefined ? { mtu: opts.mtu } : {}),
    },
    nodes,
    links,
  };
}
