// QoS rules: the RoCE priority lossless end to end, CNPs on a strict-priority queue, one DSCP/priority
// map on every device: "PFC on the RoCE priority on every hop", "CNP at DSCP 48 on a strict-priority
// queue", "trust DSCP and use the same map everywhere".

import type { NicConfig } from "../nic/config.js";
import type { ResolvedLab } from "../scenario/resolved-lab.js";
import type { Rule, RuleFinding } from "../scenario/rule.js";
import type { SwitchConfig } from "../switch/config.js";

/** DSCP of CNPs: ConnectX's cnp_dscp default, and the DCQCN tuning article's best practice (§6). */
export const CNP_DSCP = 48;

function firstHost(lab: ResolvedLab): NicConfig | undefined {
  return lab.hosts.values().next().value;
}

function queueOf(sw: SwitchConfig, dscp: number): { priority: number; queue: number } {
  const priority = sw.qos.dscpToPriority[dscp]!;
  return { priority, queue: sw.qos.priorityToQueue[priority]! };
}

const cnpStrict: Rule = {
  id: "cnp-strict-priority",
  severity: "warning",
  title: "CNPs (DSCP 48) on a strict-priority queue on every switch",
  explanation:
    "A CNP that waits behind the data it reports on arrives late, so the sender cuts its rate late and the " +
    "queue overshoots into PFC. CNPs are tiny: serve them first, on a strict-priority queue of their own.",
  source:
    'NVIDIA ConnectX (mlx5) defaults cnp_dscp 48, cnp_802p_prio 6; NVIDIA Cumulus Linux "RDMA over ' +
    'Converged Ethernet (RoCE)": switch priority 6 on a strict-priority traffic class',
  check(lab: ResolvedLab): RuleFinding[] {
    const out: RuleFinding[] = [];
    const host = firstHost(lab);
    for (const h of lab.hosts.values()) {
      if (h.qos.cnpDscp !== CNP_DSCP)
        out.push({
          path: `hosts.${h.name}.qos.cnpDscp`,
          message: `${h.name} sends CNPs at DSCP ${h.qos.cnpDscp}, not ${CNP_DSCP}`,
          fix: `send CNPs at DSCP ${CNP_DSCP}`,
        });
    }
    const dscp = host?.qos.cnpDscp ?? CNP_DSCP;
    for (const [name, sw] of lab.switches) {
      const { priority, queue } = queueOf(sw, dscp);
      const data = host === undefined ? null : queueOf(sw, host.qos.dataDscp);
      if (!sw.qos.strictQueues.includes(queue))
        out.push({
          path: `switches.${name}.qos.strictQueues`,
          message: `CNPs (DSCP ${dscp}) go to priority ${priority}, queue ${queue}, which is not strict priority`,
          fix: `qos: { strictQueues: [${[...new Set([...sw.qos.strictQueues, queue])].sort().join(", ")}] } or map DSCP ${dscp} to a strict queue`,
        });
      else if (data !== null && data.queue === queue)
        out.push({
          path: `switches.${name}.qos.dscpToPriority`,
          message: `CNPs share queue ${queue} with RoCE data (DSCP ${host!.qos.dataDscp})`,
          fix: `map DSCP ${dscp} to a priority of its own (default: 6)`,
        });
    }
    return out;
  },
};

const pfcEndToEnd: Rule = {
  id: "pfc-end-to-end",
  severity: "error",
  title: "PFC on the RoCE priority on every switch",
  explanation:
    "Lossless is all or nothing: one hop that does not pause the RoCE priority drops what the others held " +
    "back, and the NICs fall back to go-back-N retransmission. A fabric that runs RoCE without PFC on " +
    "purpose (lossy RoCE) relies on ECN and retransmission alone (a warning).",
  source:
    'IEEE 802.1Qbb-2011 (pause is per priority and per hop); Guo et al., "RDMA over Commodity Ethernet at ' +
    'Scale", SIGCOMM 2016 (RoCEv2 needs a lossless fabric)',
  check(lab: ResolvedLab): RuleFinding[] {
    const host = firstHost(lab);
    if (host === undefined) return [];
    const missing: { name: string; why: string }[] = [];
    for (const [name, sw] of lab.switches) {
      const { priority } = queueOf(sw, host.qos.dataDscp);
      if (!sw.pfc.enabled) missing.push({ name, why: "PFC is off" });
      else if (!sw.qos.lossless.includes(priority))
        missing.push({ name, why: `priority ${priority} is not lossless` });
    }
    if (missing.length === 0) return [];
    const all = missing.length === lab.switches.size;
    return missing.map(({ name, why }) => ({
      path: `switches.${name}.pfc`,
      severity: all ? "warning" : "error",
      message: `RoCE data (DSCP ${host.qos.dataDscp}) is not lossless: ${why}${all ? " (on every switch: lossy RoCE)" : ""}`,
      fix: `pfc: { enabled: true } and qos.lossless including the RoCE priority, on every switch`,
    }));
  },
};

const sameMaps: Rule = {
  id: "same-qos-maps",
  severity: "error",
  title: "The same DSCP → priority → queue maps on every device; NICs trusting the same DSCP",
  explanation:
    "PFC pauses a priority, ECN marks a queue: if two switches (or a switch and a NIC) disagree on which " +
    "priority RoCE's DSCP means, one hop pauses a priority the next does not protect, or a NIC obeys a " +
    "pause for a priority its data does not use.",
  source:
    "Guo et al., SIGCOMM 2016 (DSCP-based PFC: every device derives the priority from the same DSCP); " +
    'NVIDIA Cumulus Linux "RoCE" (one DSCP to switch-priority map)',
  check(lab: ResolvedLab): RuleFinding[] {
    const out: RuleFinding[] = [];
    const host = firstHost(lab);
    if (host === undefined) return out;
    const dscps = [
      ["data", host.qos.dataDscp],
      ["ACK", host.qos.ackDscp],
      ["CNP", host.qos.cnpDscp],
    ] as const;
    const [refName, ref] = lab.switches.entries().next().value ?? [];
    if (ref === undefined || refName === undefined) return out;
    for (const [name, sw] of lab.switches) {
      if (sw === ref) continue;
      for (const [what, dscp] of dscps) {
        const a = queueOf(ref, dscp);
        const b = queueOf(sw, dscp);
        if (a.priority !== b.priority || a.queue !== b.queue)
          out.push({
            path: `switches.${name}.qos`,
            message: `${what} DSCP ${dscp}: priority ${b.priority}/queue ${b.queue} on ${name}, ${a.priority}/${a.queue} on ${refName}`,
            fix: "give every switch the same qos.dscpToPriority and qos.priorityToQueue",
          });
      }
      if ([...sw.qos.lossless].sort().join() !== [...ref.qos.lossless].sort().join())
        out.push({
          path: `switches.${name}.qos.lossless`,
          message: `lossless priorities [${sw.qos.lossless}] on ${name}, [${ref.qos.lossless}] on ${refName}`,
          fix: "the same qos.lossless on every switch",
        });
    }
    for (const h of lab.hosts.values()) {
      const nicPrio = h.qos.dscpToPriority[h.qos.dataDscp]!;
      const swPrio = ref.qos.dscpToPriority[h.qos.dataDscp]!;
      if (nicPrio !== swPrio)
        out.push({
          path: `hosts.${h.name}.dscpToPriority`,
          message: `${h.name} takes its data DSCP ${h.qos.dataDscp} as priority ${nicPrio}, the switches as ${swPrio}: it would obey the wrong pauses`,
          fix: `the NIC's DSCP map must match the switches' (DSCP ${h.qos.dataDscp} -> ${swPrio})`,
        });
    }
    return out;
  },
};

export const QOS_RULES: readonly Rule[] = [pfcEndToEnd, sameMaps, cnpStrict];
