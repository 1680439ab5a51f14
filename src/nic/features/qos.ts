// The NIC's classes: the DSCP its data, ACK/NAK and CNP packets carry, and which 802.1p priority each DSCP
// maps to (which priority a received PFC frame stops). ConnectX defaults: RoCE data DSCP 26 (priority 3),
// CNP DSCP 48 (priority 6, `cnp_dscp`), ACKs on the data class.

import { z } from "zod";
import { DSCP_VALUES } from "../../wire/ipv4.js";
import { PRIORITIES } from "../../wire/pfc.js";
import { CNP_DEFAULT_DSCP } from "../../wire/roce.js";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly qos: NicQosConfig;
  }
}

export interface NicQosConfig {
  /** DSCP of data packets (requests and READ responses); they are sent ECT(0). */
  readonly dataDscp: number;
  /** DSCP of ACK/NAK. Default: the data DSCP (ACKs share the data priority, as real NICs do). */
  readonly ackDscp: number;
  /** DSCP of CNPs (ConnectX cnp_dscp 48). */
  readonly cnpDscp: number;
  /** 802.1p priority of CNPs: which received pause holds them (ConnectX cnp_802p_prio 6). Default: the
   * priority the DSCP map gives cnpDscp. */
  readonly cnpPriority: number;
  /** DSCP → 802.1p priority, 64 entries. */
  readonly dscpToPriority: readonly number[];
}

/** RoCE data DSCP (priority 3 in the default maps). */
export const DEFAULT_DATA_DSCP = 26;

/** DSCP 26 → priority 3 (RoCE data), DSCP 48 → priority 6 (CNP), everything else → 0. */
export function defaultNicDscpMap(): number[] {
  const map = new Array<number>(DSCP_VALUES).fill(0);
  map[26] = 3;
  map[48] = 6;
  return map;
}

const dscp = z.number().int().min(0).max(63);

const settings = z
  .object({
    dataDscp: dscp.optional(),
    ackDscp: dscp.optional(),
    cnpDscp: dscp.optional(),
    cnpPriority: z.number().int().min(0).max(7).optional(),
    /** DSCP → priority entries, merged over the defaults (26 → 3, 48 → 6, others → 0). */
    dscpToPriority: z
      .record(z.string().regex(/^\d+$/, "a DSCP value 0..63"), z.number().int().min(0).max(7))
      .optional(),
  })
  .strict();

export const nicQosFeature = defineNicFeature({
  key: "qos",
  doc:
    "The DSCP of the NIC's data, ACK/NAK and CNP packets, the CNPs' 802.1p priority (cnp_802p_prio) and " +
    "its DSCP → priority map (ConnectX trust dscp: data 26 → priority 3, CNP 48 → priority 6).",
  settings,
  resolve: (s): NicQosConfig => {
    const dscpToPriority = defaultNicDscpMap();
    for (const [d, p] of Object.entries(s?.dscpToPriority ?? {})) dscpToPriority[Number(d)] = p;
    const dataDscp = s?.dataDscp ?? DEFAULT_DATA_DSCP;
    const cnpDscp = s?.cnpDscp ?? CNP_DEFAULT_DSCP;
    return {
      dataDscp,
      ackDscp: s?.ackDscp ?? dataDscp,
      cnpDscp,
      cnpPriority: s?.cnpPriority ?? dscpToPriority[cnpDscp]!,
      dscpToPriority,
    };
  },
  check: (c) => {
    for (const [name, d] of [
      ["dataDscp", c.dataDscp],
      ["ackDscp", c.ackDscp],
      ["cnpDscp", c.cnpDscp],
    ] as const) {
      if (!Number.isInteger(d) || d < 0 || d >= DSCP_VALUES) return `qos.${name} ${d} is not in 0..63`;
    }
    if (!Number.isInteger(c.cnpPriority) || c.cnpPriority < 0 || c.cnpPriority >= PRIORITIES)
      return `qos.cnpPriority ${c.cnpPriority} is not in 0..7`;
    return c.dscpToPriority.length !== DSCP_VALUES ||
      c.dscpToPriority.some((p) => !(p >= 0 && p < PRIORITIES))
      ? "qos.dscpToPriority needs 64 priorities in 0..7"
      : null;
  },
});
