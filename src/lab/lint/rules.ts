// The lint rules: configurations that are invalid (errors) or legal but known to misbehave (warnings).
// Each rule reads the resolved configuration only; thresholds come from the switch's own models (the
// automatic headroom of mmu.ts) and, for the machine, from the measurements in docs/performance.md.

import type { SwitchTunables } from "../../switch/features/registry.js";
import { autoHeadroomBytes } from "../../switch/mmu.js";
import { maxFrameBytes } from "../switch-config.js";
import { linkAt, NodeKind } from "../topology.js";
import { formatSize } from "../units.js";
import { type Finding, type LintRule, type ResolvedConfig, Severity } from "./finding.js";

/** The ECN Kmax of each lossless priority's egress queue that has WRED/ECN, bytes. */
function losslessKmax(t: SwitchTunables): { priority: number; queue: number; kmax: number }[] {
  const out: { priority: number; queue: number; kmax: number }[] = [];
  for (const priority of t.qos.lossless) {
    const queue = t.qos.priorityToQueue[priority]!;
    const ecn = t.ecn.queues[queue];
    if (ecn) out.push({ priority, queue, kmax: ecn.kmax });
  }
  return out;
}

function eachSwitch(
  c: ResolvedConfig,
  check: (name: string, t: SwitchTunables) => Finding | null,
): Finding[] {
  const out: Finding[] = [];
  for (const [name, t] of c.switches) {
    const f = check(name, t);
    if (f) out.push(f);
  }
  return out;
}

const xoffOverBuffer: LintRule = {
  id: "pfc-xoff-over-buffer",
  severity: Severity.Error,
  summary: "a static pfc.xoff larger than the switch's whole buffer",
  check: (c) =>
    eachSwitch(c, (name, t) => {
      if (!t.pfc.enabled || t.pfc.xoff === "dynamic" || t.pfc.xoff <= t.buffer.size) return null;
      return {
        id: "pfc-xoff-over-buffer",
        severity: Severity.Error,
        node: name,
        setting: "pfc.xoff",
        message: `pfc.xoff ${formatSize(t.pfc.xoff)} is larger than the buffer (buffer.size ${formatSize(t.buffer.size)})`,
        explanation:
          "the priority group can never reach XOFF: PFC would never pause, and the buffer overflows first",
        fix: `set pfc.xoff below buffer.size (or "dynamic"), or enlarge buffer.size`,
      };
    }),
};

const xoffBelowKmax: LintRule = {
  id: "pfc-xoff-below-kmax",
  severity: Severity.Warning,
  summary: "a static pfc.xoff below the ECN Kmax of a lossless queue (the ghost-latency configuration)",
  check: (c) =>
    eachSwitch(c, (name, t) => {
      if (!t.pfc.enabled || t.pfc.xoff === "dynamic") return null;
      const xoff = t.pfc.xoff;
      const low = losslessKmax(t).find((q) => xoff < q.kmax);
      if (!low) return null;
      return {
        id: "pfc-xoff-below-kmax",
        severity: Severity.Warning,
        node: name,
        setting: "pfc.xoff",
        message: `pfc.xoff ${formatSize(xoff)} is below ECN Kmax ${formatSize(low.kmax)} of queue ${low.queue} (lossless priority ${low.priority})`,
        explanation:
          "PFC pauses the upstream before the queue marks at full probability: the backlog moves upstream " +
          "into paused queues that mark nothing, DCQCN hears too little, and latency grows without a visible queue",
        fix: `raise pfc.xoff above ${formatSize(low.kmax)}, or lower ecn.queues.${low.queue}.kmax below ${formatSize(xoff)}`,
      };
    }),
};

const headroomBelowBdp: LintRule = {
  id: "headroom-below-bdp",
  severity: Severity.Warning,
  summary: "a static buffer.headroom smaller than what arrives after XOFF (round trip of the link)",
  check: (c) =>
    eachSwitch(c, (name, t) => {
      const h = t.buffer.headroom;
      if (!t.pfc.enabled || h === "auto" || t.qos.lossless.length === 0) return null;
      const node = c.topology.nodes.find((n) => n.name === name);
      let worst: { port: number; need: number } | null = null;
      for (const port of node?.ports ?? []) {
        const link = linkAt(c.topology, name, port)?.link;
        if (!link) continue;
        const need = autoHeadroomBytes(
          link.rateBps,
          link.delayNs,
          maxFrameBytes(c.topology.mtu),
          t.pfc.headroomSlack,
        );
        if (h < need && (worst === null || need > worst.need)) worst = { port, need };
      }
      if (worst === null) return null;
      return {
        id: "headroom-below-bdp",
        severity: Severity.Warning,
        node: name,
        setting: "buffer.headroom",
        message: `buffer.headroom ${formatSize(h)} is below the ${formatSize(worst.need)} that can arrive on eth${worst.port} after XOFF`,
        explanation:
          "after XOFF the upstream keeps sending for a round trip of the link; without room for it the " +
          "lossless priority drops packets (headroom_exhausted) and RoCE retransmits",
        fix: `set buffer.headroom to "auto" (sized per link) or at least ${formatSize(worst.need)}`,
      };
    }),
};

/**
 * docs/performance.md: a busy full-size 100 Gb/s link-direction costs ≈ 29.8 / D cores, an idle device
 * process ≈ 1.5 % of a core (19 % for the 13 of the default fabric), and a lab stays accurate while it
 * uses at most about half the machine's CPUs (one core of two).
 */
const CORES_PER_BUSY_LINK_DIRECTION_AT_D1 = 29.8;
const IDLE_CORES_PER_PROCESS = 0.19 / 13;
const USABLE_CPU_FRACTION = 0.5;

const topologyTooLarge: LintRule = {
  id: "topology-too-large",
  severity: Severity.Warning,
  summary: "a live lab that can need more CPU than the machine has at the chosen dilation",
  check: (c) => {
    const m = c.machine;
    if (!m) return [];
    const processes = c.topology.nodes.length;
    const idle = processes * IDLE_CORES_PER_PROCESS;
    let busy = 0;
    for (const l of c.topology.links) {
      busy += (2 * CORES_PER_BUSY_LINK_DIRECTION_AT_D1 * (l.rateBps / 100e9)) / m.dilation;
    }
    const budget = m.cpus * USABLE_CPU_FRACTION;
    if (idle + busy <= budget) return [];
    const hosts = c.topology.nodes.filter((n) => n.kind === NodeKind.Host).length;
    const needD = Math.ceil((busy * m.dilation) / Math.max(budget - idle, 1e-9));
    return [
      {
        id: "topology-too-large",
        severity: Severity.Warning,
        message:
          `${processes} devices (${hosts} hosts) and ${c.topology.links.length} links can need ` +
          `${(idle + busy).toFixed(1)} cores at dilation ${m.dilation} with every link busy; ` +
          `this machine gives the lab about ${budget.toFixed(1)} (${m.cpus} CPUs)`,
        explanation:
          "device processes that fall behind real time / dilation stall or (free clocks) lose wire time: " +
          "busy phases of the run then measure the machine, not the network",
        fix:
          budget > idle
            ? `raise --dilation to ${needD} or more, or use a smaller topology`
            : "use a smaller topology: even idle, its processes need more CPU than the machine gives",
      },
    ];
  },
};

export const RULES: readonly LintRule[] = [xoffOverBuffer, xoffBelowKmax, headroomBelowBdp, topologyTooLarge];
