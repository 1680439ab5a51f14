// ECN/WRED on the instantaneous egress queue (DCQCN's congestion point: Zhu et al., "Congestion Control
// for Large-Scale RDMA Deployments", SIGCOMM 2015, §3.1; RFC 3168 for the ECN field):
//
//   p(q) = 0                                 q <= Kmin
//        = Pmax · (q − Kmin) / (Kmax − Kmin)  Kmin < q <= Kmax
//        = 1                                 q > Kmax
//
// An ECT(0)/ECT(1) packet chosen with probability p becomes CE; a CE packet passes untouched; a Not-ECT
// packet chosen with the same probability is dropped (plain WRED, Floyd & Jacobson's RED with a linear
// drop profile).

import { Ecn } from "../wire/ipv4.js";

export interface EcnQueueConfig {
  /** Bytes of queue where marking starts. */
  readonly kmin: number;
  /** Bytes of queue where the probability reaches Pmax; above it every ECT packet is marked. */
  readonly kmax: number;
  /** Marking probability at Kmax (0..1). */
  readonly pmax: number;
}

export function markProbability(queueBytes: number, cfg: EcnQueueConfig): number {
  if (queueBytes <= cfg.kmin) return 0;
  if (queueBytes > cfg.kmax) return 1;
  const span = cfg.kmax - cfg.kmin;
  return span > 0 ? (cfg.pmax * (queueBytes - cfg.kmin)) / span : 1;
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
