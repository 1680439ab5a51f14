// What the device fuzz targets share: a wrapper that catches and records what a device throws (with the
// frame that made it throw, for a reproducer), a wire peer that answers ARP and records what reaches it,
// and counter bookkeeping. Everything goes through the device contract only (device/contract.ts).

import type { Counters, Device, DeviceEnv, DeviceStats, Nanoseconds } from "../../src/device/contract.js";
import type { PortAddress } from "../../src/scenario/address-plan.js";
import { ArpOp, buildArpFrame, parseArp } from "../../src/wire/arp.js";
import { toHex } from "../../src/wire/bytes.js";
import { EtherType, ethPayloadOffset, ethType } from "../../src/wire/ethernet.js";

/** Something a device threw. */
export interface DeviceFault {
  readonly device: string;
  readonly where: "receive" | "fire" | "setLinkState";
  readonly port: number;
  readonly now: Nanoseconds;
  /** The frame as it was handed to the device (before the device could change it), hex. */
  readonly frameHex: string;
  readonly message: string;
}

const MAX_FAULTS = 10;

/**
 * Wraps a device: every receive, timer and link change is passed on, and what the device throws is counted
 * and recorded instead of ending the run. Commands are the harness's own and are not guarded.
 */
export class GuardedDevice<C, R, S extends DeviceStats> implements Device<C, R, S> {
  exceptions = 0;
  readonly faults: DeviceFault[] = [];

  constructor(readonly inner: Device<C, R, S>) {}

  get name(): string {
    return this.inner.name;
  }

  private fault(where: DeviceFault["where"], port: number, now: Nanoseconds, frame: Uint8Array, e: unknown) {
    this.exceptions++;
    if (this.faults.length >= MAX_FAULTS) return;
    const message = e instanceof Error ? (e.stack ?? e.message) : String(e);
    this.faults.push({ device: this.name, where, port, now, frameHex: toHex(frame), message });
  }

  start(now: Nanoseconds): void {
    this.inner.start(now);
  }

  receive(port: number, frame: Uint8Array, now: Nanoseconds): void {
    // The device owns the frame and may rewrite it: keep the bytes as they arrived for the record.
    const arrived = frame.slice();
    try {
      this.inner.receive(port, frame, now);
    } catch (e) {
      this.fault("receive", port, now, arrived, e);
    }
  }

  fire(timer: number, now: Nanoseconds): void {
    try {
      this.inner.fire(timer, now);
    } catch (e) {
      this.fault("fire", timer, now, new Uint8Array(0), e);
    }
  }

  setLinkState(port: number, up: boolean, now: Nanoseconds): void {
    try {
      this.inner.setLinkState(port, up, now);
    } catch (e) {
      this.fault("setLinkState", port, now, new Uint8Array(0), e);
    }
  }

  command(cmd: C, now: Nanoseconds): R {
    return this.inner.command(cmd, now);
  }

  stats(now: Nanoseconds): S {
    return this.inner.stats(now);
  }
}

/**
 * The far end of a link: answers ARP requests for its address at once, puts frames on the wire when told
 * (no pacing: a fuzz peer may well flood), and keeps the frames a test watches for.
 */
export class WirePeer implements Device<never, void> {
  received = 0;
  /** Frames that matched `watch`, with their arrival time. */
  readonly watched: { t: Nanoseconds; frame: Uint8Array }[] = [];
  watch: ((frame: Uint8Array) => boolean) | null = null;

  constructor(
    readonly name: string,
    readonly address: PortAddress,
    private readonly env: DeviceEnv,
  ) {}

  start(): void {}

  receive(_port: number, frame: Uint8Array, now: Nanoseconds): void {
    this.received++;
    if (frame.length >= 14 && ethType(frame) === EtherType.ARP) {
      const arp = parseArp(frame, ethPayloadOffset(frame));
      if (arp.ok && arp.value.op === ArpOp.Request && arp.value.targetIp === this.address.ip) {
        this.send(
          buildArpFrame({
            op: ArpOp.Reply,
            senderMac: this.address.mac,
            senderIp: this.address.ip,
            targetMac: arp.value.senderMac,
            targetIp: arp.value.senderIp,
          }),
        );
      }
      return;
    }
    if (this.watch?.(frame)) this.watched.push({ t: now, frame });
  }

  send(frame: Uint8Array): void {
    this.env.transmit(1, frame);
  }

  fire(): void {}
  setLinkState(): void {}
  command(): void {}

  stats(now: Nanoseconds): DeviceStats {
    return { kind: "peer", name: this.name, now, counters: { received: this.received }, ports: [] };
  }
}

/**
 * A device's counters flattened: device-level names as they are, port counters summed over ports as
 * `port.<name>` (left out where the device level already has the name: the NIC repeats its totals there).
 */
export function flatCounters(stats: DeviceStats): Counters {
  const out: Counters = { ...stats.counters };
  for (const p of stats.ports) {
    for (const [k, v] of Object.entries(p.counters)) {
      if (k in stats.counters) continue;
      out[`port.${k}`] = (out[`port.${k}`] ?? 0) + v;
    }
  }
  return out;
}

/** Counters that rose from `before` to `after`, by how much (gauges such as byte levels included). */
export function countersThatRose(before: Counters, after: Counters): Counters {
  const out: Counters = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}
