// The NIC's stats(): the flat counter table (mlx5 names, see counters.ts), the port table (`ethtool -S`
// style: MAC counters with the RDMA ones beside them) and the NIC detail (per-QP state, completions,
// latency, receive buffer).

import type { Counters, Nanoseconds, PortStats } from "../device/contract.js";
import { type CounterSet, deviceTable, levelKeys } from "../device/counters.js";
import { pfcKey } from "../device/l2/pfc-counters.js";
import { PortCounter } from "../device/l2/port-counters.js";
import type { TxPort } from "../device/tx-port.js";
import { PRIORITIES } from "../wire/pfc.js";
import type { HostPort } from "./l2/host-port.js";
import type { PauseState } from "./l2/pause-state.js";
import type { RxBuffer } from "./l2/rx-buffer.js";
import { DROP_REASONS, PORT } from "./nic-ids.js";
import type { NicShared } from "./nic-shared.js";
import type { ReceivePath } from "./receive-path.js";
import type { NicDetail, NicStats, QpStats } from "./stats-types.js";
import type { QueuePair } from "./transport/qp.js";
import { QpState } from "./transport/work-completion.js";

/** The parts of a NIC whose counters its stats report. */
export interface NicParts {
  readonly name: string;
  readonly shared: NicShared;
  readonly port: TxPort;
  readonly rx: ReceivePath;
  readonly rxBuffer: RxBuffer;
  readonly host: HostPort;
  readonly pause: PauseState;
}

/** The port table's levels beside the declared gauges: the receive buffer's fill and its peak. */
const PORT_LEVELS = ["rx_buffer_bytes", "rx_buffer_peak_bytes"] as const;

/** The keys of a NIC's stats tables that are levels, not counts (device/counters.ts levelKeys). */
export function nicLevelKeys(set: CounterSet): string[] {
  return [...levelKeys(set, DROP_REASONS), ...PORT_LEVELS];
}

export function nicStats(n: NicParts, up: boolean, now: Nanoseconds): NicStats {
  const { shared: s, port: tx, rx, rxBuffer, host, pause } = n;
  const counters: Counters = deviceTable(s.counterSet, now, DROP_REASONS);
  counters.tx_packets = tx.txFrames;
  counters.tx_bytes = tx.txBytes;
  counters.rx_packets = rx.rxPackets;
  counters.rx_bytes = rx.rxBytes;
  const port: Counters = {
    [PortCounter.rxPackets.name]: rx.rxPackets,
    [PortCounter.rxBytes.name]: rx.rxBytes,
    [PortCounter.txPackets.name]: tx.txFrames,
    [PortCounter.txBytes.name]: tx.txBytes,
    [PortCounter.txBusy.name]: tx.busyNs,
    [PortCounter.txStalled.name]: tx.stalledNs,
    [PORT_LEVELS[0]]: rxBuffer.bytes,
    [PORT_LEVELS[1]]: rxBuffer.peakBytes,
    host_rx_frames: host.toHostFrames,
    host_tx_frames: host.fromHostFrames,
    host_tx_dropped: host.txDropped,
  };
  // Per priority: the PFC counters, declared once for both devices (device/l2/pfc-counters.ts).
  const perPriority = s.counterSet.all.filter((c) => c.def.labels.length === 2);
  for (let p = 0; p < PRIORITIES; p++) {
    for (const c of perPriority) port[pfcKey(c.def, p)] = s.counterSet.read(c, PORT * PRIORITIES + p, now);
  }
  // The port table also carries the device counters, as `ethtool -S` shows RDMA counters beside MAC ones.
  for (const [k, v] of Object.entries(counters)) if (!(k in port)) port[k] = v;
  const ports: PortStats[] = [{ port: PORT, name: "eth1", up, counters: port }];
  const paused = pause.isPaused(s.dataPrio);
  const detail: NicDetail = {
    qps: s.qps.map((qp) => qpStats(s, qp, paused, now)),
    flows: [...s.flows],
    latency: s.latency.snapshot(),
    rxBuffer: { bytes: rxBuffer.bytes, peakBytes: rxBuffer.peakBytes, xoff: rxBuffer.xoff },
  };
  return { kind: "nic", name: n.name, now, counters, ports, detail };
}

function qpStats(s: NicShared, qp: QueuePair, paused: boolean, now: Nanoseconds): QpStats {
  const rp = qp.cc;
  const r = qp.requester;
  const lineRate = s.lineRate;
  return {
    qpn: qp.qpn,
    remoteQpn: qp.remoteQpn,
    remoteIp: qp.remoteIp,
    udpSrcPort: qp.udpSrcPort,
    rateBps: qp.rate(lineRate),
    targetRateBps: rp === null ? lineRate : rp.target,
    alpha: rp === null ? 0 : rp.alpha(now),
    windowBytes: rp?.window ?? 0,
    rttNs: rp?.rtt ?? 0,
    utilisation: rp?.util ?? 0,
    bytesSent: r.bytesSent + qp.responder.bytesSent,
    bytesAcked: r.bytesAcked,
    bytesDelivered: qp.responder.bytesDelivered,
    readBytesReceived: r.readBytesReceived,
    retransmits: r.retransmits,
    cnpHandled: rp === null ? 0 : rp.cnpHandled,
    cnpIgnored: qp.cnpIgnored,
    cnpSent: qp.cnpSent,
    ecnMarked: qp.ecnMarked,
    inflightPackets: r.inflightPackets,
    pendingMessages: r.pendingMessages,
    paused,
    state: qp.state === QpState.Error ? "error" : "rts",
    sqPsn: r.wire(r.highV),
    rqPsn: qp.responder.ePsn,
  };
}
