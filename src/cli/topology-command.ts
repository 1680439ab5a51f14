// `rocelab topology [FILE]`: validate a topology and show what the lab would build from it.

import type { Command } from "commander";
import { formatOnLoad, lintTopology } from "../lint/lint.js";
import { planAddresses, portKey } from "../scenario/address-plan.js";
import type { MachineContext } from "../scenario/resolved-lab.js";
import { computeRoutes } from "../scenario/routing.js";
import { defaultTopology, NodeKind, type Topology } from "../scenario/topology.js";
import { loadTopology } from "../scenario/topology-file.js";
import { ipToString, macToString } from "../wire/bytes.js";
import { action } from "./errors.js";
import { registerTopologyGenerate } from "./topology-generate-command.js";
import { lagsJson, linkLines } from "./topology-links.js";

/**
 * Loads the topology a command names (default: the built-in one; the loader refuses settings that cannot
 * work) and prints its lint errors and warnings on stderr in `rocelab lint`'s format (with `machine`, also
 * whether it fits the machine at that dilation). `quiet`: print nothing (a lab's own topology, re-read).
 */
export function loadTopologyArg(
  file: string | undefined,
  opts: { readonly machine?: MachineContext; readonly quiet?: boolean } = {},
): Topology {
  const topo = file === undefined || file === "default" ? defaultTopology() : loadTopology(file);
  if (!opts.quiet) process.stderr.write(formatOnLoad(lintTopology(topo, opts.machine)));
  return topo;
}

export function registerTopologyCommand(program: Command): void {
  const topology = program.command("topology");
  registerTopologyGenerate(topology);
  topology
    .argument("[file]", "topology YAML (default: the built-in 2-spine, 2-leaf, 8-host fabric)")
    .description("validate a topology and print its nodes, links, address plan and routes")
    .option("--json", "print JSON")
    .option("--routes", "also print every switch's routes")
    .action(
      action((file: string | undefined, opts: { json?: boolean; routes?: boolean }) => {
        const topo = loadTopologyArg(file);
        const plan = planAddresses(topo);
        const routes = computeRoutes(topo, plan);
        if (opts.json) {
          process.stdout.write(
            `${JSON.stringify(
              {
                name: topo.name,
                source: topo.source,
                mtu: topo.mtu,
                nodes: topo.nodes.map((n) => ({ name: n.name, kind: n.kind, ports: n.ports })),
                links: topo.links.map((l) => ({
                  a: `${l.a.node}:eth${l.a.port}`,
                  b: `${l.b.node}:eth${l.b.port}`,
                  rateBps: l.rateBps,
                  delayNs: l.delayNs,
                })),
                lags: lagsJson(topo),
                addresses: [...plan.ports.values()].map((p) => ({
                  port: `${p.node}:eth${p.port}`,
                  ip: `${ipToString(p.ip)}/${p.prefixLength}`,
                  mac: macToString(p.mac),
                })),
              },
              null,
              2,
            )}\n`,
          );
          return;
        }
        const out: string[] = [
          `topology ${topo.name} (${topo.source})${topo.description ? ` — ${topo.description}` : ""}`,
        ];
        out.push(`path MTU ${topo.mtu} bytes`, "", "nodes:");
        for (const n of topo.nodes) {
          const ports = n.ports
            .map((p) => {
              const a = plan.ports.get(portKey(n.name, p))!;
              return `eth${p} ${ipToString(a.ip)}/31 ${macToString(a.mac)}`;
            })
            .join(", ");
          out.push(`  ${n.name.padEnd(10)} ${n.kind.padEnd(6)} ${ports}`);
        }
        out.push("", "links:", ...linkLines(topo));
        if (opts.routes) {
          for (const n of topo.nodes) {
            if (n.kind !== NodeKind.Switch) continue;
            out.push("", `routes of ${n.name}:`);
            for (const r of routes.get(n.name) ?? []) {
              const hops = r.nextHops.map((h) => {
                if (!h.via) return `eth${h.port} (connected)`;
                const lag = topo.lags.find((l) =>
                  l.ends.some((e) => e.node === n.name && e.ports.includes(h.port)),
                );
                return `via ${ipToString(h.via)} ${lag ? `${lag.name} (named by eth${h.port})` : `eth${h.port}`}`;
              });
              out.push(`  ${`${ipToString(r.prefix)}/${r.prefixLength}`.padEnd(18)} ${hops.join(", ")}`);
            }
          }
        }
        process.stdout.write(`${out.join("\n")}\n`);
      }),
    );
}
