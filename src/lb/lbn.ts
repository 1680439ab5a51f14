// LBN (Load Balance Network, H3C): a port-level low-entropy scheme. Every ingress port in an LBN group has
// an index; all of that port's traffic leaves on member (index mod N) of the route's ECMP group, whose
// members are numbered by their peer's IP address, smallest first (lb/ecmp-group.ts). So with ports 1-3
// at indices 0-2 and a 3-member group, port 1 → member 0, port 2 → member 1, port 3 → member 2.
//
// Failover: plain LBN recomputes index mod N over the members still up, so most ports move and two of
// them may share one member; with the enhanced failover only the flows of a failed member are re-hashed
// (by the flow's ECMP hash) over the survivors, every other port keeps its member. Ports outside every
// LBN group are hashed by static ECMP.
//
// The enhanced mode must keep the numbering when the routing protocol withdraws the failed next hop (the
// lab recomputes routes after a link change, and the new group has one member fewer): it remembers the
// largest member set each group had, and numbers members over that set; a remembered member missing from
// the current group counts as failed. A group with a member never seen before starts a new set.

import type { Nanoseconds } from "../device/contract.js";
import type { EcmpGroup, EcmpMember } from "./ecmp-group.js";
import type { StaticEcmp } from "./static-ecmp.js";
import type { FlowFields, LbStrategy } from "./strategy.js";

export class Lbn implements LbStrategy {
  readonly name = "lbn";
  /** Member sets seen (ports, in member order), and which of them each group object is numbered over. */
  private readonly known: number[][] = [];
  private readonly numbering = new WeakMap<EcmpGroup, readonly number[]>();

  constructor(
    /** LBN index by ingress port number, -1 for ports in no LBN group. */
    private readonly index: Int32Array,
    private readonly enhancedFailover: boolean,
    /** Ports without an index, and the enhanced failover's re-hash. */
    private readonly fallback: StaticEcmp,
  ) {}

  select(m: FlowFields, group: EcmpGroup, now: Nanoseconds): EcmpMember {
    const inPort = m.inPort ?? -1;
    const idx = inPort >= 0 && inPort < this.index.length ? this.index[inPort]! : -1;
    if (idx < 0) return this.fallback.select(m, group, now);
    if (!this.enhancedFailover) {
      const live = group.live;
      return live[idx % live.length]!;
    }
    const full = this.numberingOf(group);
    const port = full[idx % full.length]!;
    const live = group.live;
    for (let i = 0; i < live.length; i++) if (live[i]!.port === port) return live[i]!;
    return this.fallback.select(m, group, now);
  }

  /** The remembered member set `group` is numbered over (computed once per group object). */
  private numberingOf(group: EcmpGroup): readonly number[] {
    const cached = this.numbering.get(group);
    if (cached !== undefined) return cached;
    const ports = group.members.map((m) => m.port);
    let set = this.known.find((k) => ports.every((p) => k.includes(p)));
    if (set === undefined || set.length < ports.length) {
      set = ports;
      this.known.push(set);
    }
    this.numbering.set(group, set);
    return set;
  }
}
