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

/**
 * The switches every equal-cost path from `from` (a host) to `to`'s address crosses, in visiting order.
 * Paths with the same switches in the same order are one array (interned), so checks that depend only
 * on a path are made once per path, not once per pair of hosts (1,048,576 pairs on a k = 16 fat tree).
 */
type PathOf = (from: string, toIp: number) => readonly string[];

/** A switch's routes by prefix length, longest first, each length a map from prefix to route. */
type RouteIndex = readonly (readonly [number, ReadonlyMap<number, Route>])[];

function indexRoutes(routes: readonly Route[]): RouteIndex {
  const byLength = new Map<number, Map<number, Route>>();
  for (const r of routes) {
    const m = byLength.get(r.prefixLength) ?? new Map<number, Route>();
    // The first route of a prefix wins, as in the linear scan this replaces.
    if (!m.has(r.prefix >>> 0)) m.set(r.prefix >>> 0, r);
    byLength.set(r.prefixLength, m);
  }
  return [...byLength].sort((a, b) => b[0] - a[0]);
}

function lookup(index: RouteIndex, ip: number): Route | null {
  for (const [length, routes] of index) {
    const mask = length === 0 ? 0 : (~0 << (32 - length)) >>> 0;
    const r = routes.get((ip & mask) >>> 0);
    if (r !== undefined) return r;
  }
  return null;
}

function pathFinder(lab: ResolvedLab): PathOf {
  const topo = lab.topology;
  const routes = computeRoutes(topo, planAddresses(topo));
  const indexes = new Map<string, RouteIndex>();
  const indexOf = (sw: string): RouteIndex => {
    let i = indexes.get(sw);
    if (i === undefined) {
      i = indexRoutes(routes.get(sw) ?? []);
      indexes.set(sw, i);
    }
    return i;
  };
  const isSwitch = new Map(topo.nodes.map((n) => [n.name, n.kind === NodeKind.Switch]));
  /** Destination address -> switch -> the switches it hands a packet for that address to. */
  const next = new Map<number, Map<string, readonly string[]>>();
  /** The switches `sw` hands a packet for `ip` to (memoised: pairs of hosts share them). */
  const nextSwitches = (sw: string, ip: number): readonly string[] => {
    let bySwitch = next.get(ip);
    if (bySwitch === undefined) {
      bySwitch = new Map();
      next.set(ip, bySwitch);
    }
    let found = bySwitch.get(sw);
    if (found === undefined) {
      const route = lookup(indexOf(sw), ip);
      found = (route?.nextHops ?? [])
        .map((h) => linkAt(topo, sw, h.port)?.peer.node)
        .filter((n): n is string => n !== undefined && isSwitch.get(n) === true);
      bySwitch.set(sw, found);
    }
    return found;
  };
  const paths = new Map<string, readonly string[]>();
  const interned = new Map<string, readonly string[]>();
  const empty: readonly string[] = [];
  return (from, toIp) => {
    const first = linkAt(topo, from, 1)?.peer.node;
    if (first === undefined || !isSwitch.get(first)) return empty;
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
    const text = queue.join(" ");
    const path = interned.get(text) ?? queue;
    interned.set(text, path);
    paths.set(key, path);
    return path;
  };
}

/** Memoised per path (or pair of paths): what checkPair finds along it. */
interface PathChecks {
  /** Switches of a reverse path that put DSCP `dscp` in another priority than `priority`: key dscp|priority. */
  readonly misclassed: WeakMap<readonly string[], Map<string, readonly [string, number][]>>;
  /** Switches only on the forward path, and only on the reverse one. */
  readonly asymmetry: WeakMap<readonly string[], WeakMap<readonly string[], boolean>>;
}

function newPathChecks(): PathChecks {
  return { misclassed: new WeakMap(), asymmetry: new WeakMap() };
}

/** The switches of `path` that give DSCP `dscp` another priority than `priority`, with the one they give. */
function misclassedOn(
  lab: ResolvedLab,
  path: readonly string[],
  dscp: number,
  priority: number,
  memo: PathChecks,
): readonly [string, number][] {
  let byClass = memo.misclassed.get(path);
  if (byClass === undefined) {
    byClass = new Map();
    memo.misclassed.set(path, byClass);
  }
  const key = `${dscp}|${priority}`;
  const known = byClass.get(key);
  if (known !== undefined) return known;
  const found: [string, number][] = [];
  for (const name of path) {
    const given = lab.switches.get(name)!.qos.dscpToPriority[dscp]!;
    if (given !== priority) found.push([name, given]);
  }
  byClass.set(key, found);
  return found;
}

/** Whether `forward` and `reverse` cross different switches (memoised per pair of interned paths). */
function asymmetric(forward: readonly string[], reverse: readonly string[], memo: PathChecks): boolean {
  let byReverse = memo.asymmetry.get(forward);
  if (byReverse === undefined) {
    byReverse = new WeakMap();
    memo.asymmetry.set(forward, byReverse);
  }
  let found = byReverse.get(reverse);
  if (found === undefined) {
    const back = new Set(reverse);
    const ahead = new Set(forward);
    found = forward.some((n) => !back.has(n)) || reverse.some((n) => !ahead.has(n));
    byReverse.set(reverse, found);
  }
  return found;
}

/** Adds `host` to the finding under `key`, made by `make` the first time. */
function collect(
  into: Map<string, { hosts: Set<string>; make: (hosts: string) => RuleFinding }>,
  key: string,
  host: string,
  make: (hosts: string) => RuleFinding,
): void {
  const entry = into.get(key);
  if (entry === undefined) into.set(key, { hosts: new Set([host]), make });
  else entry.hosts.add(host);
}

/** Checks the reverse path of the CNPs `r` sends to `s` (its data senders). */
function checkPair(
  s: NicConfig,
  r: NicConfig,
  pathOf: PathOf,
  classOf: (path: readonly string[], dscp: number, priority: number) => readonly [string, number][],
  memo: PathChecks,
  out: Map<string, { hosts: Set<string>; make: (hosts: string) => RuleFinding }>,
): void {
  const reverse = pathOf(r.name, s.port.ip);
  const forward = pathOf(s.name, r.port.ip);
  const dscp = r.qos.cnpDscp;
  for (const [name, priority] of classOf(reverse, dscp, r.qos.cnpPriority))
    collect(out, `class|${name}|${dscp}|${priority}|${r.qos.cnpPriority}`, r.name, (hosts) => ({
      path: `switches.${name}.qos.dscpToPriority`,
      message: `CNPs at DSCP ${dscp} get priority ${priority} on ${name}, on their way back from ${hosts}, whose NICs send them on priority ${r.qos.cnpPriority}`,
      fix: `the same CNP priority on the NICs (qos.cnpPriority) and every switch (qos.dscpToPriority "${dscp}")`,
    }));
  const dataPriority = r.qos.dscpToPriority[r.qos.dataDscp]!;
  if (r.qos.cnpPriority === dataPriority)
    collect(out, `nic|${r.name}`, r.name, () => ({
      path: `hosts.${r.name}.qos.cnpPriority`,
      message: `${r.name} sends CNPs on priority ${dataPriority}, its data priority: a pause of its data holds its CNPs too`,
      fix: "qos: { cnpPriority: 6 } (ConnectX cnp_802p_prio), a priority of the CNPs' own",
    }));
  if (asymmetric(forward, reverse, memo))
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
    const memo = newPathChecks();
    const classOf = (path: readonly string[], dscp: number, priority: number) =>
      misclassedOn(lab, path, dscp, priority, memo);
    const out = new Map<string, { hosts: Set<string>; make: (hosts: string) => RuleFinding }>();
    for (const s of hosts) for (const r of hosts) if (s !== r) checkPair(s, r, pathOf, classOf, memo, out);
    return [...out.values()].map((e) => e.make([...e.hosts].join(", ")));
  },
};

export const CNP_PATH_RULES: readonly Rule[] = [cnpReturnPath];
