// NIC-wide counters, named as mlx5 names them where mlx5 has the counter (hw_counters of an RDMA port,
// ethtool -S of the netdev), so operators can grep them. Plain numeric fields: the QPs increment them on
// the hot path without a lookup; each is declared on the NIC's counter registry, which reports and clears
// them.

import { CounterKind, type CounterSet } from "../device/counters.js";

/** NIC-wide counters (packets unless the name says bytes). */
export class NicCounters {
  /** CNPs sent by the NP. */
  npCnpSent = 0;
  /** CE-marked RoCE packets received (data requests and read responses). */
  npEcnMarkedRocePackets = 0;
  /** CNPs the RP acted on. */
  rpCnpHandled = 0;
  /** CNPs received while DCQCN is off (or for a QP we do not have). */
  rpCnpIgnored = 0;
  /** Requests received with a PSN beyond the expected one (responder). */
  outOfSequence = 0;
  /** NAK PSN-sequence-error received (requester). */
  packetSeqErr = 0;
  /** READ responses with a gap: the requester re-issued the read from the missing offset. */
  impliedNakSeqErr = 0;
  /** Duplicate requests received (responder). */
  duplicateRequest = 0;
  /** Duplicate or unexpected READ responses (requester). */
  duplicateResponse = 0;
  /** Retransmission timeouts (requester). */
  localAckTimeoutErr = 0;
  /** WRITE/SEND/READ request messages accepted (first or only packet). */
  rxWriteRequests = 0;
  rxSendRequests = 0;
  rxReadRequests = 0;
  /** Data payloads that did not match the sender's pattern. */
  payloadMismatch = 0;
  /** Requests whose opcode does not continue the message in progress, or whose length is wrong. */
  rxInvalidRequest = 0;
  /** Frames that were not for us or that we do not speak (counted, ignored). */
  rxIgnored = 0;
  /** Packets sent again (go-back-N, timeouts, re-issued reads). */
  retransmittedPackets = 0;
  acksSent = 0;
  naksSent = 0;
  acksReceived = 0;
  arpRepliesSent = 0;
  flowsCompleted = 0;
  /** Frames the receive buffer had no room for. */
  rxDiscardsPhy = 0;
  /** Requests ahead of the expected PSN kept by the reorder window (out-of-order placement). */
  oooPlacedPackets = 0;
  /** Furthest ahead of the expected PSN a request was placed, PSNs (a high-water mark). */
  oooMaxDepth = 0;
  /** Work requests given a start time (`post` with `at`) that reached the NIC after it (a live lab's lateness). */
  postsLate = 0;
  /** Latest of those starts, emulated ns after the time asked for (a high-water mark). */
  postLateMaxNs = 0;
}

/** Each field's name on the counter registry (mlx5's where mlx5 has the counter) and what it counts. */
const DECLARATIONS: readonly (readonly [keyof NicCounters, string, string])[] = [
  ["npCnpSent", "np_cnp_sent", "CNPs sent by the notification point"],
  ["npEcnMarkedRocePackets", "np_ecn_marked_roce_packets", "CE-marked RoCE packets received"],
  ["rpCnpHandled", "rp_cnp_handled", "CNPs the reaction point acted on"],
  ["rpCnpIgnored", "rp_cnp_ignored", "CNPs received while DCQCN is off or for an unknown QP"],
  ["outOfSequence", "out_of_sequence", "requests received with a PSN beyond the expected one"],
  ["packetSeqErr", "packet_seq_err", "NAK PSN-sequence-error received"],
  ["impliedNakSeqErr", "implied_nak_seq_err", "READ responses with a gap (read re-issued)"],
  ["duplicateRequest", "duplicate_request", "duplicate requests received"],
  ["duplicateResponse", "duplicate_response", "duplicate or unexpected READ responses"],
  ["localAckTimeoutErr", "local_ack_timeout_err", "retransmission timeouts"],
  ["rxWriteRequests", "rx_write_requests", "WRITE request messages accepted"],
  ["rxSendRequests", "rx_send_requests", "SEND request messages accepted"],
  ["rxReadRequests", "rx_read_requests", "READ request messages accepted"],
  ["payloadMismatch", "payload_mismatch", "data payloads that did not match the sender's pattern"],
  ["rxInvalidRequest", "rx_invalid_request", "requests out of message order or of a wrong length"],
  ["rxIgnored", "rx_ignored", "frames not for us or of a protocol we do not speak"],
  ["retransmittedPackets", "retransmitted_packets", "packets sent again"],
  ["acksSent", "acks_sent", "ACKs sent"],
  ["naksSent", "naks_sent", "NAKs sent"],
  ["acksReceived", "acks_received", "ACKs received"],
  ["arpRepliesSent", "arp_replies_sent", "ARP replies sent"],
  ["flowsCompleted", "flows_completed", "work requests completed"],
  ["rxDiscardsPhy", "rx_discards_phy", "received frames dropped: the receive buffer was full"],
  ["oooPlacedPackets", "ooo_placed_packets", "requests placed out of order by the reorder window"],
  ["oooMaxDepth", "ooo_max_depth", "furthest ahead of the expected PSN a request was placed (PSNs)"],
  ["postsLate", "posts_late", "work requests that reached the NIC after the start time they were given"],
  ["postLateMaxNs", "post_late_max_ns", "latest start of those, emulated ns after the time given"],
];

/** Counters that are levels, not counts. */
const GAUGES: ReadonlySet<keyof NicCounters> = new Set(["oooMaxDepth", "postLateMaxNs"]);

/** Units of the counters that count neither packets nor bytes. */
const UNITS: Partial<Record<keyof NicCounters, string>> = { postsLate: "requests", postLateMaxNs: "ns" };

/** Declares every field of `c` on `set` (read at export, zeroed by `set.clear()`). */
export function declareNicCounters(c: NicCounters, set: CounterSet): void {
  for (const [field, name, help] of DECLARATIONS) {
    set.computed(
      {
        name,
        kind: GAUGES.has(field) ? CounterKind.Gauge : CounterKind.Counter,
        unit: UNITS[field] ?? (name.endsWith("bytes") ? "bytes" : "packets"),
        help,
        labels: [],
      },
      () => c[field],
      () => {
        c[field] = 0;
      },
    );
  }
}
