// Stage 3, forward: longest-prefix match (fib.ts) gives the route's ECMP group; the load-balancing
// strategy (lb/) picks the member; the next hop's address is the member's peer, or the destination itself
// on a directly attached subnet. A next hop on a link aggregation group's port is then resolved to the
// member that carries the packet (lb/lag-group.ts). The next hop's MAC comes from ARP (control/arp.ts).

import type { Nanoseconds } from "../../device/contract.js";
import type { LagSelector } from "../../lb/lag-group.js";
import type { LbOverride } from "../../lb/path-table.js";
import type { LbStrategy } from "../../lb/strategy.js";
import type { Fib } from "../fib.js";
import type { PacketMeta } from "../packet-meta.js";

export class Forwarder {
  private strategy: LbStrategy | null = null;
  /** Consulted first when set (path navigation's installed entries); null: the strategy alone. */
  private override: LbOverride | null = null;
  /** Link aggregation groups: a next hop on a member port is resolved to the member that carries it. */
  private lags: LagSelector | null = null;

  constructor(private readonly fib: Fib) {}

  setStrategy(strategy: LbStrategy): void {
    this.strategy = strategy;
  }

  /** The strategy in force (a controller's model of the switch hashes with it). */
  get currentStrategy(): LbStrategy | null {
    return this.strategy;
  }

  setOverride(override: LbOverride | null): void {
    this.override = override;
  }

  setLags(lags: LagSelector | null): void {
    this.lags = lags;
  }

  /** Sets out-port and next-hop address; false when no route (with a live next hop) matches. */
  route(m: PacketMeta, now: Nanoseconds): boolean {
    const entry = this.fib.lookup(m.dstIp);
    if (entry === null) return false;
    const o = this.override;
    let hop =
      (o === null ? null : o.select(m, entry.group, now)) ?? this.strategy!.select(m, entry.group, now);
    if (this.lags !== null) hop = this.lags.resolve(hop, m, now);
    m.outPort = hop.port;
    m.nextHopIp = hop.via !== 0 ? hop.via : m.dstIp;
    return true;
  }
}
