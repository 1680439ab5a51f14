// Congestion control: which algorithm paces this NIC's QPs (cc/, one strategy per algorithm). `dcqcn` is
// DCQCN's reaction point with the parameters of the `dcqcn` section; `none` sends every QP at line rate
// and ignores CNPs (counted rp_cnp_ignored), while the notification point still answers CE marks with
// CNPs as a ConnectX with DCQCN disabled on its RP does.

import { z } from "zod";
import { CC_NAMES, type CcName } from "../cc/cc.js";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly cc: CcName;
  }
}

export const ccFeature = defineNicFeature({
  key: "cc",
  doc:
    "The congestion-control algorithm of the host's QPs: dcqcn (Zhu et al., SIGCOMM 2015, with the " +
    "`dcqcn` section's parameters), hpcc (SIGCOMM 2019; needs INT on every switch), timely (SIGCOMM " +
    "2015), dctcp (SIGCOMM 2010, on RoCE as HPCC's ns-3 runs it), each with its section's parameters, or " +
    "none (line rate; CNPs ignored, still sent for CE marks).",
  settings: z.enum(CC_NAMES),
  resolve: (s): CcName => s ?? "dcqcn",
  onlyWhenChanged: true,
});
