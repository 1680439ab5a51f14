// The parameters of the congestion controls beside DCQCN (cc/hpcc.ts, cc/timely.ts, cc/dctcp.ts): one
// section each, under the names of their papers and HPCC's ns-3, with ns-3's defaults
// (alibaba-edu/High-Precision-Congestion-Control: RdmaHw's attributes in rdma-hw.cc, scratch/third.cc and
// run.py, whose rates scale with the line rate: HPCC R_AI = 10·bw/25 Mb/s, TIMELY R_AI = bw Mb/s and
// R_HAI = 5·bw Mb/s for bw in Gb/s). A section only matters on hosts whose `cc` names its algorithm.

import { z } from "zod";
import { duration, fraction, rate, size } from "../../device/setting-units.js";
import { INT_DEFAULT_MAX_HOPS, INT_MAX_HOPS } from "../../wire/int-md.js";
import type { DctcpParams } from "../cc/dctcp.js";
import type { HpccParams } from "../cc/hpcc.js";
import type { TimelyParams } from "../cc/timely.js";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly hpcc: HpccParams;
    readonly timely: TimelyParams;
    readonly dctcp: DctcpParams;
  }
}

/** HPCC's T where the fabric is not known (ns-3's run.py topologies come out near it). */
const NS3_BASE_RTT = 9000;

/** ns-3's RdmaHw MinRate. */
const NS3_MIN_RATE = 100e6;

function overlayDefined<T extends object>(base: T, s: Partial<T> | undefined): T {
  if (s === undefined) return base;
  const set = Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined));
  return { ...base, ...set } as T;
}

const hpccSettings = z
  .object({
    eta: fraction.optional(),
    maxStage: z.number().int().min(0).max(1000).optional(),
    rai: rate.optional(),
    baseRtt: duration.optional(),
    window: size.optional(),
    minRate: rate.optional(),
    fastReact: z.boolean().optional(),
    maxHops: z.number().int().min(1).max(INT_MAX_HOPS).optional(),
    multiRate: z.boolean().optional(),
  })
  .strict();

export const hpccFeature = defineNicFeature({
  key: "hpcc",
  doc:
    "HPCC (Li et al., SIGCOMM 2019) as HPCC's ns-3 runs it: η (eta, 0.95), maxStage (5), the additive " +
    "increase rai (W_AI as a rate; ns-3: 10·bw/25 Mb/s), baseRtt (T; default: the fabric's largest base RTT " +
    "as ns-3 derives it, or 9us), window (W; 0 = line rate × T), " +
    "minRate (100Mb/s), fastReact (true), maxHops, the INT hop slots each data packet reserves (5), and " +
    "multiRate (false: one utilisation U and reference rate for the path, the paper's Algorithm 1 and run.py's " +
    "MULTI_RATE 0; true: one per hop, ns-3's MultiRate 1).",
  settings: hpccSettings,
  resolve: (s, { rateBps, fabricRttNs }): HpccParams =>
    overlayDefined<HpccParams>(
      {
        eta: 0.95,
        maxStage: 5,
        rai: (10 * rateBps) / 25 / 1000,
        baseRtt: (fabricRttNs ?? 0) > 0 ? fabricRttNs! : NS3_BASE_RTT,
        window: 0,
        minRate: Math.min(NS3_MIN_RATE, rateBps / 100),
        fastReact: true,
        maxHops: INT_DEFAULT_MAX_HOPS,
        multiRate: false,
      },
      s,
    ),
  onlyWhenChanged: true,
});

const timelySettings = z
  .object({
    alpha: fraction.optional(),
    beta: fraction.optional(),
    tLow: duration.optional(),
    tHigh: duration.optional(),
    minRtt: duration.optional(),
    rai: rate.optional(),
    rhai: rate.optional(),
    haiThreshold: z.number().int().min(0).max(1000).optional(),
    minRate: rate.optional(),
  })
  .strict();

export const timelyFeature = defineNicFeature({
  key: "timely",
  doc:
    "TIMELY (Mittal et al., SIGCOMM 2015) as HPCC's ns-3 runs it: alpha (EWMA of the RTT difference, " +
    "0.875), beta (0.8), tLow (50us), tHigh (500us), minRtt (gradient normaliser, 20us), rai (δ; ns-3: bw " +
    "Mb/s), rhai (5·bw Mb/s) after haiThreshold (5) increases in a row, minRate (100Mb/s).",
  settings: timelySettings,
  resolve: (s, { rateBps }): TimelyParams =>
    overlayDefined<TimelyParams>(
      {
        alpha: 0.875,
        beta: 0.8,
        tLow: 50_000,
        tHigh: 500_000,
        minRtt: 20_000,
        rai: rateBps / 1000,
        rhai: (5 * rateBps) / 1000,
        haiThreshold: 5,
        minRate: Math.min(NS3_MIN_RATE, rateBps / 100),
      },
      s,
    ),
  onlyWhenChanged: true,
});

const dctcpSettings = z
  .object({
    g: fraction.optional(),
    rai: rate.optional(),
    minRate: rate.optional(),
    window: size.optional(),
  })
  .strict();

export const dctcpFeature = defineNicFeature({
  key: "dctcp",
  doc:
    "DCTCP (Alizadeh et al., SIGCOMM 2010) on RoCE as HPCC's ns-3 runs it: g (1/16), rai (one 1 KB MTU " +
    "per 13 µs RTT: 615Mb/s), minRate (100Mb/s), window (W at line rate, bytes; 0 = none).",
  settings: dctcpSettings,
  resolve: (s, { rateBps }): DctcpParams =>
    overlayDefined<DctcpParams>(
      { g: 1 / 16, rai: 615e6, minRate: Math.min(NS3_MIN_RATE, rateBps / 100), window: 0 },
      s,
    ),
  onlyWhenChanged: true,
});
