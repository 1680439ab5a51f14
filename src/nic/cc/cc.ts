// The NIC's congestion-control seam: one strategy per algorithm, chosen per host (`cc`, nic/features/cc.ts).
// A strategy makes, for each QP, the sender-side state machine that sets the QP's rate: the QP's pacer
// follows `rate`; the NIC (cc-driver.ts) hands it what the wire brings (CNPs), what the QP sends (bytes)
// and its timers, arms the timers it asks for, and reports its telemetry. DCQCN's reaction point
// (dcqcn-rp.ts) is the first strategy; `none` gives the QP no state machine (line rate, CNPs ignored).
//
// Receiving CE-marked packets is the notification point's business (dcqcn-np.ts: CNPs, paced), the same
// for every strategy, as on a ConnectX. The algorithms driven by ACKs — HPCC (in-band telemetry echoed in
// ACKs, hpcc.ts), TIMELY (RTT from echoed send times, timely.ts), DCTCP (ECN echo, dctcp.ts) — react in
// `onAck` and may bound the bytes in flight with a `window` beside the rate (HPCC's ns-3 VarWin).

import type { BitsPerSecond, Nanoseconds } from "../../device/contract.js";
import type { NicConfig } from "../config.js";
import type { AckSample } from "./ack-sample.js";
import { NP_WHEN_RP_OFF, type NpSettings } from "./dcqcn-params.js";
import { DcqcnRp } from "./dcqcn-rp.js";
import { Dctcp } from "./dctcp.js";
import { Hpcc } from "./hpcc.js";
import { Timely } from "./timely.js";

/** The algorithms a host can choose (`cc:` in its settings). */
export const CC_NAMES = ["dcqcn", "hpcc", "timely", "dctcp", "none"] as const;
export type CcName = (typeof CC_NAMES)[number];

/** Timers one QP's congestion control may keep armed (the NIC registers this many timer kinds for it). */
export const CC_TIMERS = 2;

/** One QP's congestion control on its sending side. */
export interface QpCc {
  /** The rate the QP is paced at, bits/s. */
  readonly rate: BitsPerSecond;
  /** The rate it is heading for (DCQCN's target rate), bits/s. */
  readonly target: BitsPerSecond;
  /** CNPs it acted on (mlx5 rp_cnp_handled, per QP). */
  readonly cnpHandled: number;
  /**
   * True: a new rate re-times the gap the pacer is counting down after the last packet. False: that gap
   * keeps its rate and the new one applies from the next packet (DCQCN's `rateChange`).
   */
  readonly repaceOnChange: boolean;
  /** A CNP for this QP arrived; true when the rate changed. */
  onCnp(now: Nanoseconds): boolean;
  /** The QP put `bytes` on the wire; true when the rate changed. */
  onBytesSent(bytes: number, now: Nanoseconds): boolean;
  /** Its timer `index` (0 ≤ index < CC_TIMERS) fired; true when the rate changed. */
  onTimer(index: number, now: Nanoseconds): boolean;
  /** When timer `index` should fire (absolute emulated ns), or -1 when it should not be armed. */
  timerAt(index: number): Nanoseconds;
  /** DCQCN's α at `now` (DCTCP's α; 0 for algorithms without one): the reports' rate plots show it. */
  alpha(now: Nanoseconds): number;
  /** An ACK arrived (algorithms driven by ACKs); true when the rate changed. */
  onAck?(ack: AckSample, now: Nanoseconds): boolean;
  /**
   * True: the algorithm needs an ACK for every data packet (HPCC's ns-3 acknowledges each one: HPCC reads
   * each packet's INT, TIMELY each RTT sample, DCTCP each ECN echo), so the QP sets AckReq on every packet
   * whatever `transport.ackReqEvery` says. Absent: the transport's setting.
   */
  readonly ackPerPacket?: boolean;
  /** Bytes in flight allowed (0 or absent: no window). */
  readonly window?: number;
  /** TIMELY's last RTT sample, ns (absent: the algorithm measures none). */
  readonly rtt?: number;
  /** HPCC's utilisation estimate U (absent: the algorithm keeps none). */
  readonly util?: number;
}

/** The sender-side state of a new QP (or of every QP after a reconfiguration); null: line rate. */
export function createQpCc(cfg: NicConfig, lineRate: BitsPerSecond): QpCc | null {
  switch (cfg.cc) {
    case "dcqcn":
      return new DcqcnRp(cfg.dcqcn, lineRate);
    case "hpcc":
      return new Hpcc(cfg.hpcc, lineRate);
    case "timely":
      return new Timely(cfg.timely, lineRate);
    case "dctcp":
      return new Dctcp(cfg.dctcp, lineRate);
    case "none":
      return null;
  }
}

/** How the notification point paces CNPs: DCQCN's parameters, or ConnectX's defaults without DCQCN. */
export function npSettings(cfg: NicConfig): NpSettings {
  return cfg.cc === "dcqcn" ? cfg.dcqcn : NP_WHEN_RP_OFF;
}
