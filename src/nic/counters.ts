// NIC-wide counters, named as mlx5 names them where mlx5 has the counter (hw_counters of an RDMA port,
// ethtool -S of the netdev), so operators can grep them. Declared here once, as the switch's are
// (switch/counter-defs.ts): each is registered on the NIC's counter registry, which reports and clears it,
// and the parts increment its slot (a one-element Float64Array) on the hot path without a lookup. Readers
// (reports, the TUI, metrics) find values by these definitions, never by spelling names.

import { type CounterDef, CounterKind, type CounterSet } from "../device/counters.js";

/** Every NIC-wide counter (packets unless its unit says otherwise). */
export const NicCounter = {
  npCnpSent: {
    name: "np_cnp_sent",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "CNPs sent by the notification point",
    labels: [],
  },
  npEcnMarkedRocePackets: {
    name: "np_ecn_marked_roce_packets",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "CE-marked RoCE packets received",
    labels: [],
  },
  rpCnpHandled: {
    name: "rp_cnp_handled",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "CNPs the reaction point acted on",
    labels: [],
  },
  rpCnpIgnored: {
    name: "rp_cnp_ignored",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "CNPs received while DCQCN is off or for an unknown QP",
    labels: [],
  },
  outOfSequence: {
    name: "out_of_sequence",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "requests received with a PSN beyond the expected one",
    labels: [],
  },
  packetSeqErr: {
    name: "packet_seq_err",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "NAK PSN-sequence-error received (the requester resends from its PSN)",
    labels: [],
  },
  impliedNakSeqErr: {
    name: "implied_nak_seq_err",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "READ responses with a gap (read re-issued)",
    labels: [],
  },
  duplicateRequest: {
    name: "duplicate_request",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "duplicate requests received",
    labels: [],
  },
  duplicateResponse: {
    name: "duplicate_response",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "duplicate or unexpected READ responses",
    labels: [],
  },
  localAckTimeoutErr: {
    name: "local_ack_timeout_err",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "local ACK timeouts (the retransmission timer expired; each costs a retry)",
    labels: [],
  },
  rxWriteRequests: {
    name: "rx_write_requests",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "WRITE request messages accepted",
    labels: [],
  },
  rxSendRequests: {
    name: "rx_send_requests",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "SEND request messages accepted",
    labels: [],
  },
  rxReadRequests: {
    name: "rx_read_requests",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "READ request messages accepted",
    labels: [],
  },
  payloadMismatch: {
    name: "payload_mismatch",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "data payloads that did not match the sender's pattern",
    labels: [],
  },
  rxInvalidRequest: {
    name: "rx_invalid_request",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "in-order requests refused with NAK Invalid Request (opcode, sequence, length, malformed)",
    labels: [],
  },
  respRemoteAccessErrors: {
    name: "resp_remote_access_errors",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "requests refused with NAK Remote Access Error (bad R_Key, outside the region)",
    labels: [],
  },
  respCqeError: {
    name: "resp_cqe_error",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "responder errors that moved a QP to the error state (error NAK sent)",
    labels: [],
  },
  reqRemoteInvalidRequest: {
    name: "req_remote_invalid_request",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "NAK Invalid Request received",
    labels: [],
  },
  reqRemoteAccessErrors: {
    name: "req_remote_access_errors",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "NAK Remote Access Error received",
    labels: [],
  },
  reqRemoteOperationalErrors: {
    name: "req_remote_operational_errors",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "NAK Remote Operational Error received",
    labels: [],
  },
  reqCqeError: {
    name: "req_cqe_error",
    kind: CounterKind.Counter,
    unit: "requests",
    help: "work requests completed with an error (retry exceeded, remote error)",
    labels: [],
  },
  reqCqeFlushError: {
    name: "req_cqe_flush_error",
    kind: CounterKind.Counter,
    unit: "requests",
    help: "work requests flushed because their QP was in the error state (stopped ones included)",
    labels: [],
  },
  outOfBuffer: {
    name: "out_of_buffer",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "SENDs refused with an RNR NAK: no receive posted",
    labels: [],
  },
  rnrNakRetryErr: {
    name: "rnr_nak_retry_err",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "RNR NAKs received (the requester waits the RNR timer and resends)",
    labels: [],
  },
  qpErrors: {
    name: "qp_errors",
    kind: CounterKind.Counter,
    unit: "QPs",
    help: "QPs that went to the error state",
    labels: [],
  },
  rxIgnored: {
    name: "rx_ignored",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "frames not for us or of a protocol we do not speak",
    labels: [],
  },
  retransmittedPackets: {
    name: "retransmitted_packets",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "packets sent again",
    labels: [],
  },
  acksSent: {
    name: "acks_sent",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "ACKs sent",
    labels: [],
  },
  naksSent: {
    name: "naks_sent",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "NAKs sent",
    labels: [],
  },
  acksReceived: {
    name: "acks_received",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "ACKs received",
    labels: [],
  },
  arpRepliesSent: {
    name: "arp_replies_sent",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "ARP replies sent",
    labels: [],
  },
  flowsCompleted: {
    name: "flows_completed",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "work requests completed",
    labels: [],
  },
  rxDiscardsPhy: {
    name: "rx_discards_phy",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "received frames dropped: the receive buffer was full",
    labels: [],
  },
  txPauseStormWarningEvents: {
    name: "tx_pause_storm_warning_events",
    kind: CounterKind.Counter,
    unit: "events",
    help: "the NIC held its partner paused past the stall warning mark (85 % of pfcStallPrevention.timeout)",
    labels: [],
  },
  txPauseStormErrorEvents: {
    name: "tx_pause_storm_error_events",
    kind: CounterKind.Counter,
    unit: "events",
    help: "PFC stall prevention stopped the NIC's pause frames (pfcStallPrevention.timeout passed)",
    labels: [],
  },
  oooPlacedPackets: {
    name: "ooo_placed_packets",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "requests placed out of order by the reorder window",
    labels: [],
  },
  oooMaxDepth: {
    name: "ooo_max_depth",
    kind: CounterKind.Gauge,
    unit: "packets",
    help: "furthest ahead of the expected PSN a request was placed (PSNs)",
    labels: [],
  },
  postsLate: {
    name: "posts_late",
    kind: CounterKind.Counter,
    unit: "requests",
    help: "work requests that reached the NIC after the start time they were given",
    labels: [],
  },
  postLateMaxNs: {
    name: "post_late_max_ns",
    kind: CounterKind.Gauge,
    unit: "ns",
    help: "latest start of those, emulated ns after the time given",
    labels: [],
  },
} as const satisfies Record<string, CounterDef>;

/** The slots of the NIC-wide counters: `counters.npCnpSent[0]!++`. */
export type NicCounters = { readonly [K in keyof typeof NicCounter]: Float64Array };

/** Registers every NIC-wide counter on `set` and returns their slots. */
export function declareNicCounters(set: CounterSet): NicCounters {
  const out: Record<string, Float64Array> = {};
  for (const [field, def] of Object.entries(NicCounter)) out[field] = set.add(def);
  return out as NicCounters;
}
