// In-band network telemetry (INT) for HPCC (docs/int.md; the wire format, P4.org INT-MD with HPCC's domain
// specific metadata, is wire/int-md.ts). With `int.enabled`, the switch is an INT transit hop (P4.org INT
// v2.1 §5.2.2): every RoCEv2 packet that leaves an egress queue carrying an INT-MD block (data packets of
// HPCC senders) gets this switch's record written into its next free slot — switch id, ingress and egress
// port, queue, the bytes still queued on the port, the time, the bytes the port had sent before it and the
// port's link rate: what HPCC's ns-3 stamps in SwitchNode::SwitchNotifyDequeue (IntHeader::PushHop with
// m_txBytes[port] and the port's total queue bytes, before the packet's own bytes are counted). The ICRC is
// updated incrementally, so it stays valid. Packets without a block and Destination-type blocks (ACK echoes,
// TIMELY timestamps; §5.1) go through untouched; a packet whose slots are all taken gets the E bit (§5.8).

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { type CounterDef, CounterKind, Label } from "../../device/counters.js";
import { overlay } from "../../device/setting-units.js";
import { readU16 } from "../../wire/bytes.js";
import { ICRC_LENGTH } from "../../wire/icrc.js";
import { INT_PROBE_LENGTH, IntType, intBlockAt, intOffset, pushIntHop } from "../../wire/int-md.js";
import { IpProtocol, ipv4TotalLength } from "../../wire/ipv4.js";
import { PRIORITIES } from "../../wire/pfc.js";
import { ROCEV2_UDP_PORT } from "../../wire/udp.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { type PacketMeta, Verdict } from "../packet-meta.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    /** Write hop records into packets that carry an INT-MD block. */
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
    help: "packets with an INT-MD block whose hop slots were all taken (E bit set, no record), by egress port",
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
  /** The record written into each packet (reused). */
  private readonly rec = {
    switchId: 0,
    ingressPort: 0,
    egressPort: 0,
    queueId: 0,
    qLen: 0,
    ts: 0,
    txBytes: 0,
    rateBps: 0,
  };

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
    const end = l3 + ipv4TotalLength(frame, l3);
    const at = intOffset(frame, udp + 8);
    if (at < 0 || intBlockAt(frame, at, end - ICRC_LENGTH) === 0) return;
    if (frame[at + INT_PROBE_LENGTH]! >>> 4 !== IntType.Md) return;
    let qLen = 0;
    for (let q = 0; q < PRIORITIES; q++) qLen += this.ctx.mmu.egressDepth(port, q);
    const r = this.rec;
    r.switchId = this.cfg.switchId;
    r.ingressPort = m.inPort;
    r.egressPort = port;
    r.queueId = m.queue;
    r.qLen = qLen;
    r.ts = now;
    r.txBytes = before;
    r.rateBps = this.ctx.ports[port]!.cfg.rateBps;
    // A hop record changes bytes the ICRC covers (patched, int-md.ts): the receiver checks it again.
    m.verified = false;
    if (pushIntHop(frame, at, end, r)) this.stamped[port]!++;
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
    "switch's hop record (switch id, ports, queue length, timestamp, cumulative tx bytes, link rate) into " +
    "RoCEv2 packets carrying a P4.org INT-MD block, keeping the ICRC valid (docs/int.md). Off by default.",
  settings,
  defaults: ({ hashSeed }): IntConfig => ({ enabled: false, switchId: hashSeed & 0xffff }),
  apply: (c: IntConfig, s) => overlay(c, s),
  create: (ctx) => new InbandTelemetry(ctx),
});
