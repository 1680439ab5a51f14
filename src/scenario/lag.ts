// Link aggregation groups in a topology (docs/link-aggregation.md): each `lags` entry names member ports
// on one switch; the links at those ports must all lead to one other switch, whose ends form the same
// group there. Checked here with a message naming the file, the path and what is allowed; routing then
// treats each group as one adjacency (routing.ts) and the switches get their groups (switch-config.ts).

import type { LagBalance, LagHashField } from "../switch/config.js";
import type { LagSettings } from "./schema.js";

/** What a group's check needs of a link (topology.ts's TopoLink has it). */
interface LinkEnds {
  readonly id: number;
  readonly a: { readonly node: string; readonly port: number };
  readonly b: { readonly node: string; readonly port: number };
}

export interface LagEnd {
  readonly node: string;
  /** Member ports, in the order of `lags[i].members` (the two ends pair up link by link). */
  readonly ports: readonly number[];
}

export interface TopoLag {
  readonly name: string;
  /** 1-based position in the list: the LACP key. */
  readonly key: number;
  readonly mode: "static" | "lacp";
  readonly rate: "fast" | "slow";
  /** null: the switch's ecmp fields. */
  readonly hash: readonly LagHashField[] | null;
  /** null: the switch's `lag.balance`. */
  readonly balance: LagBalance | null;
  readonly ends: readonly [LagEnd, LagEnd];
  readonly linkIds: readonly number[];
}

type Problem = (at: (string | number)[], message: string) => void;

export function resolveLags(
  entries: readonly LagSettings[],
  links: readonly LinkEnds[],
  kinds: ReadonlyMap<string, string>,
  problem: Problem,
): TopoLag[] {
  const out: TopoLag[] = [];
  const taken = new Map<string, string>();
  const names = new Set<string>();
  entries.forEach((e, i) => {
    const at = ["lags", i];
    if (names.has(e.name)) problem([...at, "name"], `group name "${e.name}" is used by another group`);
    names.add(e.name);
    if (e.rate !== undefined && e.mode !== "lacp")
      problem([...at, "rate"], "rate is LACP's periodic rate: it needs mode: lacp");
    const near: number[] = [];
    const far: number[] = [];
    const ids: number[] = [];
    let nearNode: string | null = null;
    let farNode: string | null = null;
    let ok = true;
    for (const [j, text] of e.members.entries()) {
      const [node, iface] = text.split(":") as [string, string];
      const port = Number(iface.slice(3));
      const link = links.find(
        (l) => (l.a.node === node && l.a.port === port) || (l.b.node === node && l.b.port === port),
      );
      const peer = link === undefined ? null : link.a.node === node && link.a.port === port ? link.b : link.a;
      let message: string | null = null;
      if (kinds.get(node) !== "switch") message = `"${node}" is not a switch of this topology`;
      else if (link === undefined || peer === null) message = `${text} is not the end of any link`;
      else if (kinds.get(peer.node) !== "switch")
        message = `${text} leads to ${peer.node}, a host: a group joins two switches`;
      else if (nearNode !== null && node !== nearNode)
        message = `${text} is on ${node}, the other members on ${nearNode}: list the ports of one switch`;
      else if (farNode !== null && peer.node !== farNode)
        message = `${text} leads to ${peer.node}, the other members to ${farNode}: a group joins two switches`;
      else {
        const owner = taken.get(`${node}:${port}`) ?? taken.get(`${peer.node}:${peer.port}`);
        if (owner !== undefined) message = `${text} (or its peer port) is already a member of ${owner}`;
      }
      if (message !== null || link === undefined || peer === null) {
        ok = false;
        problem([...at, "members", j], message ?? "");
        continue;
      }
      nearNode = node;
      farNode = peer.node;
      taken.set(`${node}:${port}`, e.name);
      taken.set(`${peer.node}:${peer.port}`, e.name);
      near.push(port);
      far.push(peer.port);
      ids.push(link.id);
    }
    if (!ok || nearNode === null || farNode === null) return;
    out.push({
      name: e.name,
      key: i + 1,
      mode: e.mode ?? "static",
      rate: e.rate ?? "slow",
      hash: e.hash ?? null,
      balance: e.balance ?? null,
      ends: [
        { node: nearNode, ports: near },
        { node: farNode, ports: far },
      ],
      linkIds: ids,
    });
  });
  return out;
}

/** The group (and its end) a switch port belongs to, or null. */
export function lagAt(
  lags: readonly TopoLag[],
  node: string,
  port: number,
): { lag: TopoLag; end: LagEnd } | null {
  for (const lag of lags)
    for (const end of lag.ends) if (end.node === node && end.ports.includes(port)) return { lag, end };
  return null;
}
