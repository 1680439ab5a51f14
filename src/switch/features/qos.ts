// QoS: which priority a packet has (trusted DSCP), which egress queue that is, which priorities are
// lossless, and how a port's scheduler serves its queues (strict priority, then DWRR). The classify stage
// reads the maps; this feature hands the lossless set to the MMU and the scheduler knobs to every port.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { size } from "../../device/setting-units.js";
import { DSCP_VALUES } from "../../wire/ipv4.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import type { SwitchPort } from "../port.js";
import { defineFeature, type SwitchFeature } from "./feature.js";

const priority = z.number().int().min(0).max(7);
const priorityList = z.array(priority);

const settings = z
  .object({
    /** DSCP -> priority entries, merged over the defaults (26 -> 3, 48 -> 6, others -> 0). */
    dscpToPriority: z.record(z.string().regex(/^\d+$/, "a DSCP value 0..63"), priority).optional(),
    priorityToQueue: z.array(priority).length(8).optional(),
    controlPriority: priority.optional(),
    lossless: priorityList.optional(),
    strictQueues: priorityList.optional(),
    dwrrWeights: z.array(z.number().min(0)).length(8).optional(),
    dwrrQuantum: size.optional(),
  })
  .strict();

export interface QosConfig {
  /** Trusted DSCP -> 802.1p priority, 64 entries. */
  readonly dscpToPriority: readonly number[];
  /** Priority -> egress queue, 8 entries (default identity). The ingress priority group is the priority. */
  readonly priorityToQueue: readonly number[];
  /** Priority of frames without an IP header (ARP, LLDP) and of packets the switch originates. */
  readonly controlPriority: number;
  /** Priorities that are lossless: PFC-protected when PFC is enabled, counted as lossless drops. */
  readonly lossless: readonly number[];
  /** Queues served by strict priority, highest queue number first, before any DWRR queue. */
  readonly strictQueues: readonly number[];
  /** DWRR weights of the 8 queues (strict queues ignore theirs). */
  readonly dwrrWeights: readonly number[];
  /** DWRR quantum per unit of weight, bytes. */
  readonly dwrrQuantum: number;
}

/** DSCP 26 -> priority 3 (RoCE data, lossless), DSCP 48 -> priority 6 (CNP), everything else -> 0. */
export function defaultDscpMap(): number[] {
  const map = new Array<number>(DSCP_VALUES).fill(0);
  map[26] = 3;
  map[48] = 6;
  return map;
}

/** Bit p set for each lossless priority. */
export function losslessMask(qos: QosConfig): number {
  let mask = 0;
  for (const p of qos.lossless) mask |= 1 << p;
  return mask;
}

class Qos implements SwitchFeature {
  readonly name = "qos";
  private qos!: QosConfig;

  constructor(private readonly ctx: SwitchContext) {}

  configure(cfg: SwitchConfig): void {
    this.qos = cfg.qos;
    this.ctx.mmu.setLossless(losslessMask(cfg.qos));
  }

  reconfigurePort(port: SwitchPort, _now: Nanoseconds): void {
    port.sched.configure(this.qos.strictQueues, this.qos.dwrrWeights, this.qos.dwrrQuantum);
    port.updatePausedQueues(this.qos.priorityToQueue);
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly qos: QosConfig;
  }
}

export const qosFeature = defineFeature({
  key: "qos",
  doc:
    "Trusted DSCP → 802.1p priority (= ingress priority group) → egress queue; the lossless priorities; " +
    "strict priority (highest queue first) then deficit-weighted round robin (Shreedhar & Varghese, " +
    "SIGCOMM 1995) over the other queues, one quantum of `dwrrQuantum` bytes per unit of weight.",
  settings,
  defaults: (): QosConfig => ({
    dscpToPriority: defaultDscpMap(),
    priorityToQueue: [0, 1, 2, 3, 4, 5, 6, 7],
    controlPriority: 7,
    lossless: [3],
    strictQueues: [6, 7],
    dwrrWeights: new Array<number>(PRIORITIES).fill(1),
    dwrrQuantum: 4224,
  }),
  apply: (c: QosConfig, s): QosConfig => {
    const { dscpToPriority: entries, ...rest } = s;
    const dscpToPriority = [...c.dscpToPriority];
    for (const [dscp, prio] of Object.entries(entries ?? {})) dscpToPriority[Number(dscp)] = prio;
    const out: Record<string, unknown> = { ...c, dscpToPriority };
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) out[k] = v;
    return out as unknown as QosConfig;
  },
  create: (ctx) => new Qos(ctx),
});
