// An ECMP group: the equal-cost next hops of one route, ordered by the peer's IP address (then port), so
// that a member's position means the same on every switch (label-based strategies such as LBN rely on
// it). The group knows which members are up through a port-state callback; `live` lists them in order.

export interface EcmpMember {
  readonly port: number;
  /** The peer's address; 0 when the destination is on the port's own subnet. */
  readonly via: number;
}

export type PortUp = (port: number) => boolean;

export class EcmpGroup {
  readonly members: readonly EcmpMember[];
  private liveMembers: EcmpMember[] = [];

  constructor(
    members: readonly EcmpMember[],
    private readonly portUp: PortUp,
  ) {
    this.members = [...members].sort((a, b) => a.via - b.via || a.port - b.port);
    this.refresh();
  }

  /** Members whose port is up, in member order. */
  get live(): readonly EcmpMember[] {
    return this.liveMembers;
  }

  /** Re-reads the port states (after a link went down or came back). */
  refresh(): void {
    this.liveMembers = this.members.filter((m) => this.portUp(m.port));
  }

  isUp(index: number): boolean {
    const m = this.members[index];
    return m !== undefined && this.portUp(m.port);
  }
}
