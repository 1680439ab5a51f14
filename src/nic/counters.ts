// NIC-wide counters, named as mlx5 names them where mlx5 has the counter (hw_counters of an RDMA port,
// ethtool -S of the netdev), so operators can grep them. Plain numeric fields: the QPs increment them on
// the hot path without a lookup.

import type { Counters } from "../device/contract.js";

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
  /** RoCE packets for a QP we do not have. */
  rxUnknownQp = 0;
  /** Frames that were not for us or that we do not speak (counted, ignored). */
  rxIgnored = 0;
  /** Packets sent again (go-back-N, timeouts, re-issued reads). */
  retransmittedPackets = 0;
  acksSent = 0;
  naksSent = 0;
  acksReceived = 0;
  arpRepliesSent = 0;
  flowsCompleted = 0;

  clear(): void {
    for (const key of Object.keys(this) as (keyof NicCounters)[]) {
      if (typeof this[key] === "number") (this as unknown as Record<string, number>)[key] = 0;
    }
  }

  /** The table `stats()` reports. */
  toCounters(): Counters {
    return {
      np_cnp_sent: this.npCnpSent,
      np_ecn_marked_roce_packets: this.npEcnMarkedRocePackets,
      rp_cnp_handled: this.rpCnpHandled,
      rp_cnp_ignored: this.rpCnpIgnored,
      out_of_sequence: this.outOfSequence,
      packet_seq_err: this.packetSeqErr,
      implied_nak_seq_err: this.impliedNakSeqErr,
      duplicate_request: this.duplicateRequest,
      duplicate_response: this.duplicateResponse,
      local_ack_timeout_err: this.localAckTimeoutErr,
      rx_write_requests: this.rxWriteRequests,
      rx_send_requests: this.rxSendRequests,
      rx_read_requests: this.rxReadRequests,
      payload_mismatch: this.payloadMismatch,
      rx_invalid_request: this.rxInvalidRequest,
      rx_unknown_qp: this.rxUnknownQp,
      rx_ignored: this.rxIgnored,
      retransmitted_packets: this.retransmittedPackets,
      acks_sent: this.acksSent,
      naks_sent: this.naksSent,
      acks_received: this.acksReceived,
      arp_replies_sent: this.arpRepliesSent,
      flows_completed: this.flowsCompleted,
    };
  }
}
