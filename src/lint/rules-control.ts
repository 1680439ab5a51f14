// Control-loop rules: DCQCN on where switches mark, ECN where DCQCN or DCTCP listens, INT where HPCC
// listens, the PFC watchdog on:
// "enable DCQCN on every RoCE sender", "enable the PFC watchdog" (NVIDIA Onyx/Cumulus and SONiC ship a
// PFC watchdog that breaks pause storms and deadlocks).

import type { ResolvedLab } from "../scenario/resolved-lab.js";
import type { Rule, RuleFinding } from "../scenario/rule.js";

function marksRoce(lab: ResolvedLab): string[] {
  const host = lab.hosts.values().next().value;
  if (host === undefined) return [];
  const marking: string[] = [];
  for (const [name, sw] of lab.switches) {
    const queue = sw.qos.priorityToQueue[sw.qos.dscpToPriority[host.qos.dataDscp]!]!;
    if (sw.ecn.queues[queue] !== undefined) marking.push(name);
  }
  return marking;
}

/** Algorithms whose only congestion signal is an ECN mark (a CNP for DCQCN, an ACK's ECN echo for DCTCP). */
const ECN_DRIVEN = new Set<string>(["dcqcn", "dctcp"]);

const intForHpcc: Rule = {
  id: "int-for-hpcc",
  severity: "warning",
  title: "In-band telemetry on every switch when hosts run HPCC",
  explanation:
    "HPCC computes its window from the hop records switches write into its data packets: a switch without " +
    "INT leaves no record, so its queue is invisible to the senders (with none at all, HPCC never slows " +
    "down and PFC does all the work).",
  source: 'Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, §3 (INT on every hop)',
  check(lab: ResolvedLab): RuleFinding[] {
    const hpcc = [...lab.hosts.values()].filter((h) => h.cc === "hpcc");
    if (hpcc.length === 0) return [];
    const without = [...lab.switches].filter(([, sw]) => !sw.int.enabled).map(([name]) => name);
    if (without.length === 0) return [];
    const all = without.length === lab.switches.size;
    return [
      {
        path: `switches.${all ? "*" : without.join(",")}.int.enabled`,
        message: `${hpcc.length} host(s) run HPCC but INT is off on ${all ? "every switch" : without.join(", ")}`,
        fix: "switches: { int: { enabled: true } }",
      },
    ];
  },
};

const dcqcnWhereMarked: Rule = {
  id: "dcqcn-on-senders",
  severity: "warning",
  title: "DCQCN on the senders whose switches mark; ECN on the RoCE queue where DCQCN listens",
  explanation:
    "ECN marks only help if the sender's reaction point acts on the CNPs they cause: with DCQCN off the " +
    "NIC ignores them (rp_cnp_ignored) and PFC does all the work. The other way round, DCQCN without a " +
    "marking switch never hears of congestion.",
  source:
    "Zhu et al., SIGCOMM 2015 (DCQCN: the NP turns marks into CNPs, the RP cuts its rate on them); NVIDIA " +
    '"DCQCN Parameters" (ConnectX enables RP and NP per priority)',
  check(lab: ResolvedLab): RuleFinding[] {
    const marking = marksRoce(lab);
    const out: RuleFinding[] = [];
    if (marking.length > 0) {
      // HPCC and TIMELY hosts do not listen to CNPs by design; `none` is what wastes the marks.
      const off = [...lab.hosts.values()].filter((h) => h.cc === "none").map((h) => h.name);
      if (off.length > 0)
        out.push({
          path: `hosts.${off.length === lab.hosts.size ? "*" : off.join(",")}.cc`,
          message: `${marking.length} switch(es) mark RoCE but DCQCN is off on ${off.length === lab.hosts.size ? "every host" : off.join(", ")}: CNPs are ignored`,
          fix: "hosts: { cc: dcqcn } (with ConnectX's DCQCN defaults)",
        });
    } else if ([...lab.hosts.values()].some((h) => ECN_DRIVEN.has(h.cc)) && lab.switches.size > 0) {
      out.push({
        path: "switches.*.ecn.queues",
        message:
          "DCQCN or DCTCP is on but no switch marks the RoCE queue: senders never slow down before PFC",
        fix: 'ecn: { queues: { "3": { kmin: 150KB, kmax: 1500KB, pmax: 100% } } }',
      });
    }
    return out;
  },
};

const watchdogOn: Rule = {
  id: "pfc-watchdog",
  severity: "warning",
  title: "The PFC watchdog on",
  explanation:
    "A NIC or switch stuck in XOFF (a pause storm) or a cyclic buffer dependency (a PFC deadlock) stops " +
    "every flow behind it indefinitely; the watchdog notices a queue paused for too long and breaks the " +
    "pause (drops or forwards) until the storm ends.",
  source:
    "Guo et al., SIGCOMM 2016 (pause-frame storms and PFC deadlocks; watchdogs in NIC and switch); SONiC's " +
    "PFC watchdog (sonic-net/sonic-swss, orchagent pfcwd)",
  check(lab: ResolvedLab): RuleFinding[] {
    const out: RuleFinding[] = [];
    for (const [name, sw] of lab.switches) {
      if (!sw.pfc.enabled) continue;
      const wd = (sw as unknown as Record<string, { enabled?: boolean } | undefined>).pfcWatchdog;
      if (wd?.enabled === false)
        out.push({
          path: `switches.${name}.pfcWatchdog`,
          message: "the PFC watchdog is off",
          fix: "pfcWatchdog: { enabled: true }",
        });
    }
    return out;
  },
};

export const CONTROL_RULES: readonly Rule[] = [dcqcnWhereMarked, intForHpcc, watchdogOn];
