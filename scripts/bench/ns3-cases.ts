// The cases `sim-vs-ns3 --buffers … --cc …` runs in both simulators: an N-to-1 incast through one switch
// and a k = 4 fat tree under the web-search mix, each as a rocelab scenario and as HPCC's ns-3 input, with
// a shared-buffer size, congestion control (DCQCN as HPCC's run.py sets it up, or off) and rocelab's MMU
// accounting (`buffer.mmu`). Both simulators get the same flows: the fat tree's are drawn here, once per
// seed, and written to both.
//
// What differs on the wire, and how it is evened out: HPCC's data packet is 1,048 bytes for 1,000 of
// payload (no Ethernet framing, no gap), and ns-3 truncates its transmission time to whole nanoseconds
// (DataRate::CalculateTxTime through Seconds(): 83.84 ns at 100 Gb/s becomes 83); ours is a RoCEv2 frame
// of 1,024 bytes of payload (the 1024-byte path MTU) and 58 of headers, plus FCS, preamble and inter-frame
// gap: 1,106 bytes, 88.48 ns (HPCC and TIMELY add INT bytes in both: ns3-cc.ts). An incast sender here
// therefore writes wireScale(cc) × its ns-3 bytes, so both keep the bottleneck busy for the same time; slowdowns divide each simulator's FCT by its own ideal
// (HPCC's "standalone FCT", and ours built the same way from our framing).

import { createRandom } from "../../src/device/prng.js";
import { type FlowSpec, generateFlows, SIZE_DISTRIBUTIONS } from "../../src/nic/workloads.js";
import { flowIdealFctNs } from "../../src/report/ideal-fct.js";
import { runScenarioSim, type SimRunOptions } from "../../src/run/run-sim.js";
import { fatTreeTopology } from "../../src/scenario/fat-tree.js";
import { resolveScenario, type Scenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { hpccNs3HeadroomBytes, type MmuMode } from "../../src/switch/mmu.js";
import type { Ns3Flow, Ns3Input } from "./hpcc-ns3.js";
import { PauseLog } from "./hpcc-ns3-output.js";
import { byteScale, type CcMode, ccHostSettings, ccLabel, ccSwitchSettings, wireScale } from "./ns3-cc.js";

export type { CcMode } from "./ns3-cc.js";

/**
 * Where ACKs travel. "data" (HPCC's run.py setup): on the data priority through the switches. "high": in a
 * strict class of their own (our DSCP 48), for comparison with an HPCC build whose switches honour
 * ACK_HIGH_PRIO (SwitchNode's AckHighPrio set; docs/fidelity.md).
 */
export type AckClass = "data" | "high";

/**
 * Wire time per payload byte, HPCC's data packet over ours without INT: (83 ns / 1000) / (1106 × 0.08 ns /
 * 1024). HPCC and TIMELY carry INT bytes in both simulators: `wireScale(cc)` (ns3-cc.ts).
 */
export const WIRE_SCALE = wireScale("dcqcn");

/**
 * Buffer bytes per ns of wire, ours over HPCC's: 1,082 bytes of frame in the buffer for 88.48 ns of wire
 * against HPCC's 1,048 for 83 ns (0.9685). With `--byte-scale` every byte-denominated switch setting (buffer,
 * reserve, HPCC's headroom, resume offset, Kmin, Kmax) is multiplied by it (with INT bytes: byteScale(cc),
 * ns3-cc.ts), so that each holds the same wire time in both simulators (docs/fidelity.md). Off by default:
 * the same bytes in both, as configured.
 */
export const BYTE_SCALE = byteScale("dcqcn");

/**
 * `--same-packets` (DCQCN or none, incasts): our packet made HPCC's, to tell its unit from the model. Links
 * at 1,106 × 8 / 83 Gb/s so a frame takes HPCC's 83 ns, 1,000 packets of 1,024 bytes per sender, DCQCN's
 * floor and steps × `rate` (HPCC's 1,048-byte gaps in ours), byte settings × `bytes` (as many packets).
 */
export const SAME_PACKETS = { linkBps: 106_602_409_639, rate: (1106 * 8) / 8384, bytes: 1082 / 1048 };

/** One comparison: a topology and workload, a buffer, congestion control on or off. */
export type FidelityCase =
  | {
      readonly kind: "incast";
      readonly senders: number;
      readonly bufferMiB: number;
      readonly cc: CcMode;
      readonly samePackets?: boolean;
      readonly hpccWindow?: HpccWindow;
    }
  | {
      readonly kind: "fat-tree";
      readonly bufferMiB: number;
      readonly cc: CcMode;
      readonly load: number;
      /** Flows arrive in [0, arrivalsNs); the run stops at stopNs (both simulators). */
      readonly arrivalsNs: number;
      readonly stopNs: number;
      readonly hpccWindow?: HpccWindow;
    };

/** `--hpcc-window`: HPCC's window in payload bytes, maxBdp as ns-3's (the default), or in ns-3's wire time. */
export type HpccWindow = "bdp" | "wire";

export function caseName(c: FidelityCase): string {
  const window =
    c.kind === "fat-tree" && (c.arrivalsNs !== FAT_TREE_ARRIVALS_NS || c.stopNs !== FAT_TREE_DURATION_NS)
      ? `, arrivals ${c.arrivalsNs / 1e6} ms, stop ${c.stopNs / 1e6} ms`
      : "";
  const what =
    c.kind === "incast" ? `${c.senders}:1 incast` : `fat tree, web search ${c.load * 100} %${window}`;
  const same = c.kind === "incast" && c.samePackets === true ? ", HPCC's packet" : "";
  const win = c.cc === "hpcc" && c.hpccWindow === "wire" ? ", window in wire time" : "";
  return `${what}, ${c.bufferMiB} MiB, ${ccLabel(c.cc)}${same}${win}`;
}

/** Bytes each incast sender writes in HPCC's run. */
export const INCAST_BYTES = 1_000_000;
/** The fat tree: k = 4 (16 hosts, 20 switches); by default arrivals for 10 ms and a 60 ms run. */
const FAT_TREE_K = 4;
export const FAT_TREE_ARRIVALS_NS = 10_000_000;
export const FAT_TREE_DURATION_NS = 60_000_000;
/** Links on the fat tree's longest path (host, edge, aggregation, core, aggregation, edge, host). */
const FAT_TREE_MAX_HOPS = 6;

/** A flow as both simulators report it: its payload, its FCT (null: it never completed), its ideal FCT. */
export interface FlowOutcome {
  readonly bytes: number;
  readonly fctNs: number | null;
  readonly idealNs: number;
}

/** One run's outcome, in the terms both simulators can give. */
export interface RunOutcome {
  readonly flows: readonly FlowOutcome[];
  /** Largest egress queue on any switch, bytes (its arriving packet included). */
  readonly queuePeakBytes: number;
  /** XOFF assertions by switches (HPCC sends each once; our refreshes of a held pause are not counted). */
  readonly pauses: number;
  /** Pauses of at least 20, 40 and 80 µs (LONG_PAUSE_NS). Absent in runs saved before it. */
  readonly longPauses?: readonly number[];
  readonly cnps: number;
  /** Packets of the lossless class the switches dropped. */
  readonly drops: number;
  /** Data packets of the completed flows (the CNP fraction's denominator). */
  readonly dataPackets: number;
  readonly cpuMs: number;
}

export interface Built {
  readonly scenario: Scenario;
  readonly cc: CcMode;
  readonly ns3: Ns3Input;
  /**
   * `--scale-flows`: the size each fat-tree flow has in HPCC's input, by workload name, where ours sends
   * WIRE_SCALE × it. Slowdowns are bucketed by this size and divided by the ideal FCT of what was sent.
   */
  readonly unscaled?: ReadonlyMap<string, number>;
}

/**
 * `--ecmp ALG`: the hash every switch of ours spreads flows with (the `ecmp` feature's `algorithm`); absent,
 * the default (CRC-32). HPCC's ns-3 keeps its own (SwitchNode::EcmpHash); which flows share a fabric port
 * differs between the simulators with any choice, and the choice shows how far placement moves a figure.
 */
export const ECMP_ALGORITHMS = ["crc16", "crc32", "xor32", "toeplitz"] as const;
export type EcmpAlgorithm = (typeof ECMP_ALGORITHMS)[number];

function switchSettings(
  c: FidelityCase,
  mmu: MmuMode,
  byteScale: number,
  ecmp?: EcmpAlgorithm,
): Record<string, unknown> {
  const size = c.bufferMiB * 1024 * 1024;
  // HPCC's values in HPCC's bytes (switch-mmu.cc, third.cc, run.py), each scaled to ours.
  const r = (bytes: number): number => Math.round(bytes * byteScale);
  const cc = { ...ccSwitchSettings(c.cc, r), ...(ecmp !== undefined ? { ecmp: { algorithm: ecmp } } : {}) };
  if (byteScale === 1) return { buffer: { size, ...(mmu === "default" ? {} : { mmu }) }, ...cc };
  return {
    ...cc,
    buffer: {
      size: r(size),
      reserve: r(4096),
      // The default accounting's automatic headroom is already sized from our own frames.
      ...(mmu === "default" ? {} : { mmu, headroom: r(hpccNs3HeadroomBytes(100e9, 1000)) }),
    },
    pfc: { resumeOffset: r(3072) },
  };
}

/**
 * HPCC's hosts: the congestion control as run.py sets it up (ns3-cc.ts) and an ACK per packet. ACKs stay on the data priority
 * (our default `ackDscp`): ACK_HIGH_PRIO 1 only moves them to the NICs' high-priority queue; third.cc never
 * sets SwitchNode's AckHighPrio, so HPCC's switches queue them by their header's pg, with the data.
 */
function hostSettings(c: FidelityCase, acks: AckClass): Record<string, unknown> {
  return {
    ...ccHostSettings(c.cc, c.kind === "incast" ? 2 : FAT_TREE_MAX_HOPS, c.hpccWindow === "wire"),
    transport: { ackReqEvery: 1 },
    ...(acks === "high" ? { qos: { ackDscp: 48 } } : {}),
  };
}

function parse(input: Record<string, unknown>): Scenario {
  return resolveScenario(scenarioFile.parse(input), String(input.name), null);
}

/**
 * The case as a rocelab scenario (seed `seed`, MMU `mmu`, our byte settings × `byteScale`) and as HPCC's
 * input (trace on its switches).
 */
export function buildCase(
  c: FidelityCase,
  mmu: MmuMode,
  seed: number,
  acks: AckClass = "data",
  byteScale = 1,
  scaleFlows = false,
  perturbNs = 0,
  ecmp?: EcmpAlgorithm,
): Built {
  return c.kind === "incast"
    ? buildIncast(c, mmu, seed, acks, byteScale, perturbNs)
    : buildFatTree(c, mmu, seed, acks, byteScale, scaleFlows, perturbNs, ecmp);
}

function buildIncast(
  c: Extract<FidelityCase, { kind: "incast" }>,
  mmu: MmuMode,
  seed: number,
  acks: AckClass,
  byteScale: number,
  perturbNs: number,
): Built {
  const n = c.senders;
  const same = c.samePackets === true;
  const k = SAME_PACKETS.rate;
  const dcqcn = {
    profile: "hpcc-ns3",
    minRate: Math.round(1e9 * k),
    rai: Math.round(20e6 * k),
    rhai: Math.round(200e6 * k),
  };
  const hosts = Array.from({ length: n + 1 }, (_, i) => `h${i + 1}`);
  const nodes: Record<string, { kind: "host" | "switch" }> = { sw: { kind: "switch" } };
  for (const h of hosts) nodes[h] = { kind: "host" };
  const durationNs = Math.ceil(((2 * n * INCAST_BYTES * 8) / 100e9) * 1e9) + 200_000;
  const scenario = parse({
    name: `ns3-incast-${n}to1`,
    seed,
    duration: `${durationNs}ns`,
    sample: "1ms",
    topology: {
      name: `star-${n + 1}`,
      defaults: {
        link: { rate: same ? String(SAME_PACKETS.linkBps) : "100G", delay: "1us" },
        mtu: 1024,
        switch: switchSettings(c, mmu, same ? SAME_PACKETS.bytes : byteScale),
      },
      nodes,
      links: hosts.map((h, i) => [`${h}:eth1`, `sw:eth${i + 1}`]),
    },
    overrides: { hosts: { ...hostSettings(c, acks), ...(same && c.cc === "dcqcn" ? { dcqcn } : {}) } },
    // `--perturb-starts`: the odd senders (h2, h4, …) start that many ns after the others.
    timeline: (perturbNs === 0
      ? [hosts.slice(0, n)]
      : [0, 1].map((r) => hosts.slice(0, n).filter((_, i) => i % 2 === r))
    ).map((from, r) => ({
      at: `${r * perturbNs}ns`,
      start: {
        type: "incast",
        ...(perturbNs === 0 ? {} : { name: r === 0 ? "even" : "odd" }),
        to: hosts[n],
        from: perturbNs === 0 ? n : from,
        size: `${same ? 1000 * 1024 : Math.round(INCAST_BYTES * wireScale(c.cc))}B`,
      },
    })),
  });
  // HPCC's node 0 is the switch, 1 the receiver, 2.. the senders.
  const ns3: Ns3Input = {
    nodes: n + 2,
    switches: [0],
    links: Array.from({ length: n + 1 }, (_, i) => [0, i + 1] as const),
    flows: Array.from({ length: n }, (_, i) => ({ src: i + 2, dst: 1, bytes: INCAST_BYTES, startNs: 0 })),
    bufferMiB: c.bufferMiB,
    cc: c.cc,
    trace: [0],
    stopS: durationNs / 1e9,
  };
  return { scenario, cc: c.cc, ns3 };
}

/** The fat tree's flows for `seed`: Poisson web-search arrivals at `load` from every host, uniform peers. */
export function fatTreeFlows(
  hosts: readonly string[],
  load: number,
  seed: number,
  arrivalsNs = FAT_TREE_ARRIVALS_NS,
): FlowSpec[] {
  let id = 0;
  const flows = generateFlows(
    {
      type: "mix",
      name: "websearch",
      op: "write",
      qps: 1,
      repeat: 1,
      intervalNs: 0,
      hosts,
      load,
      linkRateBps: 100e9,
      durationNs: arrivalsNs,
      sizes: SIZE_DISTRIBUTIONS.websearch!,
    },
    0,
    createRandom(seed, "sim-vs-ns3-fat-tree"),
    () => ++id,
  );
  return flows.sort((a, b) => a.atNs - b.atNs || a.id - b.id);
}

function buildFatTree(
  c: Extract<FidelityCase, { kind: "fat-tree" }>,
  mmu: MmuMode,
  seed: number,
  acks: AckClass,
  byteScale: number,
  scaleFlows: boolean,
  perturbNs: number,
  ecmp: EcmpAlgorithm | undefined,
): Built {
  const topo = fatTreeTopology({ k: FAT_TREE_K, mtu: 1024 });
  const names = Object.keys(topo.nodes);
  const hosts = names.filter((n) => topo.nodes[n]!.kind === "host");
  const switches = names.filter((n) => topo.nodes[n]!.kind === "switch");
  // HPCC's ids: the hosts first, in order, then the switches.
  const id = new Map([...hosts, ...switches].map((n, i) => [n, i]));
  const node = (end: string): string => end.split(":")[0]!;
  // fatTreeTopology writes every link as a pair of ends.
  const ends = topo.links.map((l) => (Array.isArray(l) ? l : l.endpoints));
  const links = ends.map(([a, b]) => [id.get(node(a))!, id.get(node(b))!] as const);
  const flows = fatTreeFlows(hosts, c.load, seed, c.arrivalsNs);
  // `--scale-flows`: each of our flows takes the wire time of its bytes in HPCC's run (the incasts always do).
  const sent = (bytes: number): number =>
    scaleFlows ? Math.max(1, Math.round(bytes * wireScale(c.cc))) : bytes;
  const scenario = parse({
    name: "ns3-fat-tree-websearch",
    seed,
    duration: `${c.stopNs}ns`,
    sample: "1ms",
    topology: {
      ...topo,
      defaults: { ...topo.defaults, switch: switchSettings(c, mmu, byteScale, ecmp) },
    },
    overrides: { hosts: hostSettings(c, acks) },
    // `--perturb-starts`: every other flow a few ns late, to measure how far such a change moves a figure.
    timeline: flows.map((f) => ({
      at: `${f.atNs + (f.id % 2 === 1 ? perturbNs : 0)}ns`,
      start: {
        type: "flow",
        name: `f${f.id}`,
        from: f.src,
        to: f.dst,
        size: `${sent(f.bytes)}B`,
        qpPerMessage: true,
      },
    })),
  });
  const ns3Flows: Ns3Flow[] = flows.map((f) => ({
    src: id.get(f.src)!,
    dst: id.get(f.dst)!,
    bytes: f.bytes,
    startNs: f.atNs,
  }));
  const ns3: Ns3Input = {
    nodes: names.length,
    switches: switches.map((s) => id.get(s)!),
    links,
    flows: ns3Flows,
    bufferMiB: c.bufferMiB,
    cc: c.cc,
    // Every switch traced, for the queue peak (hpcc-ns3-output.ts reads the trace a chunk at a time).
    trace: switches.map((s) => id.get(s)!),
    stopS: c.stopNs / 1e9,
  };
  const unscaled = scaleFlows ? new Map(flows.map((f) => [`f${f.id}`, f.bytes])) : undefined;
  return { scenario, cc: c.cc, ns3, ...(unscaled !== undefined ? { unscaled } : {}) };
}

/** Runs the case's rocelab scenario and reads its outcome. */
export function runOurs(built: Built, opts: SimRunOptions = {}): RunOutcome {
  const pauses = new PauseLog();
  const cpu = process.cpuUsage();
  const { report } = runScenarioSim(built.scenario, { ...opts, onEvent: (e) => pauses.onEvent(e) });
  const used = process.cpuUsage(cpu);
  // Each simulator's FCT over its own ideal: ours from the scenario's topology and our framing, as HPCC's
  // ns-3 builds its standalone FCT (src/report/ideal-fct.ts).
  const ideal = flowIdealFctNs(built.scenario.topology);
  // Data packets of the completed flows (1,024 bytes of payload each, the last one shorter).
  let dataPackets = 0;
  for (const f of report.flows) if (f.fctNs !== null) dataPackets += Math.ceil(f.bytes / 1024);
  return {
    flows: report.flows.map((f) => ({
      bytes: built.unscaled?.get(f.workload) ?? f.bytes,
      fctNs: f.fctNs,
      idealNs: ideal(f) ?? Number.NaN,
    })),
    queuePeakBytes: report.summary.queuePeakBytes,
    pauses: pauses.pauses,
    longPauses: pauses.counts,
    // HPCC flags the ACK of every CE-marked packet (the CNP of its DCQCN, the ECN echo of the others); our
    // DCQCN profile sends a CNP for each too, the other algorithms read a CE echo in the ACK: count the marks.
    cnps: built.cc === "dcqcn" || built.cc === "off" ? report.summary.cnpSent : report.summary.ecnMarked,
    drops: report.summary.drops.lossless,
    dataPackets,
    cpuMs: (used.user + used.system) / 1000,
  };
}
