// Link aggregation groups as the forward stage sees them (IEEE 802.1AX's Frame Distributor): a route's next
// hop on any member port of a group stands for the whole group, and the group's own strategy picks the
// member that carries the packet — a hash of the configured fields, LBN or DLB, the same strategy objects
// the switch uses over ECMP groups (lb/static-ecmp.ts, lb/lbn.ts, lb/dlb.ts), now over the members that
// are active (link up and, with LACP, collecting and distributing at both ends). A group with no active
// member is down as a next hop, so the FIB falls back as it does for a failed port.

import type { Nanoseconds } from "../device/contract.js";
import { EcmpGroup, type EcmpMember } from "./ecmp-group.js";
import type { FlowFields, LbStrategy } from "./strategy.js";

export class LagGroup {
  readonly group: EcmpGroup;
  /** 1 while the member on this port may carry traffic (indexed by port). */
  private readonly active: Uint8Array;

  constructor(
    readonly name: string,
    members: readonly EcmpMember[],
    numPorts: number,
    readonly strategy: LbStrategy,
  ) {
    this.active = new Uint8Array(numPorts);
    this.group = new EcmpGroup(members, (p) => this.active[p] === 1);
  }

  /** Marks a member active or not; true when that changed the group's membership. */
  setActive(port: number, active: boolean): boolean {
    const v = active ? 1 : 0;
    if (this.active[port] === v) return false;
    this.active[port] = v;
    this.group.refresh();
    return true;
  }

  isActive(port: number): boolean {
    return this.active[port] === 1;
  }

  get up(): boolean {
    return this.group.live.length > 0;
  }
}

/** What the forward stage asks of the switch's groups. */
export interface LagSelector {
  /** The member that carries `m` when `hop` is on a group's port; `hop` itself otherwise. */
  resolve(hop: EcmpMember, m: FlowFields, now: Nanoseconds): EcmpMember;
  /** Whether a next hop on `port` can carry traffic (a group's port: the group has an active member). */
  hopUp(port: number, portUp: boolean): boolean;
}

export class LagSet implements LagSelector {
  /** Group index by port, -1 for ports in no group. */
  private readonly groupOf: Int32Array;

  constructor(
    readonly groups: readonly LagGroup[],
    numPorts: number,
    /** Packets the distributor gave each member, indexed by port. */
    private readonly perMember: Float64Array,
  ) {
    this.groupOf = new Int32Array(numPorts).fill(-1);
    groups.forEach((g, i) => {
      for (const m of g.group.members) this.groupOf[m.port] = i;
    });
  }

  groupAt(port: number): LagGroup | null {
    const i = port >= 0 && port < this.groupOf.length ? this.groupOf[port]! : -1;
    return i < 0 ? null : this.groups[i]!;
  }

  resolve(hop: EcmpMember, m: FlowFields, now: Nanoseconds): EcmpMember {
    const i = hop.port < this.groupOf.length ? this.groupOf[hop.port]! : -1;
    if (i < 0) return hop;
    const g = this.groups[i]!;
    // Only a lookup cached before the last member left lands here; the port-down checks drop it.
    if (g.group.live.length === 0) return hop;
    const member = g.strategy.select(m, g.group, now);
    this.perMember[member.port]!++;
    return member;
  }

  hopUp(port: number, portUp: boolean): boolean {
    const g = this.groupAt(port);
    return g === null ? portUp : g.up;
  }
}
