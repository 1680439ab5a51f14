// The guard of `rocelab up` and `run --runtime live`: a lab the machine cannot carry is refused before
// anything is created (unless --force), saying by how much and what to change. The lint rule
// topology-too-large (rules-machine.ts) warns when a lab needs more than half the CPUs — where timing
// starts to suffer; this guard refuses when it needs more than the whole machine, in CPU or in memory.

import { NodeKind, type Topology } from "../scenario/topology.js";
import { CORES_PER_BUSY_LINK_DIRECTION_AT_D1, IDLE_CORES_PER_PROCESS } from "./rules-machine.js";

const MiB = 1024 * 1024;
/**
 * Memory of one device process beyond its rings: docs/performance.md (lab-idle) measured 326–328 MiB PSS
 * for the default lab's 13 processes, of which its 24 port rings hold 60 MB; PSS counts shared pages (the
 * Node binary, the bundle) once, so the sum is what the lab occupies.
 */
export const BYTES_PER_PROCESS = 20 * MiB;
/** Each port's ring holds 0.2 s of real time at the link's rate / dilation (2.5 MB at 100 Gb/s, D = 1000). */
const RING_REAL_SECONDS = 0.2;
/** A switch's routes: about 3.4 MB per 1,024 /32 host routes (docs/performance.md, fat-tree run). */
const ROUTE_BYTES_PER_HOST = 3.4e6 / 1024;
/** Share of the available memory a lab may take (the kernel, page cache and the user's tools need the rest). */
const USABLE_MEMORY_FRACTION = 0.8;

export interface MachineNow {
  readonly cpus: number;
  /** Memory available now (MemAvailable: os.freemem() on Linux), bytes. */
  readonly availableBytes: number;
}

export interface FitEstimate {
  readonly processes: number;
  /** Cores with every link busy at the dilation. */
  readonly cores: number;
  readonly memoryBytes: number;
  /** Each a sentence: what does not fit, by how much, what to change. Empty: the lab fits. */
  readonly problems: readonly string[];
}

const gib = (b: number) => `${(b / 1024 ** 3).toFixed(1)} GiB`;

/** `auto`: the lab raises its dilation itself, so only the CPU of idle processes can be known too much. */
export function machineFit(topo: Topology, dilation: number, auto: boolean, m: MachineNow): FitEstimate {
  const processes = topo.nodes.length + 1; // the devices and the supervisor
  const hosts = topo.nodes.filter((n) => n.kind === NodeKind.Host).length;
  const switches = topo.nodes.filter((n) => n.kind !== NodeKind.Host).length;
  const idle = processes * IDLE_CORES_PER_PROCESS;
  let busyAtD1 = 0;
  let ringBytes = 0;
  for (const l of topo.links) {
    busyAtD1 += 2 * CORES_PER_BUSY_LINK_DIRECTION_AT_D1 * (l.rateBps / 100e9);
    ringBytes += (2 * RING_REAL_SECONDS * l.rateBps) / dilation / 8;
  }
  const cores = idle + (auto ? 0 : busyAtD1 / dilation);
  const memoryBytes = processes * BYTES_PER_PROCESS + ringBytes + switches * hosts * ROUTE_BYTES_PER_HOST;
  const problems: string[] = [];
  const what = `${topo.nodes.length} devices (${hosts} hosts) and ${topo.links.length} links`;
  if (cores > m.cpus) {
    const needD = Math.ceil(busyAtD1 / Math.max(m.cpus - idle, 1e-9));
    problems.push(
      `${what} need about ${cores.toFixed(1)} cores ${auto ? "even idle" : `at dilation ${dilation} with every link busy`}, ` +
        `${(cores / m.cpus).toFixed(1)}× the ${m.cpus} CPUs of this machine: ` +
        (m.cpus > idle && !auto
          ? `raise --dilation to ${needD} or more, or use a smaller topology`
          : "use a smaller topology (its processes alone need more CPU than the machine has)"),
    );
  }
  const usable = m.availableBytes * USABLE_MEMORY_FRACTION;
  if (memoryBytes > usable)
    problems.push(
      `${what} need about ${gib(memoryBytes)} of memory (${processes} processes × ~${BYTES_PER_PROCESS / MiB} MiB, ` +
        `${gib(ringBytes)} of port rings), ${(memoryBytes / usable).toFixed(1)}× the ${gib(usable)} a lab may take ` +
        `of the ${gib(m.availableBytes)} available: use a smaller topology or free memory` +
        (ringBytes > memoryBytes / 4 ? " (a higher --dilation also shrinks the rings)" : ""),
    );
  return { processes, cores, memoryBytes, problems };
}
