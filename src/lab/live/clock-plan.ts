// Where each device and each link direction of a lab sits in the clock table (runtime/realtime/clock-table.ts):
// devices in topology order, and for every link two directions, a→b then b→a, each indexed by its
// receiver. The supervisor creates the table from this plan and hands every device its own row.

import type { ClockLink } from "../../runtime/realtime/clock-table.js";
import type { SyncedPort } from "../../runtime/realtime/synced-clock.js";
import type { Topology } from "../../scenario/topology.js";

export const ClockMode = { Free: "free", Synced: "synced" } as const;
export type ClockMode = (typeof ClockMode)[keyof typeof ClockMode];

export const DEFAULT_CLOCK_MODE: ClockMode = ClockMode.Synced;

export function parseClockMode(text: string, where: string): ClockMode {
  if (text === ClockMode.Free || text === ClockMode.Synced) return text;
  throw new Error(`${where} must be "synced" or "free", not "${text}"`);
}

export interface ClockPlan {
  readonly device: ReadonlyMap<string, number>;
  /** links[l]: the devices that send and receive on link direction l, and its delay. */
  readonly links: readonly ClockLink[];
  /** The synchronised ports of each node (the NIC's host port is not one: it is not an emulated link). */
  readonly ports: ReadonlyMap<string, readonly SyncedPort[]>;
}

export function planClock(topo: Topology): ClockPlan {
  const device = new Map(topo.nodes.map((n, i) => [n.name, i]));
  const links: ClockLink[] = [];
  const ports = new Map<string, SyncedPort[]>(topo.nodes.map((n) => [n.name, []]));
  for (const link of topo.links) {
    const a = device.get(link.a.node)!;
    const b = device.get(link.b.node)!;
    const toB = links.push({ from: a, to: b, delayNs: link.delayNs }) - 1;
    const toA = links.push({ from: b, to: a, delayNs: link.delayNs }) - 1;
    ports
      .get(link.a.node)!
      .push({ port: link.a.port, rxLink: toA, txLink: toB, peer: b, delayNs: link.delayNs });
    ports
      .get(link.b.node)!
      .push({ port: link.b.port, rxLink: toB, txLink: toA, peer: a, delayNs: link.delayNs });
  }
  return { device, links, ports };
}

/**
 * Default dilation: emulated time runs 1000× slower than real time. At 1000 a 100 Gb/s link carries
 * 100 Mb/s of real frames (about 3,000 full-size frames a second) and 1 µs of emulated time is 1 ms of real
 * time — the resolution of Node's timers. docs/performance.md has the measurements behind this choice.
 */
export const DEFAULT_DILATION = 1000;
