// Threshold rules: an XOFF the buffer can reach, ECN marks before PFC pauses, headroom that covers the
// link, Kmin not too small: "ECN_Min < ECN_Max < PFC_Xoff"; "headroom >= the link's bandwidth-delay
// product"; "do not set Kmin as low as 50 KB at 100 Gb/s" (a ~100 KB floor, scaled with the port rate).

import { formatSize } from "../device/units.js";
import type { ResolvedLab } from "../scenario/resolved-lab.js";
import type { Rule, RuleFinding } from "../scenario/rule.js";
import type { SwitchConfig } from "../switch/config.js";
import { autoHeadroomOf } from "../switch/features/buffer.js";
import { autoHeadroomBytes, sharedPoolBytes } from "../switch/mmu.js";

/** Kmin below this at 100 Gb/s marks ordinary bursts (DCQCN tuning article §6: "not as low as 50 KB"). */
export const KMIN_FLOOR_AT_100G = 100_000;

/** The smallest XOFF the switch's buffer can reach: static, or the dynamic threshold with every lossless PG congested. */
export function smallestXoff(sw: SwitchConfig): { bytes: number; dynamic: boolean } {
  const pfc = sw.pfc;
  if (pfc.xoff !== "dynamic") return { bytes: pfc.xoff, dynamic: false };
  const lossless = sw.qos.lossless.length;
  const ports = sw.ports.length;
  const headroom = sw.ports.map((p) => headroomOf(sw, p.rateBps, p.delayNs));
  const { mmu, size, reserve } = sw.buffer;
  const pool = sharedPoolBytes(mmu, size, reserve, headroom, lossless, ports);
  // Dynamic threshold T = α (pool − used); with N PGs each at T, used = N·T, so T = α·pool / (1 + α·N).
  const n = ports * lossless;
  return { bytes: sw.buffer.reserve + (pfc.alpha * pool) / (1 + pfc.alpha * n), dynamic: true };
}

function headroomOf(sw: SwitchConfig, rateBps: number, delayNs: number): number {
  const h = sw.buffer.headroom;
  return h === "auto" ? autoHeadroomOf(sw, rateBps, delayNs) : h;
}

/** Queues of lossless priorities that ECN marks, with their thresholds. */
function losslessEcnQueues(sw: SwitchConfig): { queue: number; kmin: number; kmax: number }[] {
  const queues = new Set(sw.qos.lossless.map((p) => sw.qos.priorityToQueue[p]!));
  const out: { queue: number; kmin: number; kmax: number }[] = [];
  for (const q of [...queues].sort((a, b) => a - b)) {
    const e = sw.ecn.queues[q];
    if (e !== undefined) out.push({ queue: q, kmin: e.kmin, kmax: e.kmax });
  }
  return out;
}

const ecnBeforePfc: Rule = {
  id: "ecn-before-pfc",
  severity: "error",
  title: "ECN Kmin < Kmax < PFC XOFF on every lossless queue",
  explanation:
    "ECN must slow the senders before PFC stops the link: with XOFF at or below Kmin a burst pauses the " +
    "upstream before its queue is ever marked, DCQCN hears nothing, the senders return at line rate and " +
    "the pauses spread hop by hop (the ghost-latency incident, docs/experiments/ghost-latency.md). XOFF " +
    "between Kmin and Kmax cuts the marking ramp short (a warning). For dynamic XOFF the smallest " +
    "threshold the buffer can reach counts: every lossless priority group congested at once.",
  source:
    'Zhu et al., "Congestion Control for Large-Scale RDMA Deployments" (DCQCN), SIGCOMM 2015: ECN must ' +
    "mark before PFC triggers; measured in docs/experiments/ghost-latency.md",
  check(lab: ResolvedLab): RuleFinding[] {
    const out: RuleFinding[] = [];
    for (const [name, sw] of lab.switches) {
      if (!sw.pfc.enabled) continue;
      const xoff = smallestXoff(sw);
      const what = xoff.dynamic
        ? `dynamic XOFF can fall to ${formatSize(xoff.bytes)}`
        : `XOFF is ${formatSize(xoff.bytes)}`;
      for (const q of losslessEcnQueues(sw)) {
        const path = `switches.${name}.ecn.queues.${q.queue}`;
        if (xoff.bytes <= q.kmin)
          out.push({
            path,
            message: `${what}, at or below ECN Kmin ${formatSize(q.kmin)}: PFC pauses before ECN marks`,
            fix: `lower kmin (and kmax) well below XOFF, or raise pfc.xoff above kmax (balanced: kmin 150KB, kmax 1500KB, xoff 3000KB)`,
            ...(xoff.dynamic ? { severity: "warning" as const } : {}),
          });
        else if (xoff.bytes <= q.kmax)
          out.push({
            path,
            severity: "warning",
            message: `${what}, below ECN Kmax ${formatSize(q.kmax)}: PFC cuts the marking ramp short`,
            fix: `raise pfc.xoff above kmax ${formatSize(q.kmax)}, or lower kmax below ${formatSize(xoff.bytes)}`,
          });
      }
    }
    return out;
  },
};

const headroomCoversLink: Rule = {
  id: "headroom-covers-link",
  severity: "error",
  title: "PFC headroom ≥ the link's bandwidth-delay product, with the MTU and reaction terms",
  explanation:
    "After XOFF leaves, the upstream keeps sending for a round trip plus the frames already on the wire " +
    "(ours waiting for one frame, theirs in flight, the PFC frame itself) and its reaction time; a smaller " +
    "headroom drops lossless packets. IEEE 802.1Q Annex N (PFC buffer requirements) and vendor guides size it as 2 × rate × delay " +
    "plus MTU terms; `buffer.headroom: auto` does exactly that.",
  source: "IEEE 802.1Q-2018 Annex N (buffer requirements of PFC); the headroom sizing of docs/switch.md",
  check(lab: ResolvedLab): RuleFinding[] {
    const out: RuleFinding[] = [];
    for (const [name, sw] of lab.switches) {
      if (!sw.pfc.enabled || sw.buffer.headroom === "auto" || sw.qos.lossless.length === 0) continue;
      for (const p of sw.ports) {
        const need = autoHeadroomBytes(p.rateBps, p.delayNs, sw.maxFrameBytes, sw.pfc.headroomSlack);
        if (sw.buffer.headroom < need)
          out.push({
            path: `switches.${name}.buffer.headroom`,
            message: `${formatSize(sw.buffer.headroom)} of headroom on ${p.name} (${p.rateBps / 1e9} Gb/s, ${p.delayNs} ns) needs ${formatSize(need)}`,
            fix: `buffer: { headroom: auto } (or at least ${formatSize(need)})`,
          });
      }
    }
    return out;
  },
};

const kminNotTiny: Rule = {
  id: "kmin-floor",
  severity: "warning",
  title: "ECN Kmin not under ~100 KB at 100 Gb/s",
  explanation:
    "A Kmin as small as 50 KB at 100 Gb/s (4 µs of queue) marks ordinary bursts: DCQCN cuts rates that " +
    "needed no cutting and throughput drops (the aggressive preset, docs/experiments/dcqcn-thresholds.md). " +
    "The practice is stated at 100 Gb/s: slower switches get a floor scaled down with their slowest " +
    "port's rate, faster ones keep 100 KB.",
  source:
    'NVIDIA Cumulus Linux user guide, "RDMA over Converged Ethernet (RoCE)": lossless RoCE marks from 150 KB ' +
    "to 1.5 MB; the 50 KB row measured in docs/experiments/dcqcn-thresholds.md",
  check(lab: ResolvedLab): RuleFinding[] {
    const out: RuleFinding[] = [];
    for (const [name, sw] of lab.switches) {
      const slowest = Math.min(...sw.ports.map((p) => p.rateBps));
      const floor = Math.round(KMIN_FLOOR_AT_100G * Math.min(1, slowest / 100e9));
      for (const q of losslessEcnQueues(sw)) {
        if (q.kmin < floor)
          out.push({
            path: `switches.${name}.ecn.queues.${q.queue}.kmin`,
            message: `Kmin ${formatSize(q.kmin)} at ${slowest / 1e9} Gb/s is under ${formatSize(floor)}`,
            fix: `kmin: ${formatSize(floor)} or more (balanced: 150KB at 100 Gb/s)`,
          });
      }
    }
    return out;
  },
};

export const THRESHOLD_RULES: readonly Rule[] = [ecnBeforePfc, headroomCoversLink, kminNotTiny];
