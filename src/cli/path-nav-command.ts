// `rocelab plan-addresses TOPOLOGY` (N-tuple planning for source-IP hashing) and `rocelab path-nav MODE`
// (path navigation on a running lab: learn the fabric from LLDP, plan link-disjoint paths for the
// workloads' QPs, install them as switch entries or NIC source ports; --watch re-plans after failures).

import type { Command } from "commander";
import { planSourceAddresses } from "../control/path-nav/address-planner.js";
import { LiveNavigator } from "../control/path-nav/live-navigator.js";
import { type NavPlan, PathNavMode, pathText } from "../control/path-nav/plan.js";
import { LiveLab } from "../lab/live/live-lab.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { planAddresses } from "../scenario/address-plan.js";
import { NodeKind } from "../scenario/topology.js";
import { action, UsageError } from "./errors.js";
import { loadTopologyArg } from "./topology-command.js";
import { LAB_NAME_HELP, labName } from "./with-lab.js";

/** LLDP every 1 ms of emulated time: a second of real time at the default dilation of 1000. */
const LIVE_LLDP_INTERVAL_NS = 1_000_000;

function formatPlan(plan: NavPlan): string {
  const lines = [
    `${plan.mode} mode: ${plan.flows.length} QPs over ${plan.links} switch links (from LLDP); most-loaded link ${plan.maxLoad.toFixed(2)}, mean ${plan.meanLoad.toFixed(2)} (in largest-flow units); ${plan.unplanned} unplanned`,
  ];
  for (const f of plan.flows)
    lines.push(
      `  ${`${f.demand.src} -> ${f.demand.dst}`.padEnd(14)} qp ${String(f.demand.qpn).padEnd(5)} sport ${String(f.udpSrcPort).padEnd(6)} ${pathText(f.path)}`,
    );
  if (plan.mode === PathNavMode.Host) lines.push(`  ${plan.sourcePorts.length} QPs changed source port`);
  else {
    let n = 0;
    for (const e of plan.entries.values()) n += e.length;
    lines.push(`  ${n} entries installed in ${plan.entries.size} switches`);
  }
  return lines.join("\n");
}

export function registerPathNavCommands(program: Command): void {
  program
    .command("plan-addresses")
    .argument("[topology]", "topology YAML (default: the built-in fabric)")
    .description(
      "N-tuple planning: how hosts spread over each leaf's uplinks under source-IP hashing, and addresses that spread them evenly",
    )
    .option("--json", "print JSON")
    .action(
      action(async (topology: string | undefined, opts: { json?: boolean }) => {
        const spread = planSourceAddresses(loadTopologyArg(topology));
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(spread, null, 2)}\n`);
          return;
        }
        const lines: string[] = [];
        for (const l of spread) {
          const counts = (c: readonly number[]) => l.uplinks.map((u, i) => `eth${u}:${c[i]}`).join(" ");
          lines.push(`${l.leaf}: hosts per uplink now ${counts(l.now)}, proposed ${counts(l.proposed)}`);
          for (const h of l.hosts) {
            const change = h.proposedIp === h.ip ? "keep" : `-> ${h.proposedIp} (eth${h.proposedUplink})`;
            lines.push(`  ${h.host.padEnd(6)} ${h.ip.padEnd(12)} eth${h.uplink}  ${change}`);
          }
        }
        if (spread.length === 0) lines.push("no leaf has hosts and more than one uplink");
        process.stdout.write(`${lines.join("\n")}\n`);
      }),
    );

  program
    .command("path-nav")
    .argument("<mode>", "network (per-flow switch entries) | host (planned UDP source ports)")
    .description(
      "path navigation on a running lab: LLDP topology + workload QPs -> link-disjoint paths, installed",
    )
    .option(
      "--watch <seconds>",
      "keep watching the LLDP tables for this long, re-planning when the fabric changes",
    )
    .option("--name <name>", LAB_NAME_HELP)
    .option("--json", "print JSON")
    .action(
      action(async (mode: string, opts: { watch?: string; name?: string; json?: boolean }) => {
        if (mode !== PathNavMode.Network && mode !== PathNavMode.Host)
          throw new UsageError(`mode must be network or host, not "${mode}"`);
        const lab = await LiveLab.connect(labName(opts)).catch((e: Error) => {
          throw new UsageError(e.message, 1);
        });
        try {
          const status = await lab.request<LabStatus>("status");
          const topo = loadTopologyArg(status.topology === "built-in" ? undefined : status.topology, {
            quiet: true,
          });
          const switches = lab.topology.nodes.filter((n) => n.kind === "switch").map((n) => n.name);
          if (!topo.nodes.some((n) => n.kind === NodeKind.Host)) throw new UsageError("the lab has no hosts");
          const nav = new LiveNavigator(lab, mode, planAddresses(topo), switches);
          await nav.enableLldp(LIVE_LLDP_INTERVAL_NS);
          const links = await nav.waitForTables(30_000);
          process.stderr.write(`LLDP: ${links} switch links heard\n`);
          const show = (p: NavPlan) =>
            process.stdout.write(
              opts.json
                ? `${JSON.stringify({ ...p, entries: Object.fromEntries(p.entries) })}\n`
                : `${formatPlan(p)}\n`,
            );
          show(await nav.replan());
          const until = Date.now() + Number(opts.watch ?? 0) * 1000;
          while (Date.now() < until) {
            await new Promise((r) => setTimeout(r, 500));
            const p = await nav.poll();
            if (p !== null) {
              process.stderr.write("the fabric changed: re-planned\n");
              show(p);
            }
          }
        } finally {
          await lab.close();
        }
      }),
    );
}
