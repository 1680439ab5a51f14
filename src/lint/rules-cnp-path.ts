// The CNP's return path: a CNP goes from the data's receiver (the notification point) back to its sender
// (the reaction point), through the switches the routes send it through — not necessarily those the data
// crossed. Best practice ("CNPs at DSCP 48 on a strict-priority queue", the CNP feedback path symmetric with
// the data path): the same class on every hop of that reverse path, the NIC's own CNP priority included,
// served by strict priority, and the reverse path the data path's mirror. Strict priority on the switches
// is cnp-strict-priority's (it checks every switch, so every reverse path: the hosts share one CNP DSCP);
// this rule adds the class along the path and the NIC's end of it.

import type { NicConfig } from "../nic/config.js";
import { planAddresses } from "../scenario/address-plan.js";
import type { ResolvedLab } from "../scenario/resolved-lab.js";
import { computeRoutes } from "../scenario/routing.js";
import type { Rule, RuleFinding } from "../scenario/rule.js";
import { linkAt, NodeKind } from "../scenario/topology.js";
import type { Route } from "../switch/config.js";

/** The switches every equal-cost path from `from` (a host) to `to`'s address crosses, in visiting order. */
type PathOf = (from: string, toIp: number) => readonly string[];

function lookup(routes: readonly Route[], ip: number): Route | null {
  let best: Route | null = null;
  for (const r of routes) {
    const mask = r.prefixLength === 0 ? 0 : (~0 << (32 - r.prefixLength)) >>> 0;
    if ((ip & mask) >>> 0 === r.prefix >>> 0 && (best === null || r.prefixLength > best.prefixLength))
      best = r;
  }
  return best;
}

function pathFinder(lab: ResolvedLab): PathOf {
  const topo = lab.topology;
  const routes = computeRoutes(topo, planAddresses(topo));
  const isSwitch = new Map(topo.nodes.map((n) => [n.name, n.kind === NodeKind.Switch]));
  const next = new Map<string, readonly string[]>();
  /** The switches `sw` hands a packet for `ip` to (memoised: pairs of hosts share them). */
  const nextSwitches = (sw: string, ip: number): readonly string[] => {
    const key = `${sw}|${ip}`;
    let found = next.get(key);
    if (found === undefined) {
      const route = lookup(routes.get(sw) ?? [], ip);
      found = (route?.nextHops ?? [])
        .map((h) => linkAt(topo, sw, h.port)?.peer.node)
        .filter((n): n is string => n !== undefined && isSwitch.get(n) === true);
      next.set(key, found);
    }
    return found;
  };
  const paths = new Map<string, readonly string[]>();
  return (from, toIp) => {
    const first = linkAt(topo, from, 1)?.peer.node;
    if (first === undefined || !isSwitch.get(first)) return [];
    // Hosts behind one switch share their paths: one walk per (first switch, destination).
    const key = `${first}|${toIp}`;
    const known = paths.get(key);
    if (known !== undefined) return known;
    const seen = new Set<string>([first]);
    const queue = [first];
    // Breadth-first over every ECMP member; `seen` ends a routing loop.
    for (let i = 0; i < queue.length; i++)
      for (const n of nextSwitches(queue[i]!, toIp))
        if (!seen.has(n)) {
          seen.add(n);
          queue.push(n);
        }
    paths.set(key, queue);
    return queue;
  };
}

/** Adds `host` to the finding under `key`, made by `make` the first time. */
function collect(
  into: Map<string, { hosts: string[]; make: (hosts: string) => RuleFinding }>,
  key: string,
  host: string,
  make: (hosts: string) => RuleFinding,
): void {
  const entry = into.get(key) ?? { hosts: [], make };
  if (!entry.hosts.includes(host)) entry.hosts.push(host);
  into.set(key, entry);
}

/** Checks the reverse path of the CNPs `r` sends to `s` (its data senders). */
function checkPair(
  lab: ResolvedLab,
  s: NicConfig,
  r: NicConfig,
  pathOf: PathOf,
  out: Map<string, { hosts: string[]; make: (hosts: string) => RuleFinding }>,
): void {
  const reverse = pathOf(r.name, s.port.ip);
  const forward = pathOf(s.name, r.port.ip);
  const dscp = r.qos.cnpDscp;
  for (const name of reverse) {
    const sw = lab.switches.get(name)!;
    const priority = sw.qos.dscpToPriority[dscp]!;
    if (priority !== r.qos.cnpPriority)
      collect(out, `class|${name}|${dscp}|${priority}|${r.qos.cnpPriority}`, r.name, (hosts) => ({
        path: `switches.${name}.qos.dscpToPriority`,
        message: `CNPs at DSCP ${dscp} get priority ${priority} on ${name}, on their way back from ${hosts}, whose NICs send them on priority ${r.qos.cnpPriority}`,
        fix: `the same CNP priority on the NICs (qos.cnpPriority) and every switch (qos.dscpToPriority "${dscp}")`,
      }));
  }
  const dataPriority = r.qos.dscpToPriority[r.qos.dataDscp]!;
  if (r.qos.cnpPriority === dataPriority)
    collect(out, `nic|${r.name}`, r.name, () => ({
      path: `hosts.${r.name}.qos.cnpPriority`,
      message: `${r.name} sends CNPs on priority ${dataPriority}, its data priority: a pause of its data holds its CNPs too`,
      fix: "qos: { cnpPriority: 6 } (ConnectX cnp_802p_prio), a priority of the CNPs' own",
    }));
  const back = new Set(reverse);
  const ahead = new Set(forward);
  const only = forward.filter((n) => !back.has(n));
  const onlyBack = reverse.filter((n) => !ahead.has(n));
  if (only.length > 0 || onlyBack.length > 0)
    collect(out, `sym|${s.name}|${r.name}`, r.name, () => ({
      path: `topology.nodes`,
      severity: "info",
      message:
        `${s.name} → ${r.name} crosses ${forward.join(", ")}; its CNPs come back through ${reverse.join(", ")}` +
        " (an asymmetric path: the CNPs meet other queues than the data they report on)",
      fix: "routes that take the data and its CNPs through the same switches (static routes in both directions)",
    }));
}

const cnpReturnPath: Rule = {
  id: "cnp-return-path",
  severity: "warning",
  title: "The CNP's return path: one class end to end, strict priority, the data path's mirror",
  explanation:
    "A CNP crosses the fabric backwards, from the data's receiver to its sender. If one hop on that way " +
    "puts it in another class, or a NIC sends it on its data priority, it queues or is paused behind data " +
    "and the sender slows down late; if the way back is not the data's way, the CNPs meet congestion the " +
    "data never saw.",
  source:
    "NVIDIA ConnectX (mlx5) cnp_dscp 48, cnp_802p_prio 6; the DCQCN tuning article (docs/references.md), §6: " +
    "CNPs at DSCP 48 on strict priority, the CNP feedback path symmetric with the data path",
  check(lab: ResolvedLab): RuleFinding[] {
    const hosts = [...lab.hosts.values()];
    if (hosts.length < 2 || lab.switches.size === 0) return [];
    const pathOf = pathFinder(lab);
    const out = new Map<string, { hosts: string[]; make: (hosts: string) => RuleFinding }>();
    for (const s of hosts) for (const r of hosts) if (s !== r) checkPair(lab, s, r, pathOf, out);
    return [...out.values()].map((e) => e.make(e.hosts.join(", ")));
  },
};

export const CNP_PATH_RULES: readonly Rule[] = [cnpReturnPath];
