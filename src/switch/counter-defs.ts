// The switch counters other modules read (reports, the TUI, the series recorder), declared here once and
// registered by the switch module that keeps them. Consumers look values up by these definitions
// (tableKey), never by spelling or matching names.

import { type CounterDef, CounterKind, Label } from "../device/counters.js";

const PORT_QUEUE = [Label.Port, Label.Queue] as const;
const PORT_PRIORITY = [Label.Port, Label.Priority] as const;

export const SwitchCounter = {
  droppedLossless: {
    name: "dropped_lossless",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "drops of lossless-priority packets the fabric should have kept (not expired TTLs, not unroutable non-RoCE)",
    labels: [],
  },
  droppedLosslessLate: {
    name: "dropped_lossless_late",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "lossless drops of frames a punctual upstream would not have sent (free-clock live lab: its lateness, not the network's)",
    labels: [],
  },
  droppedLossy: {
    name: "dropped_lossy",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "every other drop: lossy priorities, expired TTLs, unroutable non-RoCE packets",
    labels: [],
  },
  bufferSharedUsed: {
    name: "buffer_shared_used_bytes",
    kind: CounterKind.Gauge,
    unit: "bytes",
    help: "bytes of the shared pool in use",
    labels: [],
  },
  bufferHeadroomUsed: {
    name: "buffer_headroom_used_bytes",
    kind: CounterKind.Gauge,
    unit: "bytes",
    help: "bytes held in PFC headroom now",
    labels: [],
  },
  pgXoff: {
    name: "pg_xoff",
    key: "pg{priority}_xoff",
    kind: CounterKind.Gauge,
    unit: "state",
    help: "1 while the ingress PG holds its upstream paused",
    labels: PORT_PRIORITY,
  },
  queueDropped: {
    name: "queue_dropped",
    key: "dropped",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "packets meant for this egress queue that were dropped, any reason",
    labels: PORT_QUEUE,
  },
  ecnMarked: {
    name: "ecn_marked",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "packets this egress queue marked CE",
    labels: PORT_QUEUE,
  },
  wredDropped: {
    name: "wred_dropped",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "Not-ECT packets WRED dropped at this egress queue",
    labels: PORT_QUEUE,
  },
  watermark: {
    name: "queue_watermark_bytes",
    key: "watermark_bytes",
    kind: CounterKind.Gauge,
    unit: "bytes",
    help: "peak depth of the egress queue",
    labels: PORT_QUEUE,
  },
} as const satisfies Record<string, CounterDef>;
