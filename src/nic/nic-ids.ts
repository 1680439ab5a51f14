// The NIC's numbering: its ports, timer ids (kind × TIMER_KIND + index), event-limiter keys and drop
// reasons.

/** The RoCE port. */
export const PORT = 1;
/** The host stack's side (see NicConfig.hostPort). */
export const HOST_PORT = 2;

/** Timer ids: kind × TIMER_KIND + index (a QP's slot, a priority, or the port). */
export const TIMER_KIND = 1_000_000;
export const T_TX = 0;
export const T_WAKE = 1;
export const T_PAUSE_EXPIRE = 2;
export const T_RTO = 3;
export const T_RP_INCREASE = 4;
export const T_RP_CUT = 5;
export const T_CNP = 6;
export const T_POST = 7;
export const T_RX_DRAIN = 8;
export const T_XOFF_REFRESH = 9;

/** At most one CNP/rate-cut/drop event per key per this interval. */
export const EVENT_INTERVAL_NS = 10_000;
export const KEY_CNP = 1_000_000;
export const KEY_CUT = 2_000_000;
export const KEY_DROP = 3_000_000;
export const KEY_MISMATCH = 4_000_000;

export const DropReason = {
  Icrc: "icrc",
  Malformed: "malformed",
  UnknownQp: "unknown-qp",
  InvalidRequest: "invalid-request",
} as const;
export type DropReason = (typeof DropReason)[keyof typeof DropReason];
export const DROP_REASONS = Object.values(DropReason);
