// ECN/WRED on the instantaneous egress queue (DCQCN's congestion point; reference/protocol.md §3.1, §5):
//
//   p(q) = 0                                 q <= Kmin
//        = Pmax · (q − Kmin) / (Kmax − Kmin)  Kmin < q <= Kmax
//        = 1                                 q > Kmax
//
// An ECT(0)/ECT(1) packet chosen with probability p becomes CE; a CE packet passes untouched; a Not-ECT
// packet chosen with the same probability is dropped (plain WRED), as seed 000 §1.4.3 describes.

import { Ecn } from "../wire/ipv4.js";
import type { EcnQueueConfig } from "./config.js";

export function markProbability(queueBytes: number, cfg: EcnQueueConfig): number {
  if (queueBytes <= cfg.kminBytes) return 0;
  if (queueBytes > cfg.kmaxBytes) return 1;
  const span = cfg.kmaxBytes - cfg.kminBytes;
  return span > 0 ? (cfg.pmax * (queueBytes - cfg.kminBytes)) / span : 1;
}

export const EcnAction = {
  Pass: 0,
  Mark: 1,
  Drop: 2,
} as const;
export type EcnAction = (typeof EcnAction)[keyof typeof EcnAction];

/** What WRED/ECN does to a packet with ECN field `ecn` meeting a queue of `queueBytes`. */
export function ecnDecision(
  queueBytes: number,
  ecn: Ecn,
  cfg: EcnQueueConfig,
  random: () => number,
): EcnAction {
  if (ecn === Ecn.Ce) return EcnAction.Pass;
  const p = markProbability(queueBytes, cfg);
  if (p <= 0) return EcnAction.Pass;
  if (p < 1 && random() >= p) return EcnAction.Pass;
  return ecn === Ecn.NotEct ? EcnAction.Drop : EcnAction.Mark;
}
