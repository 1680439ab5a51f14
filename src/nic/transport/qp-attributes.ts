// A workload's own QP attributes (scenario `workloads[].transport`, the create-qp command's `transport`):
// the host's transport settings with the workload's on top, for that workload's QPs only, as an
// application passes its own ibv_qp_attr to ibv_modify_qp whatever other applications on the host use.
// Resolution follows the host section's: a workload's `rto` is exact, its `timeout` derives the
// retransmission timeout (4.096 µs × 2^timeout) and replaces the host's, whichever way the host set it.

import { localAckTimeoutNs, type QpTransportLayer } from "../features/transport.js";
import type { TransportSettings } from "./transport.js";

/** `host` with `layer` on top, written into `into` (a new object when absent); returns it. */
export function qpSettings(
  host: Readonly<TransportSettings>,
  layer: QpTransportLayer,
  into: TransportSettings = { ...host },
): TransportSettings {
  Object.assign(into, host);
  if (layer.rto !== undefined) into.rtoNs = layer.rto;
  else if (layer.timeout !== undefined) into.rtoNs = localAckTimeoutNs(layer.timeout);
  if (layer.retryCnt !== undefined) into.retryCnt = layer.retryCnt;
  if (layer.rnrRetry !== undefined) into.rnrRetry = layer.rnrRetry;
  if (layer.minRnrTimer !== undefined) into.minRnrTimer = layer.minRnrTimer;
  if (layer.recvDepth !== undefined) into.recvDepth = layer.recvDepth;
  if (layer.recvRepost !== undefined) into.recvRepostNs = layer.recvRepost;
  return into;
}
