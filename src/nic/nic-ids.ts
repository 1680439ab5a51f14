// The NIC's numbering: its ports, the event interval and its drop reasons (legal metric name parts:
// drop_unknown_qp, not drop_unknown-qp).

/** The RoCE port. */
export const PORT = 1;
/** The host stack's side (see NicConfig.hostPort). */
export const HOST_PORT = 2;

/** At most one CNP/rate-cut/drop event per key per this interval. */
export const EVENT_INTERVAL_NS = 10_000;

export const DropReason = {
  Icrc: "icrc",
  Malformed: "malformed",
  UnknownQp: "unknown_qp",
  InvalidRequest: "invalid_request",
  /** A request for a QP in the error state. */
  QpError: "qp_error",
} as const;
export type DropReason = (typeof DropReason)[keyof typeof DropReason];
export const DROP_REASONS: readonly DropReason[] = Object.values(DropReason);
