// Flow paths: which egress ports each RoCEv2 flow's packets took through this switch — the switch side of
// "where did my flow go" (the TUI's flow view, `rocelab stats`). A bounded, aging flow table
// (lb/flow-table.ts) keyed by (source IP, destination IP, BTH Dest QP) counts, per flow, the packets and
// bytes enqueued on each egress port: one port for a flow ECMP, LBN or path navigation pinned, several for
// DLB flowlets and spraying, with the split between them. RoCEv2 inside VXLAN (UDP 4789 carrying UDP 4791)
// is counted under its inner flow, so an overlay flow's path through the underlay reads like any other.
//
// It counts at the enqueued stage (the packet was admitted to that port's queue), like sFlow/IPFIX egress
// sampling but exact: every packet, no sampling. Up to `min(ports, 8)` egress ports per flow; a packet of
// a flow that already used that many is counted in `flow_paths_port_overflow`, one of a new flow that
// found the table full in `flow_paths_table_full`.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind } from "../../device/counters.js";
import { duration, overlay } from "../../device/setting-units.js";
import { FlowTable } from "../../lb/flow-table.js";
import { readU16, readU24, readU32 } from "../../wire/bytes.js";
import { EtherType } from "../../wire/ethernet.js";
import { IpProtocol } from "../../wire/ipv4.js";
import { ROCEV2_UDP_PORT, VXLAN_UDP_PORT } from "../../wire/udp.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import type { PacketMeta } from "../packet-meta.js";
import type { FlowPathEntry, FlowPortShare, SwitchDetail } from "../stats-types.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    enabled: z.boolean().optional(),
    tableSize: z.number().int().min(1).max(65536).optional(),
    aging: duration.optional(),
  })
  .strict();

export interface FlowPathsConfig {
  readonly enabled: boolean;
  /** Flows tracked at once. */
  readonly tableSize: number;
  /** A flow not seen this long is forgotten, ns. */
  readonly aging: Nanoseconds;
}

const KEY_WORDS = 3;
/** Egress ports remembered per flow at most. */
const MAX_PORTS = 8;
/** Entries a stats reply carries at most (the busiest). */
const DESCRIBE_LIMIT = 2048;

class FlowPaths implements SwitchFeature {
  readonly name = "flowPaths";
  private cfg!: FlowPathsConfig;
  private table: FlowTable | null = null;
  private readonly perFlow: number;
  /** Per slot × perFlow: the egress port (-1 free), packets and bytes. */
  private ports = new Int16Array(0);
  private packets = new Float64Array(0);
  private bytes = new Float64Array(0);
  private vxlan = new Uint8Array(0);
  private readonly key = new Uint32Array(KEY_WORDS);
  private readonly full: Float64Array;
  private readonly portOverflow: Float64Array;

  constructor(ctx: SwitchContext) {
    this.perFlow = Math.max(1, Math.min(MAX_PORTS, ctx.numPorts - 1));
    const c = ctx.counters;
    const counter = (name: string, help: string) =>
      c.add({ name, kind: CounterKind.Counter, unit: "packets", help, labels: [] });
    this.full = counter(
      "flow_paths_table_full",
      "packets of new flows the full flow-path table could not track",
    );
    this.portOverflow = counter(
      "flow_paths_port_overflow",
      `packets of a flow on more egress ports than the table keeps per flow (${this.perFlow})`,
    );
    c.computed(
      {
        name: "flow_paths_flows",
        kind: CounterKind.Gauge,
        unit: "flows",
        help: "RoCEv2 flows in the flow-path table",
        labels: [],
      },
      () => this.table?.size ?? 0,
    );
  }

  configure(cfg: SwitchConfig): void {
    const prev = this.cfg;
    this.cfg = cfg.flowPaths;
    const f = cfg.flowPaths;
    if (!f.enabled) {
      this.table = null;
      return;
    }
    if (this.table !== null && prev.tableSize === f.tableSize && prev.aging === f.aging) return;
    this.table = new FlowTable(f.tableSize, KEY_WORDS, f.aging);
    const n = f.tableSize * this.perFlow;
    this.ports = new Int16Array(n).fill(-1);
    this.packets = new Float64Array(n);
    this.bytes = new Float64Array(n);
    this.vxlan = new Uint8Array(f.tableSize);
  }

  activeHooks(): readonly Hook[] {
    return this.cfg.enabled ? [Hook.Enqueued] : [];
  }

  enqueued(m: PacketMeta, now: Nanoseconds): void {
    const k = this.key;
    let inVxlan = 0;
    if (m.destQp >= 0) {
      k[0] = m.srcIp;
      k[1] = m.dstIp;
      k[2] = m.destQp;
    } else if (m.dstPort === VXLAN_UDP_PORT && m.l4 >= 0 && innerRoce(m.frame, m.l4, k)) {
      inVxlan = 1;
    } else {
      return;
    }
    const table = this.table!;
    const inserts = table.counters.inserts;
    const s = table.insert(k, now);
    if (s < 0) {
      this.full[0]!++;
      return;
    }
    const base = s * this.perFlow;
    if (table.counters.inserts !== inserts) {
      // A fresh entry (maybe a slot an aged flow left): forget the ports of whoever had it.
      this.ports.fill(-1, base, base + this.perFlow);
      this.vxlan[s] = 0;
    }
    this.vxlan[s]! |= inVxlan;
    for (let i = base; i < base + this.perFlow; i++) {
      const p = this.ports[i]!;
      if (p === m.outPort || p < 0) {
        if (p < 0) {
          this.ports[i] = m.outPort;
          this.packets[i] = 0;
          this.bytes[i] = 0;
        }
        this.packets[i]!++;
        this.bytes[i]! += m.length;
        return;
      }
    }
    this.portOverflow[0]!++;
  }

  describe(now: Nanoseconds): SwitchDetail {
    const table = this.table;
    if (table === null || table.size === 0) return {};
    const entries: (FlowPathEntry & { total: number })[] = [];
    for (const s of table.liveSlots(now)) {
      const ports: FlowPortShare[] = [];
      let total = 0;
      for (let i = s * this.perFlow; i < (s + 1) * this.perFlow; i++) {
        const port = this.ports[i]!;
        if (port < 0) break;
        ports.push({ port, packets: this.packets[i]!, bytes: this.bytes[i]! });
        total += this.bytes[i]!;
      }
      entries.push({
        srcIp: table.keyWord(s, 0),
        dstIp: table.keyWord(s, 1),
        destQp: table.keyWord(s, 2),
        vxlan: this.vxlan[s] === 1,
        lastNs: table.lastSeenAt(s),
        ports,
        total,
      });
    }
    entries.sort((a, b) => b.total - a.total || a.srcIp - b.srcIp || a.destQp - b.destQp);
    return { flowPaths: entries.slice(0, DESCRIBE_LIMIT).map(({ total: _, ...e }) => e) };
  }
}

/**
 * The inner RoCEv2 flow of a VXLAN packet whose outer UDP header is at `l4`, into `key`; false when the
 * inner packet is not IPv4 UDP 4791 (or is cut short).
 */
function innerRoce(f: Uint8Array, l4: number, key: Uint32Array): boolean {
  const eth = l4 + 16;
  const ip = eth + 14;
  if (ip + 20 > f.length || readU16(f, eth + 12) !== EtherType.IPv4) return false;
  if (f[ip + 9] !== IpProtocol.UDP) return false;
  const udp = ip + (f[ip]! & 0x0f) * 4;
  if (udp + 8 + 12 > f.length || readU16(f, udp + 2) !== ROCEV2_UDP_PORT) return false;
  key[0] = readU32(f, ip + 12);
  key[1] = readU32(f, ip + 16);
  key[2] = readU24(f, udp + 8 + 5);
  return true;
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly flowPaths: FlowPathsConfig;
  }
}

export const flowPathsFeature = defineFeature({
  key: "flowPaths",
  doc:
    "Flow paths: every RoCEv2 flow (source IP, destination IP, Dest QP; the inner flow of VXLAN) is " +
    "counted per egress port it was queued on, in a bounded aging table, so the switch's stats say " +
    "which ports each flow took and, for DLB and spraying, how it split between them (`detail.flowPaths`).",
  settings,
  defaults: (): FlowPathsConfig => ({ enabled: true, tableSize: 1024, aging: 100e6 }),
  apply: (c: FlowPathsConfig, s) => overlay(c, s),
  create: (ctx) => new FlowPaths(ctx),
});
