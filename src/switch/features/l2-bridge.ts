// A layer-2 bridge domain on a leaf's host ports (IEEE 802.1Q: one VLAN, transparent bridging with MAC
// learning), so RoCEv1 (EtherType 0x8915: no IP header; IBTA Annex A16, H3C RoCE overview §1.2) can pass
// between hosts of one leaf. The routed ports stay L3: a frame addressed to the port's own MAC (the router
// MAC, like an SVI's) goes on to the IP pipeline as before; every other frame that arrives on a domain port,
// untagged or tagged with the domain's VID (or VID 0, priority-tagged), is bridged:
//   * learning: its source MAC is learnt on its ingress port in a bounded table with aging
//     (lb/flow-table.ts; 802.1Q §8.8, ageing time 300 s by default);
//   * forwarding: a known unicast destination on another domain port gets the frame; unknown unicast,
//     multicast and broadcast are flooded to every other up domain port (broadcast also goes on to the
//     switch's own ARP agent); a known destination on the ingress port is filtered;
//   * priority: the 802.1Q PCP of a tagged frame, `untaggedPriority` for an untagged one (802.1Q §6.9.3),
//     which gives the queue and, for a lossless priority, PFC: the frame is charged to its ingress PG like
//     a routed packet, so XOFF/XON and headroom work the same. WRED/ECN and the IP features do not see
//     bridged frames (they carry no IP ECN field): only the MMU admits them.
// Reserved link-local addresses (01:80:C2:00:00:0X: PFC, LLDP, ...) are never bridged (802.1Q §8.6.3).
// Frames are forwarded unchanged (the tag, if any, is kept). The lab computes the domain's ports from the
// topology's `bridge: { vlan, leaves }` (scenario/rocev1.ts).

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind } from "../../device/counters.js";
import { duration } from "../../device/setting-units.js";
import { FlowTable } from "../../lb/flow-table.js";
import { BROADCAST_MAC, readMac, readU16 } from "../../wire/bytes.js";
import { EtherType } from "../../wire/ethernet.js";
import { copyFrame } from "../../wire/frame-alloc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { FrameKind, type PacketMeta } from "../packet-meta.js";
import { defineFeature, Hook, type SwitchFeature } from "./feature.js";

const domainSettings = z
  .object({
    vlan: z.number().int().min(1).max(4094),
    ports: z.array(z.number().int().min(1)),
  })
  .strict();

const settings = z
  .object({
    /** This leaf's bridge domain (computed by the lab from the topology's `bridge`), or null. */
    domain: domainSettings.nullable().optional(),
    /** MAC table entries at most. */
    macTableSize: z.number().int().min(1).max(1_000_000).optional(),
    /** A MAC not seen for this long is forgotten. */
    aging: duration.optional(),
    /** Priority of untagged frames (802.1Q port default priority). */
    untaggedPriority: z.number().int().min(0).max(7).optional(),
  })
  .strict();

export interface BridgeDomain {
  readonly vlan: number;
  /** The ports of the domain (the leaf's host ports). */
  readonly ports: readonly number[];
}

export interface BridgeConfig {
  readonly domain: BridgeDomain | null;
  readonly macTableSize: number;
  readonly aging: Nanoseconds;
  readonly untaggedPriority: number;
}

/** 802.1Q's recommended ageing time, 300 s. */
export const DEFAULT_MAC_AGING_NS = 300e9;
export const DEFAULT_MAC_TABLE_SIZE = 4096;
const RESERVED_HI = 0x0180_c200_0000 / 0x100;

class L2Bridge implements SwitchFeature {
  readonly name = "bridge";
  private cfg!: BridgeConfig;
  private table: FlowTable | null = null;
  /** The port learnt in each table slot. */
  private slotPort = new Int32Array(0);
  private inDomain = new Uint8Array(0);
  private readonly key = new Uint32Array(2);
  private readonly bridged: Float64Array;
  private readonly flooded: Float64Array;
  private readonly learnt: Float64Array;
  private readonly filtered: Float64Array;
  private readonly tableFull: Float64Array;

  constructor(private readonly ctx: SwitchContext) {
    const c = (name: string, unit: string, help: string) =>
      ctx.counters.add({ name, kind: CounterKind.Counter, unit, help, labels: [] });
    this.bridged = c("bridge_frames", "frames", "frames the bridge domain forwarded to one known port");
    this.flooded = c(
      "bridge_flooded",
      "frames",
      "frames flooded in the bridge domain (unknown or group MAC)",
    );
    this.learnt = c("bridge_macs_learnt", "entries", "MAC addresses learnt (new or moved)");
    this.filtered = c(
      "bridge_filtered",
      "frames",
      "frames whose destination was learnt on their ingress port",
    );
    this.tableFull = c("bridge_mac_table_full", "frames", "source MACs not learnt: the table was full");
    ctx.counters.computed(
      {
        name: "bridge_mac_entries",
        kind: CounterKind.Gauge,
        unit: "entries",
        help: "entries in the MAC table",
        labels: [],
      },
      () => this.table?.size ?? 0,
    );
  }

  configure(cfg: SwitchConfig): void {
    const prev = this.cfg;
    this.cfg = cfg.bridge;
    const d = cfg.bridge.domain;
    this.inDomain = new Uint8Array(this.ctx.numPorts);
    if (d === null) {
      this.table = null;
      return;
    }
    for (const p of d.ports) if (p < this.ctx.numPorts) this.inDomain[p] = 1;
    if (
      this.table === null ||
      prev === undefined ||
      prev.macTableSize !== cfg.bridge.macTableSize ||
      prev.aging !== cfg.bridge.aging
    ) {
      this.table = new FlowTable(cfg.bridge.macTableSize, 2, cfg.bridge.aging);
      this.slotPort = new Int32Array(cfg.bridge.macTableSize);
    }
  }

  activeHooks(): readonly Hook[] {
    return this.cfg.domain === null ? [] : [Hook.Ingress];
  }

  linkChanged(ps: { readonly port: number }, up: boolean): void {
    // Entries on a port that went down would black-hole frames until they age out: flood instead.
    if (up || this.table === null) return;
    for (let s = 0; s < this.slotPort.length; s++) if (this.slotPort[s] === ps.port) this.slotPort[s] = -1;
  }

  ingress(m: PacketMeta, now: Nanoseconds): boolean {
    const inPort = m.inPort;
    if (inPort < 0 || this.inDomain[inPort] !== 1 || m.kind === FrameKind.MacControl) return true;
    if (m.kind === FrameKind.Malformed) return true;
    const f = m.frame;
    const dst = readMac(f, 0);
    if (dst === this.ctx.ports[inPort]!.cfg.mac) return true;
    if (Math.floor(dst / 0x100) === RESERVED_HI) return true;
    const tagged = readU16(f, 12) === EtherType.VLAN;
    const tci = tagged ? readU16(f, 14) : 0;
    const vid = tci & 0x0fff;
    if (tagged && vid !== 0 && vid !== this.cfg.domain!.vlan) return true;
    const table = this.table!;
    this.learn(table, readMac(f, 6), inPort, now);
    const pg = tagged ? tci >>> 13 : this.cfg.untaggedPriority;
    const qos = this.ctx.config.qos;
    m.pg = pg;
    m.queue = qos.priorityToQueue[pg]!;
    m.lossless = qos.lossless.includes(pg);
    // Bridged frames leave unchanged: the rewrite stage skips a packet without an L3 offset.
    const l3 = m.l3;
    m.l3 = -1;
    const group = (Math.floor(dst / 0x100_0000_0000) & 1) === 1;
    if (!group) {
      this.setKey(dst);
      const slot = table.lookup(this.key, now);
      const out = slot >= 0 ? this.slotPort[slot]! : -1;
      if (out === inPort) {
        this.filtered[0]!++;
        return false;
      }
      if (out >= 0 && this.ctx.ports[out]?.up === true) {
        this.bridged[0]!++;
        m.outPort = out;
        this.ctx.enqueueBridged(m, now);
        return false;
      }
    }
    this.flooded[0]!++;
    // Flooded: each port after the first gets a copy of its own, so that a frame has one receiver (a NIC
    // gives back what it consumed: wire/frame-alloc.ts). None is told that its ICRC still holds
    // (PacketMeta.verified), as before the copies, when one receiver could rewrite another's frame.
    m.verified = false;
    const ports = this.cfg.domain!.ports;
    const frame = m.frame;
    let sent = 0;
    for (let i = 0; i < ports.length; i++) {
      const p = ports[i]!;
      if (p === inPort || this.ctx.ports[p]?.up !== true) continue;
      m.outPort = p;
      m.frame = sent++ === 0 ? frame : copyFrame(frame);
      this.ctx.enqueueBridged(m, now);
    }
    m.frame = frame;
    // A broadcast is also for the switch itself (ARP for its port address).
    if (dst !== BROADCAST_MAC || m.kind !== FrameKind.Arp) return false;
    m.l3 = l3;
    return true;
  }

  private learn(table: FlowTable, src: number, port: number, now: Nanoseconds): void {
    this.setKey(src);
    const slot = table.insert(this.key, now);
    if (slot < 0) {
      this.tableFull[0]!++;
      return;
    }
    if (this.slotPort[slot] !== port) {
      this.slotPort[slot] = port;
      this.learnt[0]!++;
    }
  }

  private setKey(mac: number): void {
    this.key[0] = Math.floor(mac / 0x1_0000_0000);
    this.key[1] = mac >>> 0;
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly bridge: BridgeConfig;
  }
}

export const l2BridgeFeature = defineFeature({
  key: "bridge",
  doc:
    "An 802.1Q bridge domain over a leaf's host ports (for RoCEv1, EtherType 0x8915): MAC learning in a " +
    "bounded table with aging, unknown unicast and group frames flooded within the domain, priority and " +
    "PFC from the 802.1Q PCP (untaggedPriority for untagged frames). Frames to the router MAC are routed " +
    "as before. The domain comes from the topology's `bridge`.",
  settings,
  defaults: (): BridgeConfig => ({
    domain: null,
    macTableSize: DEFAULT_MAC_TABLE_SIZE,
    aging: DEFAULT_MAC_AGING_NS,
    untaggedPriority: 0,
  }),
  apply: (c: BridgeConfig, s): BridgeConfig => ({
    domain: s.domain === undefined ? c.domain : s.domain,
    macTableSize: s.macTableSize ?? c.macTableSize,
    aging: s.aging ?? c.aging,
    untaggedPriority: s.untaggedPriority ?? c.untaggedPriority,
  }),
  create: (ctx) => new L2Bridge(ctx),
});
