// Path navigation's controller logic (H3C RoCE overview §1.4.4, 路径导航), runtime-free: from the switches' LLDP
// tables (the topology), the switches' configurations (their ECMP hash settings) and the traffic matrix (one
// demand per QP of the workloads), compute one path per QP (planner.ts) and what realises it:
//   network mode — per-flow entries (source IP, destination IP, UDP source port → out-port) for every
//                  switch on each path (features/path-table.ts);
//   host mode    — a UDP source port per QP whose ECMP hash at every hop gives the path
//                  (source-ports.ts), which the NIC then uses (its set-source-port command).
// The runtimes (the simulator's scenario run, the live lab's CLI action) gather the inputs and apply the
// plan; nothing here reads a clock or talks to a device.

import type { PathEntry } from "../../lb/path-table.js";
import type { SwitchConfig } from "../../switch/config.js";
import type { LldpTable } from "../../switch/control/lldp.js";
import { FabricGraph, type Hop, type LagView } from "./fabric-graph.js";
import { assignPaths } from "./planner.js";
import { EcmpModel } from "./source-ports.js";

export const PathNavMode = { Network: "network", Host: "host" } as const;
export type PathNavMode = (typeof PathNavMode)[keyof typeof PathNavMode];

/** One QP of the traffic matrix: who talks to whom, and how big. */
export interface Demand {
  readonly src: string;
  readonly dst: string;
  readonly srcIp: number;
  readonly dstIp: number;
  /** The requester's QP and the responder's (the data packets' Dest QP). */
  readonly qpn: number;
  readonly remoteQpn: number;
  /** The source port the QP uses now. */
  readonly udpSrcPort: number;
  /** Bytes the QP carries (relative weights are what matter). */
  readonly weight: number;
}

export interface PlannedFlow {
  readonly demand: Demand;
  /** The planned path (switch, out-port) hop by hop; null when the hosts are not connected. */
  readonly path: readonly Hop[] | null;
  /** The source port the QP should use (host mode: found by search; network mode: unchanged). */
  readonly udpSrcPort: number;
}

export interface NavPlan {
  readonly mode: PathNavMode;
  readonly flows: readonly PlannedFlow[];
  /** Network mode: the full table per switch (empty lists clear old entries). */
  readonly entries: ReadonlyMap<string, readonly PathEntry[]>;
  /** Host mode: the QPs whose source port changes. */
  readonly sourcePorts: readonly {
    readonly host: string;
    readonly qpn: number;
    readonly udpSrcPort: number;
  }[];
  /** Most and mean load per loaded switch-to-switch link, as planned, in units of the largest demand. */
  readonly maxLoad: number;
  readonly meanLoad: number;
  /** Switch-to-switch links the LLDP tables show. */
  readonly links: number;
  /** Demands with no path, and (host mode) with no source port that realises the path. */
  readonly unplanned: number;
  readonly signature: string;
}

export interface PlanInput {
  readonly mode: PathNavMode;
  readonly tables: ReadonlyMap<string, LldpTable>;
  /** Each switch's aggregation groups (its stats' `lag`): a group is one hop. */
  readonly lags?: ReadonlyMap<string, readonly LagView[]>;
  readonly configs: ReadonlyMap<string, SwitchConfig>;
  readonly demands: readonly Demand[];
}

export function planPaths(input: PlanInput): NavPlan {
  const graph = new FabricGraph(input.tables, input.lags);
  const located = input.demands.map((d) => ({
    d,
    src: graph.attachment(d.srcIp),
    dst: graph.attachment(d.dstIp),
  }));
  const routable = located.filter((x) => x.src !== null && x.dst !== null);
  const candidates = routable.map((x) => graph.paths(x.src!, x.dst!));
  const withPaths = routable
    .map((x, i) => ({ ...x, candidates: candidates[i]! }))
    .filter((x) => x.candidates.length > 0);
  // Loads in units of the largest demand (a collective's flows are equal: loads count flows per link).
  const unit = Math.max(1e-9, ...withPaths.map((x) => x.d.weight));
  const assignment = assignPaths(
    withPaths.map((x) => ({ candidates: x.candidates, weight: x.d.weight / unit })),
  );
  const chosen = new Map<Demand, readonly Hop[]>();
  for (const [i, x] of withPaths.entries()) chosen.set(x.d, x.candidates[assignment.choice[i]!]!);

  const model = input.mode === PathNavMode.Host ? new EcmpModel(graph, input.configs) : null;
  let unplanned = 0;
  const flows: PlannedFlow[] = [];
  const sourcePorts: { host: string; qpn: number; udpSrcPort: number }[] = [];
  const entries = new Map<string, PathEntry[]>(graph.switches.map((s) => [s, []]));
  for (const x of located) {
    const path = chosen.get(x.d) ?? null;
    let udpSrcPort = x.d.udpSrcPort;
    if (path === null) unplanned++;
    else if (model !== null) {
      const key = { srcIp: x.d.srcIp, dstIp: x.d.dstIp, destQp: x.d.remoteQpn };
      const port = model.sourcePortFor(path, key, x.dst!, x.d.udpSrcPort);
      if (port === null) unplanned++;
      else udpSrcPort = port;
      if (port !== null && port !== x.d.udpSrcPort)
        sourcePorts.push({ host: x.d.src, qpn: x.d.qpn, udpSrcPort });
    } else {
      for (const hop of path)
        entries
          .get(hop.sw)!
          .push({ srcIp: x.d.srcIp, dstIp: x.d.dstIp, srcPort: udpSrcPort, port: hop.port });
    }
    flows.push({ demand: x.d, path, udpSrcPort });
  }
  return {
    mode: input.mode,
    flows,
    entries: input.mode === PathNavMode.Network ? entries : new Map(),
    sourcePorts,
    maxLoad: assignment.maxLoad,
    meanLoad: assignment.meanLoad,
    links: graph.linkCount,
    unplanned,
    signature: graph.signature(),
  };
}

/** "leaf1:eth5 > spine2:eth1 > leaf3:eth2": the out-ports of a path. */
export function pathText(path: readonly Hop[] | null): string {
  return path === null ? "(no path)" : path.map((h) => `${h.sw}:eth${h.port}`).join(" > ");
}
