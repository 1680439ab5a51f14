// In-band network telemetry (INT) for HPCC (docs/int.md; the wire format is wire/int-trailer.ts). With
// `int.enabled`, every RoCEv2 packet that leaves an egress queue carrying a Collect-mode INT trailer (data
// packets of HPCC senders) gets this switch's record written into its next free hop slot: switch id,
// egress port, the port's link rate, the time, the bytes the port had sent before it and the bytes still
// queued on the port — what HPCC's ns-3 stamps in SwitchNode::SwitchNotifyDequeue (IntHeader::PushHop with
// m_txBytes[port] and the port's total queue bytes, before the packet's own bytes are counted). The ICRC is
// updated incrementally, so it stays valid. Packets without a trailer, ACK echoes and TIMELY timestamps go
// through untouched; a packet whose slots are all taken is counted and left as it is.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { type CounterDef, CounterKind, Label } from "../../device/counters.js";
import { overlay } from "../../device/setting-units.js";
import { readU16 } from "../../wire/bytes.js";
import { BTH_INT_FLAG, IntMode, intMode, pushIntHop } from "../../wire/int-trailer.js";
import { IpProtocol, ipv4TotalLength } from "../../wire/ipv4.js";
import { PRIORITIES } from "../../wire/pfc.js";
import { ROCEV2_UDP_PORT } from "../../wire/udp.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { type PacketMeta, Verdict } from "../packet-meta.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    /** Write hop records into packets that carry an INT trailer. */
    enabled: z.boolean().optional(),
    /** This switch's id in its records (default: 16 bits of the hash of its name). */
    switchId: z.number().int().min(0).max(0xffff).optional(),
  })
  .strict();

export interface IntConfig {
  readonly enabled: boolean;
  readonly switchId: number;
}

/** The INT feature's counters (reports read them by these definitions). */
export const IntCounter = {
  stamped: {
    name: "int_hops_written",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "packets this switch wrote its INT hop record into, by egress port",
    labels: [Label.Port],
  },
  full: {
    name: "int_hops_full",
    kind: CounterKind.Counter,
    unit: "packets",
    help: "packets with an INT trailer whose hop slots were all taken (no record written), by egress port",
    labels: [Label.Port],
  },
} as const satisfies Record<string, CounterDef>;

class InbandTelemetry implements SwitchFeature {
  readonly name = "int";
  private cfg: IntConfig;
  private readonly stamped: Float64Array;
  private readonly full: Float64Array;
  /** Bytes each port has dequeued to send since the switch started (HPCC's txBytes). */
  private readonly txBytes: Float64Array;

  constructor(private readonly ctx: SwitchContext) {
    this.cfg = ctx.config.int;
    this.stamped = ctx.counters.add(IntCounter.stamped);
    this.full = ctx.counters.add(IntCounter.full);
    this.txBytes = new Float64Array(ctx.numPorts);
  }

  configure(cfg: SwitchConfig): void {
    this.cfg = cfg.int;
  }

  activeHooks(): readonly Hook[] {
    return this.cfg.enabled ? [Hook.Dequeued] : [];
  }

  dequeued(m: PacketMeta, now: Nanoseconds): void {
    if (m.verdict !== Verdict.Forward) return;
    const port = m.outPort;
    const before = this.txBytes[port]!;
    this.txBytes[port] = before + m.length;
    // A dequeued packet keeps its frame and IPv4 offset, not the parse results (queue-ring.ts).
    const frame = m.frame;
    const l3 = m.l3;
    if (l3 < 0 || frame[l3 + 9] !== IpProtocol.UDP) return;
    const udp = l3 + (frame[l3]! & 0x0f) * 4;
    if (readU16(frame, udp + 2) !== ROCEV2_UDP_PORT) return;
    const bth = udp + 8;
    if ((frame[bth + 4]! & BTH_INT_FLAG) === 0) return;
    const end = l3 + ipv4TotalLength(frame, l3);
    if (intMode(frame, end) !== IntMode.Collect) return;
    const p = this.ctx.ports[port]!;
    let qLen = 0;
    for (let q = 0; q < PRIORITIES; q++) qLen += this.ctx.mmu.egressDepth(port, q);
    if (pushIntHop(frame, end, this.cfg.switchId, port, p.cfg.rateBps, now, before, qLen))
      this.stamped[port]!++;
    else this.full[port]!++;
  }
}

declare module "../config.js" {
  interface SwitchTunables {
    readonly int: IntConfig;
  }
}

export const intFeature = defineFeature({
  key: "int",
  doc:
    "In-band network telemetry for HPCC (Li et al., SIGCOMM 2019; draft-miao-ccwg-hpcc): writes this " +
    "switch's hop record (switch id, egress port, link rate, timestamp, cumulative tx bytes, queue length) " +
    "into RoCEv2 packets that carry an INT trailer, keeping the ICRC valid (docs/int.md). Off by default.",
  settings,
  defaults: ({ hashSeed }): IntConfig => ({ enabled: false, switchId: hashSeed & 0xffff }),
  apply: (c: IntConfig, s) => overlay(c, s),
  create: (ctx) => new InbandTelemetry(ctx),
});
