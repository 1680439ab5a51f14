// The fabric view's link table with link aggregation groups (docs/link-aggregation.md): a group is one
// aggregated link, as routing sees it — one row with its members' traffic combined (utilisation weighted
// by rate; queues, marks, drops and pauses summed; paused if any member is) — with its member links under
// it, instead of members that look like unrelated parallel links. Pure.

import type { LagLinkView } from "../lab/lab.js";
import type { LinkRow, PortMetrics } from "./derive.js";
import { splitEndpoint } from "./format.js";

/** One direction of a group: its members' egress metrics combined. */
function combine(ms: readonly (PortMetrics | null)[], rates: readonly number[]): PortMetrics | null {
  const present = ms.flatMap((m, i) => (m === null ? [] : [{ m, rate: rates[i]! }]));
  if (present.length === 0) return null;
  const sum = (f: (m: PortMetrics) => number) => present.reduce((s, p) => s + f(p.m), 0);
  const max = (f: (m: PortMetrics) => number) => Math.max(...present.map((p) => f(p.m)));
  const measured = present.filter((p) => p.m.util !== null);
  const rate = measured.reduce((s, p) => s + p.rate, 0);
  const first = present[0]!.m;
  return {
    node: first.node,
    port: first.port,
    up: present.some((p) => p.m.up),
    util:
      measured.length === 0 || rate === 0
        ? null
        : measured.reduce((s, p) => s + p.m.util! * p.rate, 0) / rate,
    pausedFrac: max((m) => m.pausedFrac),
    pausedNow: present.some((p) => p.m.pausedNow),
    xoffFrac: max((m) => m.xoffFrac),
    xoffNow: present.some((p) => p.m.xoffNow),
    queueBytes: sum((m) => m.queueBytes),
    watermarkBytes: max((m) => m.watermarkBytes),
    ecnMarked: sum((m) => m.ecnMarked),
    ecnDelta: sum((m) => m.ecnDelta),
    drops: sum((m) => m.drops),
    dropDelta: sum((m) => m.dropDelta),
    txPause: sum((m) => m.txPause),
    rxPause: sum((m) => m.rxPause),
    txPauseDelta: sum((m) => m.txPauseDelta),
    rxPauseDelta: sum((m) => m.rxPauseDelta),
    watchdog: max((m) => m.watchdog),
  };
}

/**
 * The link table's rows: each group where its first member was (a combined row, then its members
 * labelled by their ports), every other link as it is. Without groups the rows are returned unchanged.
 */
export function withLagRows(rows: readonly LinkRow[], lags: readonly LagLinkView[] | undefined): LinkRow[] {
  if (lags === undefined || lags.length === 0) return [...rows];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const lagOf = new Map<number, LagLinkView>();
  for (const g of lags) for (const id of g.linkIds) lagOf.set(id, g);
  const out: LinkRow[] = [];
  for (const r of rows) {
    const g = lagOf.get(r.id);
    if (g === undefined) {
      out.push(r);
      continue;
    }
    if (g.linkIds[0] !== r.id && byId.has(g.linkIds[0]!)) continue; // the group's row is at its first member
    const members = g.linkIds.flatMap((id) => byId.get(id) ?? []);
    // Orient every member as the group is (a: the group's first switch).
    const oriented = members.map((m) =>
      splitEndpoint(m.a).node === g.a ? m : { ...m, a: m.b, b: m.a, ab: m.ba, ba: m.ab },
    );
    const up = oriented.filter((m) => m.up).length;
    const rates = oriented.map((m) => m.rateBps);
    out.push({
      id: r.id,
      a: `${g.a}:${g.name}`,
      b: `${g.b}:${g.name}`,
      up: up > 0,
      rateBps: rates.reduce((s, x) => s + x, 0),
      ab: combine(
        oriented.map((m) => m.ab),
        rates,
      ),
      ba: combine(
        oriented.map((m) => m.ba),
        rates,
      ),
      label: `${g.a}:${g.name} ↔ ${g.b}:${g.name} ${up}/${members.length}`,
    });
    for (const [i, m] of oriented.entries()) {
      const end = (e: string) => `eth${splitEndpoint(e).port}`;
      const branch = i === oriented.length - 1 ? "└" : "├";
      out.push({ ...m, label: `  ${branch} ${end(m.a)} ↔ ${end(m.b)}` });
    }
  }
  return out;
}
