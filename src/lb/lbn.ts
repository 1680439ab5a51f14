// LBN (Load Balance Network, H3C): a port-level low-entropy scheme. Every ingress port in an LBN group has
// an index; all of that port's traffic leaves on member (index mod N) of the route's ECMP group, whose
// members are numbered by their peer's IP address, smallest first (lb/ecmp-group.ts). So with ports 1-3
// at indices 0-2 and a 3-member group, port 1 → member 0, port 2 → member 1, port 3 → member 2.
//
// Failover: plain LBN recomputes index mod N over the members still up, so most ports move and two of
// them may share one member; with the enhanced failover only the flows of a failed member are re-hashed
// (by the flow's ECMP hash) over the survivors, every other port keeps its member. Ports outside every
// LBN group are hashed by static ECMP.

import type { Nanoseconds } from "../device/contract.js";
import type { EcmpGroup, EcmpMember } from "./ecmp-group.js";
import type { StaticEcmp } from "./static-ecmp.js";
import type { FlowFields, LbStrategy } from "./strategy.js";

export class Lbn implements LbStrategy {
  readonly name = "lbn";

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
    const i = idx % group.members.length;
    return group.isUp(i) ? group.members[i]! : this.fallback.select(m, group, now);
  }
}
