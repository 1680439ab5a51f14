// LACP on one member port (IEEE 802.1AX-2014 §6.4, formerly IEEE 802.3ad), reduced to what a lab needs;
// docs/link-aggregation.md lists the departures. Per port:
//   receive   an LACPDU records the partner (its actor TLV), restarts current_while (3 × the partner's
//             periodic time: 3 s with the short timeout, 90 s with the long one), and marks the partner
//             in sync only when it is in sync and its view of us (its partner TLV) matches what we send;
//             current_while running out forgets the partner (the EXPIRED step is folded into DEFAULTED);
//   selection a port is selected when it has a partner that aggregates, and that partner (system, key) is
//             the one the group's lowest selected port sees (a member cabled elsewhere stays out);
//   mux       coupled control: DETACHED → ATTACHED (Synchronization) when selected → COLLECTING_
//             DISTRIBUTING when the partner is in sync; back when that stops holding;
//   periodic  an LACPDU every second while the partner asks for the short timeout, every 30 s otherwise,
//             and at once whenever what we say changes (the NTT flag; no three-per-second limit).
// The member carries traffic only while both ends are collecting and distributing.

import type { Nanoseconds } from "../../device/contract.js";
import type { MacAddress } from "../../wire/bytes.js";
import { buildLacpFrame, type Lacpdu, type LacpPortInfo, LacpState } from "../../wire/lacp.js";

export const NS_PER_S = 1_000_000_000;
/** 802.1AX §6.4.4: fast and slow periodic times; timeouts are 3 × these. */
export const FAST_PERIODIC_NS = 1 * NS_PER_S;
export const SLOW_PERIODIC_NS = 30 * NS_PER_S;
export const TIMEOUT_MULTIPLIER = 3;

export const MuxState = {
  Detached: "detached",
  Attached: "attached",
  CollectingDistributing: "collecting-distributing",
} as const;
export type MuxState = (typeof MuxState)[keyof typeof MuxState];

export interface LacpActor {
  readonly systemPriority: number;
  readonly system: MacAddress;
  readonly key: number;
  readonly portPriority: number;
  /** Short timeout: ask the partner for LACPDUs every second. */
  readonly fast: boolean;
}

export class LacpPort {
  partner: LacpPortInfo | null = null;
  /** The partner is in sync and sees us as we are. */
  partnerInSync = false;
  selected = false;
  mux: MuxState = MuxState.Detached;
  expiresAt: Nanoseconds = -1;
  /** Set when what we would say changed: send now. */
  ntt = false;

  constructor(
    readonly port: number,
    readonly mac: MacAddress,
    private actor: LacpActor,
  ) {}

  setActor(actor: LacpActor): void {
    this.actor = actor;
    this.ntt = true;
  }

  get actorState(): number {
    let s = LacpState.Activity | LacpState.Aggregation;
    if (this.actor.fast) s |= LacpState.Timeout;
    if (this.mux !== MuxState.Detached) s |= LacpState.Synchronization;
    if (this.mux === MuxState.CollectingDistributing) s |= LacpState.Collecting | LacpState.Distributing;
    if (this.partner === null) s |= LacpState.Defaulted;
    return s;
  }

  actorInfo(): LacpPortInfo {
    const a = this.actor;
    return {
      systemPriority: a.systemPriority,
      system: a.system,
      key: a.key,
      portPriority: a.portPriority,
      port: this.port,
      state: this.actorState,
    };
  }

  /** Both ends collecting and distributing: the member may carry the group's traffic. */
  get active(): boolean {
    const p = this.partner;
    const both = LacpState.Collecting | LacpState.Distributing;
    return this.mux === MuxState.CollectingDistributing && p !== null && (p.state & both) === both;
  }

  /** How often we send: as the partner asks (its timeout bit); our own rate while we have none. */
  get periodNs(): Nanoseconds {
    const fast = this.partner === null ? this.actor.fast : (this.partner.state & LacpState.Timeout) !== 0;
    return fast ? FAST_PERIODIC_NS : SLOW_PERIODIC_NS;
  }

  /** How long partner information stays current without an LACPDU. */
  get timeoutNs(): Nanoseconds {
    return TIMEOUT_MULTIPLIER * (this.actor.fast ? FAST_PERIODIC_NS : SLOW_PERIODIC_NS);
  }

  /** An LACPDU arrived (the receive machine's CURRENT state). */
  receive(pdu: Lacpdu, now: Nanoseconds): void {
    const before = this.partner;
    this.partner = pdu.actor;
    this.expiresAt = now + this.timeoutNs;
    const me = this.actorInfo();
    const p = pdu.partner;
    const viewMatches =
      p.system === me.system &&
      p.systemPriority === me.systemPriority &&
      p.key === me.key &&
      p.port === me.port &&
      p.portPriority === me.portPriority &&
      (p.state & LacpState.Aggregation) !== 0;
    this.partnerInSync = viewMatches && (pdu.actor.state & LacpState.Synchronization) !== 0;
    // Tell the partner when its view of us is stale (or it just appeared).
    const stateBits = LacpState.Synchronization | LacpState.Collecting | LacpState.Distributing;
    if (!viewMatches || (p.state & stateBits) !== (me.state & stateBits) || before === null) this.ntt = true;
  }

  /** current_while ran out, or the port lost carrier: the partner is forgotten. */
  forgetPartner(): void {
    if (this.partner !== null) this.ntt = true;
    this.partner = null;
    this.partnerInSync = false;
    this.expiresAt = -1;
  }

  /** The mux machine (coupled control) after selection; true when the state changed. */
  runMux(): boolean {
    const was = this.mux;
    if (!this.selected) this.mux = MuxState.Detached;
    else if (this.mux === MuxState.Detached) this.mux = MuxState.Attached;
    if (this.mux === MuxState.Attached && this.partnerInSync) this.mux = MuxState.CollectingDistributing;
    else if (this.mux === MuxState.CollectingDistributing && !this.partnerInSync)
      this.mux = MuxState.Attached;
    if (this.mux !== was) this.ntt = true;
    return this.mux !== was;
  }

  pdu(): Lacpdu {
    const p = this.partner;
    const partner: LacpPortInfo =
      p === null ? { systemPriority: 0, system: 0, key: 0, portPriority: 0, port: 0, state: 0 } : p;
    return { actor: this.actorInfo(), partner, collectorMaxDelay: 0 };
  }

  frame(): Uint8Array {
    this.ntt = false;
    return buildLacpFrame({ ...this.pdu(), src: this.mac });
  }
}

/** The selection logic over one group's ports: who aggregates with whom. */
export function selectPorts(ports: readonly LacpPort[], portUp: (port: number) => boolean): void {
  let chosen: LacpPortInfo | null = null;
  for (const lp of [...ports].sort((a, b) => a.port - b.port)) {
    const p = lp.partner;
    const can = p !== null && portUp(lp.port) && (p.state & LacpState.Aggregation) !== 0;
    if (!can) {
      lp.selected = false;
      continue;
    }
    if (chosen === null) chosen = p;
    lp.selected =
      p.system === chosen.system && p.systemPriority === chosen.systemPriority && p.key === chosen.key;
  }
}
