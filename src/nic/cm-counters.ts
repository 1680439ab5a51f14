// The CM agent's counters (cm-agent.ts), named after Linux's ib_cm sysfs counters
// (/sys/class/infiniband_cm/<device>/<port>/cm_tx_msgs/<kind> and cm_rx_msgs/<kind>, drivers/infiniband/
// core/cm.c), plus the connection set-up time an active side measures from its REQ to the REP (what
// rdma_connect's caller waits for RDMA_CM_EVENT_ESTABLISHED; librdmacm). Declared once here and
// registered on the NIC's counter registry by the agent.

import { type CounterDef, CounterKind, type CounterSet } from "../device/counters.js";

/** The CM messages the lab speaks, in ib_cm's counter names. */
const KINDS = ["req", "rep", "rtu", "dreq", "drep"] as const;
export type CmKind = (typeof KINDS)[number];

const msgs = (dir: "tx" | "rx", kind: CmKind): CounterDef => ({
  name: `cm_${dir}_msgs_${kind}`,
  kind: CounterKind.Counter,
  unit: "messages",
  help: `CM ${kind.toUpperCase()} messages ${dir === "tx" ? "sent" : "received"} (ib_cm cm_${dir}_msgs/${kind})`,
  labels: [],
});

export const CmCounter = {
  tx: Object.fromEntries(KINDS.map((k) => [k, msgs("tx", k)])) as Record<CmKind, CounterDef>,
  rx: Object.fromEntries(KINDS.map((k) => [k, msgs("rx", k)])) as Record<CmKind, CounterDef>,
  connects: {
    name: "cm_connects",
    kind: CounterKind.Counter,
    unit: "connections",
    help: "connections this NIC set up as the active side (REQ sent, REP received)",
    labels: [],
  },
  connectTimeTotal: {
    name: "cm_connect_time_ns_total",
    kind: CounterKind.Counter,
    unit: "ns",
    help: "set-up time of those connections summed, REQ sent to REP received (emulated ns)",
    labels: [],
  },
  connectTimeMax: {
    name: "cm_connect_time_max_ns",
    kind: CounterKind.Gauge,
    unit: "ns",
    help: "the longest of those set-up times (emulated ns)",
    labels: [],
  },
} as const;

export interface CmCounters {
  readonly tx: Record<CmKind, Float64Array>;
  readonly rx: Record<CmKind, Float64Array>;
  readonly connects: Float64Array;
  readonly connectTimeTotal: Float64Array;
  readonly connectTimeMax: Float64Array;
}

/** Registers the CM counters on `set` and returns their slots. */
export function declareCmCounters(set: CounterSet): CmCounters {
  const each = (defs: Record<CmKind, CounterDef>) =>
    Object.fromEntries(KINDS.map((k) => [k, set.add(defs[k])])) as Record<CmKind, Float64Array>;
  return {
    tx: each(CmCounter.tx),
    rx: each(CmCounter.rx),
    connects: set.add(CmCounter.connects),
    connectTimeTotal: set.add(CmCounter.connectTimeTotal),
    connectTimeMax: set.add(CmCounter.connectTimeMax),
  };
}

/** The counter kind of a CM attribute name (REQ → req), or undefined for one the lab does not count. */
export function cmKind(name: string): CmKind | undefined {
  const k = name.toLowerCase();
  return (KINDS as readonly string[]).includes(k) ? (k as CmKind) : undefined;
}
