// What link aggregation counts and shows: per-member counters declared on the switch's CounterSet
// (LACPDUs in and out, selected and active gauges, timeouts, membership changes, frames the distributor
// gave the member) and the table `rocelab stats`, the TUI node view and reports read (SwitchDetail.lag).

import { CounterKind, type CounterSet, Label } from "../../device/counters.js";
import type { LagSet } from "../../lb/lag-group.js";
import type { LagConfig, LagHashField } from "../config.js";
import type { LacpPort } from "../control/lacp.js";
import { macText } from "../control/lldp.js";
import type { SwitchPort } from "../port.js";

/** One member as `rocelab stats` shows it. */
export interface LagMemberState {
  readonly port: number;
  readonly name: string;
  readonly up: boolean;
  /** Carries the group's traffic now (static: link up; LACP: collecting and distributing at both ends). */
  readonly active: boolean;
  /** LACP only: the selection logic picked it, its mux state, and the partner it hears. */
  readonly selected: boolean | null;
  readonly mux: string | null;
  readonly partner: { readonly system: string; readonly key: number; readonly port: number } | null;
}

/** One aggregation group of a switch (`detail.lag` of its stats). */
export interface LagState {
  readonly name: string;
  readonly mode: "static" | "lacp";
  readonly balance: string;
  readonly hash: readonly string[];
  readonly members: readonly LagMemberState[];
}

export const LAG_COUNTERS = {
  rxPdus: {
    name: "lacp_rx_pdus",
    kind: CounterKind.Counter,
    unit: "frames",
    help: "LACPDUs received on the port",
    labels: [Label.Port],
  },
  txPdus: {
    name: "lacp_tx_pdus",
    kind: CounterKind.Counter,
    unit: "frames",
    help: "LACPDUs sent on the port",
    labels: [Label.Port],
  },
  timeouts: {
    name: "lacp_timeouts",
    kind: CounterKind.Counter,
    unit: "events",
    help: "times the partner's information ran out (no LACPDU for 3 × its period)",
    labels: [Label.Port],
  },
  changes: {
    name: "lag_member_changes",
    kind: CounterKind.Counter,
    unit: "events",
    help: "times the member joined or left its group's active set",
    labels: [Label.Port],
  },
  memberFrames: {
    name: "lag_member_frames",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "packets the group's distributor gave this member",
    labels: [Label.Port],
  },
  selected: {
    name: "lag_member_selected",
    kind: CounterKind.Gauge,
    unit: "flag",
    help: "1 while LACP's selection logic has the member selected (static members: link up)",
    labels: [Label.Port],
  },
  active: {
    name: "lag_member_active",
    kind: CounterKind.Gauge,
    unit: "flag",
    help: "1 while the member carries traffic (LACP: collecting and distributing at both ends)",
    labels: [Label.Port],
  },
} as const;

export class LagCounters {
  readonly rxPdus: Float64Array;
  readonly txPdus: Float64Array;
  readonly timeouts: Float64Array;
  readonly changes: Float64Array;
  readonly memberFrames: Float64Array;
  private readonly selected: Float64Array;
  private readonly active: Float64Array;

  constructor(c: CounterSet) {
    this.rxPdus = c.add(LAG_COUNTERS.rxPdus);
    this.txPdus = c.add(LAG_COUNTERS.txPdus);
    this.timeouts = c.add(LAG_COUNTERS.timeouts);
    this.changes = c.add(LAG_COUNTERS.changes);
    this.memberFrames = c.add(LAG_COUNTERS.memberFrames);
    this.selected = c.add(LAG_COUNTERS.selected);
    this.active = c.add(LAG_COUNTERS.active);
  }

  /** Brings the gauges in line with the groups' state. */
  refresh(set: LagSet, lacp: ReadonlyMap<number, LacpPort>): void {
    for (const g of set.groups) {
      for (const m of g.group.members) {
        const lp = lacp.get(m.port);
        const active = g.isActive(m.port);
        this.active[m.port] = active ? 1 : 0;
        this.selected[m.port] = (lp === undefined ? active : lp.selected) ? 1 : 0;
      }
    }
  }
}

export function lagTable(
  groups: readonly LagConfig[],
  balance: string,
  fields: readonly LagHashField[],
  set: LagSet,
  lacp: ReadonlyMap<number, LacpPort>,
  ports: readonly (SwitchPort | undefined)[],
): LagState[] {
  return groups.map((g) => {
    const group = set.groupAt(g.members[0]!.port)!;
    return {
      name: g.name,
      mode: g.mode,
      balance: g.balance ?? balance,
      hash: g.hash ?? fields,
      members: [...g.members]
        .sort((a, b) => a.port - b.port)
        .map((m) => {
          const lp = lacp.get(m.port);
          const p = lp?.partner ?? null;
          return {
            port: m.port,
            name: ports[m.port]?.cfg.name ?? `eth${m.port}`,
            up: ports[m.port]?.up ?? false,
            active: group.isActive(m.port),
            selected: lp === undefined ? null : lp.selected,
            mux: lp === undefined ? null : lp.mux,
            partner: p === null ? null : { system: macText(p.system), key: p.key, port: p.port },
          };
        }),
    };
  });
}

/** One member in a word: "active", "selected" (attached, waiting for the partner), "standby" or "down". */
export function memberWord(m: LagMemberState): string {
  if (!m.up) return "down";
  if (m.active) return "active";
  if (m.selected === true) return "selected";
  return "standby";
}

/** "lacp hash: eth1 active, eth2 down": a group in one line (reports, `rocelab stats`). */
export function lagSummary(g: LagState): string {
  return `${g.mode} ${g.balance}: ${g.members.map((m) => `${m.name} ${memberWord(m)}`).join(", ")}`;
}
