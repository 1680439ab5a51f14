// Machine rules: a live lab that fits the machine at its dilation. They need the machine context (`up`,
// `run --runtime live`, `rocelab lint --dilation N`); the simulator has no such limit.

import type { ResolvedLab } from "../scenario/resolved-lab.js";
import type { Rule, RuleFinding } from "../scenario/rule.js";
import { NodeKind } from "../scenario/topology.js";

/**
 * docs/performance.md: a busy full-size 100 Gb/s link-direction costs ≈ 29.8 / D cores, an idle device
 * process ≈ 1.5 % of a core (19 % for the 13 of the default fabric), and a lab stays accurate while it
 * uses at most about half the machine's CPUs (one core of two).
 */
export const CORES_PER_BUSY_LINK_DIRECTION_AT_D1 = 29.8;
export const IDLE_CORES_PER_PROCESS = 0.19 / 13;
const USABLE_CPU_FRACTION = 0.5;

const topologyTooLarge: Rule = {
  id: "topology-too-large",
  severity: "warning",
  title: "A live lab that fits the machine's CPUs at the chosen dilation",
  explanation:
    "Each device is a process that must keep up with real time / dilation. With every link busy a lab can " +
    "need more CPU than the machine gives: processes that fall behind stall or (free clocks) lose wire " +
    "time, and the busy phases of the run then measure the machine, not the network.",
  source: "the per-link and per-process costs measured in docs/performance.md",
  check(lab: ResolvedLab): RuleFinding[] {
    const m = lab.machine;
    if (!m) return [];
    const t = lab.topology;
    const processes = t.nodes.length;
    const idle = processes * IDLE_CORES_PER_PROCESS;
    let busy = 0;
    for (const l of t.links)
      busy += (2 * CORES_PER_BUSY_LINK_DIRECTION_AT_D1 * (l.rateBps / 100e9)) / m.dilation;
    const budget = m.cpus * USABLE_CPU_FRACTION;
    if (idle + busy <= budget) return [];
    const hosts = t.nodes.filter((n) => n.kind === NodeKind.Host).length;
    const needD = Math.ceil((busy * m.dilation) / Math.max(budget - idle, 1e-9));
    return [
      {
        path: "lab",
        message:
          `${processes} devices (${hosts} hosts) and ${t.links.length} links can need ` +
          `${(idle + busy).toFixed(1)} cores at dilation ${m.dilation} with every link busy; ` +
          `this machine gives the lab about ${budget.toFixed(1)} (${m.cpus} CPUs)`,
        fix:
          budget > idle
            ? `raise --dilation to ${needD} or more, or use a smaller topology`
            : "use a smaller topology: even idle, its processes need more CPU than the machine gives",
      },
    ];
  },
};

export const MACHINE_RULES: readonly Rule[] = [topologyTooLarge];
