// Work completion statuses: how a work request ends, as the verbs API reports it (ibv_wc_status in
// rdma-core's libibverbs/verbs.h; InfiniBand Architecture Specification Vol. 1, 11.6.2 "Completion
// Return Status"). Only the ones this NIC can produce, plus `stopped` (the lab's own: `inject stop` or a
// `stop` step flushed the request, as an application that destroys its QP would see IBV_WC_WR_FLUSH_ERR).

/** A completion's status (index into WC_STATUS_NAMES). */
export const WcStatus = {
  /** IBV_WC_SUCCESS. */
  Success: 0,
  /** IBV_WC_RETRY_EXC_ERR: retryCnt retries after local ACK timeouts or PSN-sequence NAKs without progress. */
  RetryExceeded: 1,
  /** IBV_WC_RNR_RETRY_EXC_ERR: rnrRetry retries after RNR NAKs. */
  RnrRetryExceeded: 2,
  /** IBV_WC_REM_ACCESS_ERR: the responder answered NAK Remote Access Error (AETH 0x62). */
  RemoteAccess: 3,
  /** IBV_WC_REM_INV_REQ_ERR: the responder answered NAK Invalid Request (AETH 0x61). */
  InvalidRequest: 4,
  /** IBV_WC_REM_OP_ERR: the responder answered NAK Remote Operational Error (AETH 0x63). */
  RemoteOperational: 5,
  /** IBV_WC_WR_FLUSH_ERR: the QP was in the error state. */
  Flushed: 6,
  /** Flushed because the lab stopped the workload. */
  Stopped: 7,
} as const;
export type WcStatus = (typeof WcStatus)[keyof typeof WcStatus];

/** The names reports, events and metrics use, by WcStatus. */
export const WC_STATUS_NAMES = [
  "success",
  "retry_exceeded",
  "rnr_retry_exceeded",
  "remote_access",
  "invalid_request",
  "remote_operational",
  "flushed",
  "stopped",
] as const;
export type WcStatusName = (typeof WC_STATUS_NAMES)[number];

/** The error names (every status but success), in WcStatus order. */
export const WC_ERROR_NAMES = WC_STATUS_NAMES.slice(1) as readonly Exclude<WcStatusName, "success">[];

/** A QP's state as far as this NIC models it (IBTA 10.3.1): ready to send, or in the error state. */
export const QpState = {
  Rts: 0,
  Error: 1,
} as const;
export type QpState = (typeof QpState)[keyof typeof QpState];
