// What the NIC reports: its DeviceStats (kind "nic") with per-QP state, completed work requests, the
// one-way latency histogram and the receive buffer. The lab, the TUI and the report read these types.

import type { DeviceStatsBase, Nanoseconds } from "../device/contract.js";
import type { Ipv4Address } from "../wire/bytes.js";
import type { HistogramSnapshot } from "./histogram.js";
import type { MsgOpName } from "./transport/transport.js";
import type { WcStatusName } from "./transport/work-completion.js";

/** What the scenario report needs about one work request that completed, successfully or not. */
export interface CompletionRecord {
  readonly flowId: string;
  readonly qpn: number;
  readonly op: MsgOpName;
  readonly bytes: number;
  readonly postedAt: Nanoseconds;
  readonly firstSentAt: Nanoseconds;
  /** WRITE/SEND: the last byte acknowledged; READ: the last response byte arrived. */
  readonly completedAt: Nanoseconds;
  /** completedAt − postedAt. */
  readonly fctNs: Nanoseconds;
  readonly retransmits: number;
  /** The work completion's status: "success", or the error (work-completion.ts; completedAt: when). */
  readonly status: WcStatusName;
}

export interface QpStats {
  readonly qpn: number;
  readonly remoteQpn: number;
  readonly remoteIp: Ipv4Address;
  readonly udpSrcPort: number;
  readonly rateBps: number;
  readonly targetRateBps: number;
  readonly alpha: number;
  /** The congestion window, bytes (HPCC, DCTCP; 0: none). */
  readonly windowBytes: number;
  /** TIMELY's last RTT sample, ns (0: none). */
  readonly rttNs: number;
  /** HPCC's utilisation estimate U (0: none). */
  readonly utilisation: number;
  /** Payload bytes sent (requests and READ responses, retransmissions included). */
  readonly bytesSent: number;
  /** WRITE/SEND payload bytes the peer acknowledged. */
  readonly bytesAcked: number;
  /** WRITE/SEND payload bytes our responder accepted in order (each byte once). */
  readonly bytesDelivered: number;
  /** READ payload bytes our requester received in order (each byte once). */
  readonly readBytesReceived: number;
  readonly retransmits: number;
  readonly cnpHandled: number;
  /** CNPs for this QP received while its reaction point was off. */
  readonly cnpIgnored: number;
  readonly cnpSent: number;
  /** CE-marked data packets this QP received. */
  readonly ecnMarked: number;
  readonly inflightPackets: number;
  readonly pendingMessages: number;
  readonly paused: boolean;
  /** "rts", or "error" once the QP failed (or was stopped). */
  readonly state: "rts" | "error";
  /** The next new PSN the requester sends (ibv_query_qp's sq_psn). */
  readonly sqPsn: number;
  /** The PSN the responder expects next (ibv_query_qp's rq_psn). */
  readonly rqPsn: number;
}

export interface NicDetail {
  readonly qps: readonly QpStats[];
  readonly flows: readonly CompletionRecord[];
  /** One-way delay of every received data packet, NIC to NIC, ns. */
  readonly latency: HistogramSnapshot;
  readonly rxBuffer: { readonly bytes: number; readonly peakBytes: number; readonly xoff: boolean };
}

/** A NIC's stats(). */
export interface NicStats extends DeviceStatsBase {
  readonly kind: "nic";
  readonly detail: NicDetail;
}
