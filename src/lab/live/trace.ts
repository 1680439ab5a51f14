// Tracing a RoCE 5-tuple's path through a live lab's ECMP: TTL-limited UDP 4791 probes sent from the
// source host's namespace (the trace tool, main/trace-tool.ts), answered by the switches with ICMP
// time-exceeded, each answer's address named by the lab's address plan; and every workload QP's path,
// probed with the source port its NIC uses now.

import { execa } from "execa";
import { hostAddress, planAddresses } from "../../scenario/address-plan.js";
import { NodeKind, type Topology } from "../../scenario/topology.js";
import { ipToString, parseIp } from "../../wire/bytes.js";
import type { AnyDeviceStats } from "../device-stats.js";
import { probeRoundTrips, withFrameTimes } from "./frame-times.js";
import type { LiveLab } from "./live-lab.js";
import { nsName } from "./names.js";
import { entryPath } from "./paths.js";

const TRACE_TOOL = entryPath("main/trace-tool.js");

export interface TraceHop {
  readonly ttl: number;
  readonly from: string | null;
  /** The switch port that answered, from the lab's address plan. */
  readonly port: string | null;
  readonly rttMs: number | null;
  /**
   * The round trip in the emulated network: from the probe leaving the source's NIC port to the answer
   * arriving there, as the NIC stamped them (null: not recorded).
   */
  readonly rttEmulatedNs: number | null;
}

/** The path of one 5-tuple from `src` to `dst` with UDP source port `sport`; throws naming a bad argument. */
export async function trace(
  lab: LiveLab,
  topo: Topology,
  src: string,
  dst: string,
  sport: number,
): Promise<TraceHop[]> {
  const plan = planAddresses(topo);
  for (const h of [src, dst]) {
    if (!topo.nodes.some((n) => n.name === h && n.kind === NodeKind.Host))
      throw new Error(`${h} is not a host of lab ${lab.name}`);
  }
  if (!(sport >= 1 && sport <= 65535)) throw new Error(`UDP source port ${sport} is not 1-65535`);
  const wire = topo.links.find((l) => l.a.node === src || l.b.node === src);
  const port = wire === undefined ? 1 : wire.a.node === src ? wire.a.port : wire.b.port;
  const run = () =>
    execa("ip", [
      "netns",
      "exec",
      nsName(lab.name, src),
      process.execPath,
      TRACE_TOOL,
      "--lab",
      lab.name,
      "--src",
      ipToString(hostAddress(plan, src).ip),
      "--dst",
      ipToString(hostAddress(plan, dst).ip),
      "--sport",
      String(sport),
    ]);
  const { result: done, frames } = await withFrameTimes(lab, src, port, run);
  const emulated = probeRoundTrips(frames);
  const stdout = done.stdout;
  const result = JSON.parse(stdout) as { hops: { ttl: number; from: string | null; rttMs: number | null }[] };
  const owner = new Map<number, string>();
  for (const p of plan.ports.values()) owner.set(p.ip, `${p.node}:eth${p.port}`);
  return result.hops.map((h) => ({
    ...h,
    rttEmulatedNs: h.from === null ? null : (emulated.get(h.ttl) ?? null),
    port: h.from === null ? null : (owner.get(parseIp(h.from) ?? 0) ?? null),
  }));
}

export interface FlowPath {
  readonly src: string;
  readonly dst: string;
  readonly qpn: number;
  readonly udpSrcPort: number;
  /** The switches the probes of this QP's 5-tuple crossed, in order. */
  readonly switches: readonly string[];
  readonly hops: readonly TraceHop[];
}

/** Every workload QP's path: the lab's flows, each QP's source port from its NIC, probed like `trace`. */
export async function traceFlows(lab: LiveLab, topo: Topology): Promise<FlowPath[]> {
  const flows = await lab.request<{ src: string; dst: string; qp: number }[]>("flows");
  const seen = new Set<string>();
  const out: FlowPath[] = [];
  for (const f of flows) {
    const key = `${f.src}#${f.qp}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const r = await lab.request<{ stats: AnyDeviceStats }>("stats", { node: f.src });
    const qp = r.stats.kind === "nic" ? r.stats.detail.qps.find((q) => q.qpn === f.qp) : undefined;
    if (qp === undefined) continue;
    const hops = await trace(lab, topo, f.src, f.dst, qp.udpSrcPort);
    const switches = hops.flatMap((h) => (h.port === null ? [] : [h.port.split(":")[0]!]));
    out.push({ src: f.src, dst: f.dst, qpn: f.qp, udpSrcPort: qp.udpSrcPort, switches, hops });
  }
  return out;
}
