// The per-port counters both devices keep, switch and NIC alike, declared once (as the PFC counters are:
// l2/pfc-counters.ts): frames and bytes each way, and the wire time used and lost. Readers look them up by
// these definitions (readCounter), never by spelling.

import { type CounterDef, CounterKind, Label } from "../counters.js";

const PORT = [Label.Port] as const;

export const PortCounter = {
  txPackets: {
    name: "tx_packets",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "frames sent",
    labels: PORT,
  },
  txBytes: {
    name: "tx_bytes",
    kind: CounterKind.Counter,
    unit: "bytes",
    help: "bytes sent",
    labels: PORT,
  },
  txBusy: {
    name: "tx_busy_ns",
    kind: CounterKind.Counter,
    unit: "ns",
    help: "wire time used (divide by elapsed time for utilisation)",
    labels: PORT,
  },
  txStalled: {
    name: "tx_stalled_ns",
    kind: CounterKind.Counter,
    unit: "ns",
    help: "wire time lost because the runtime woke the port too late",
    labels: PORT,
  },
  rxPackets: {
    name: "rx_packets",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "frames received on an up port",
    labels: PORT,
  },
  rxBytes: {
    name: "rx_bytes",
    kind: CounterKind.Counter,
    unit: "bytes",
    help: "bytes received on an up port",
    labels: PORT,
  },
} as const satisfies Record<string, CounterDef>;
