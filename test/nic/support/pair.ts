// Test helpers: two NICs back to back in the simulator (optionally through a frame-dropping middlebox),
// and small accessors for their stats.

import type { Device, DeviceEnv, DeviceStats, Nanoseconds } from "../../../src/device/contract.js";
import type { NicCommand } from "../../../src/nic/commands.js";
import { Nic } from "../../../src/nic/nic.js";
import { type NicConfigInit, nicConfig } from "../../../src/nic/resolve-config.js";
import type { CompletionRecord, NicDetail, NicStats, QpStats } from "../../../src/nic/stats-types.js";
import { Simulator } from "../../../src/runtime/sim/simulator.js";
import type { PortAddress } from "../../../src/scenario/address-plan.js";
import { parseIp } from "../../../src/wire/bytes.js";
import { EtherType, ethType } from "../../../src/wire/ethernet.js";
import { parseRoce, type RoceHeaders } from "../../../src/wire/roce.js";
import { RawHost } from "../../helpers/raw-host.js";

export const MAC_A = 0x02_00_00_00_0a_01;
export const MAC_B = 0x02_00_00_00_0b_01;
export const IP_A = parseIp("10.0.0.1")!;
export const IP_B = parseIp("10.0.0.2")!;
export const RATE = 100e9;

/** Decoded RoCE headers of a frame (untagged IPv4, no options), or null. */
export function roceOf(frame: Uint8Array): RoceHeaders | null {
  if (frame.length < 42 || ethType(frame) !== EtherType.IPv4 || frame[23] !== 17) return null;
  if (((frame[36]! << 8) | frame[37]!) !== 4791) return null;
  const end = 14 + ((frame[16]! << 8) | frame[17]!);
  const parsed = parseRoce(frame, 42, end);
  return parsed.ok ? parsed.value : null;
}

/** Drops frames a test chooses, forwarding the rest between its ports 1 and 2 with no delay. */
export class Middlebox implements Device<unknown, void> {
  /** Frames seen so far per direction (1: from port 1 to 2; 2: from 2 to 1). */
  readonly seen = [0, 0, 0];
  dropped = 0;
  constructor(
    readonly name: string,
    private readonly env: DeviceEnv,
    /** Return true to drop: `from` is the port it arrived on, `index` counts frames in that direction. */
    public dropIf: (frame: Uint8Array, from: number, index: number, now: Nanoseconds) => boolean = () =>
      false,
  ) {}
  /**
   * Pass on the sender's `verified` (DeviceEnv.transmit) as a switch that changed nothing would; off by
   * default: a box that may rewrite frames must not vouch for their ICRC.
   */
  vouch = false;
  start(): void {}
  receive(port: number, frame: Uint8Array, now: Nanoseconds, verified = false): void {
    const index = this.seen[port]!++;
    if (this.dropIf(frame, port, index, now)) {
      this.dropped++;
      return;
    }
    this.env.transmit(port === 1 ? 2 : 1, frame, undefined, this.vouch && verified);
  }
  /** Sends `frame` out of `port` as if it had come from the other side (forged or rewritten frames). */
  inject(port: 1 | 2, frame: Uint8Array): void {
    this.env.transmit(port, frame);
  }
  fire(): void {}
  setLinkState(): void {}
  command(): void {}
  stats(now: Nanoseconds): DeviceStats {
    return { kind: "switch", name: this.name, now, counters: { dropped: this.dropped }, ports: [] };
  }
}

export interface PairOptions {
  readonly seed?: number;
  readonly lossRate?: number;
  readonly delayNs?: number;
  /** Put a Middlebox between the NICs (its drop rule can be set later). */
  readonly middlebox?: boolean;
  readonly a?: Partial<NicConfigInit>;
  readonly b?: Partial<NicConfigInit>;
}

export interface Pair {
  readonly sim: Simulator;
  readonly a: Nic;
  readonly b: Nic;
  readonly box: Middlebox | null;
}

/** Two NICs, A (10.0.0.1) and B (10.0.0.2), on one link (or through a middlebox). */
export function pair(opts: PairOptions = {}): Pair {
  const sim = new Simulator({ seed: opts.seed ?? 1 });
  const delayNs = opts.delayNs ?? 1000;
  const a = sim.addDevice(
    "a",
    (env) =>
      new Nic(
        nicConfig({
          name: "a",
          port: { mac: MAC_A, ip: IP_A, rateBps: RATE, delayNs },
          gatewayMac: MAC_B,
          ...opts.a,
        }),
        env,
      ),
  );
  const b = sim.addDevice(
    "b",
    (env) =>
      new Nic(
        nicConfig({
          name: "b",
          port: { mac: MAC_B, ip: IP_B, rateBps: RATE, delayNs },
          gatewayMac: MAC_A,
          ...opts.b,
        }),
        env,
      ),
  );
  let box: Middlebox | null = null;
  if (opts.middlebox) {
    box = sim.addDevice("box", (env) => new Middlebox("box", env));
    sim.connect({
      a: { device: "a", port: 1 },
      b: { device: "box", port: 1 },
      delayNs,
      lossRate: opts.lossRate ?? 0,
    });
    sim.connect({ a: { device: "box", port: 2 }, b: { device: "b", port: 1 }, delayNs: 0 });
  } else {
    sim.connect({
      a: { device: "a", port: 1 },
      b: { device: "b", port: 1 },
      delayNs,
      lossRate: opts.lossRate ?? 0,
    });
  }
  return { sim, a, b, box };
}

/** Runs `cmd` and fails loudly if the NIC refuses it. */
export function must(nic: Nic, cmd: NicCommand, now = 0): void {
  const r = nic.command(cmd, now);
  if (!r.ok) throw new Error(`${nic.name}: ${cmd.type} refused: ${r.error}`);
}

/** QP `qpn` on A connected to QP `qpn + 1000` on B, with matching PSNs. */
export function connect(
  p: Pair,
  qpn: number,
  opts: { psnA?: number; psnB?: number; udpSrcPort?: number } = {},
): void {
  const remote = qpn + 1000;
  must(p.a, {
    type: "create-qp",
    qpn,
    remoteQpn: remote,
    remoteIp: IP_B,
    startPsn: opts.psnA ?? 0,
    remoteStartPsn: opts.psnB ?? 0,
    ...(opts.udpSrcPort === undefined ? {} : { udpSrcPort: opts.udpSrcPort }),
  });
  must(p.b, {
    type: "create-qp",
    qpn: remote,
    remoteQpn: qpn,
    remoteIp: IP_A,
    startPsn: opts.psnB ?? 0,
    remoteStartPsn: opts.psnA ?? 0,
    ...(opts.udpSrcPort === undefined ? {} : { udpSrcPort: opts.udpSrcPort }),
  });
}

export function detail(stats: NicStats): NicDetail {
  return stats.detail;
}

export function qpStats(nic: Nic, qpn: number, now: Nanoseconds): QpStats {
  const q = detail(nic.stats(now)).qps.find((x) => x.qpn === qpn);
  if (!q) throw new Error(`no QP ${qpn} on ${nic.name}`);
  return q;
}

/** Runs the simulation in steps until `done()` or `limitNs`; returns the time it stopped. */
export function runUntil(
  sim: Simulator,
  done: () => boolean,
  limitNs: Nanoseconds,
  stepNs = 100_000,
): Nanoseconds {
  while (sim.now < limitNs && !done()) sim.run(Math.min(limitNs, sim.now + stepNs));
  return sim.now;
}

export function flowsOf(nic: Nic): readonly CompletionRecord[] {
  return nic.completions;
}

/** Addresses of a NIC and the raw host facing it. */
export interface RawPeerAddresses {
  readonly macNic: number;
  readonly ipNic: number;
  readonly macRaw: number;
  readonly ipRaw: number;
  readonly delayNs: number;
}

/**
 * A NIC (100 Gb/s) wired to a RawHost that does not obey PFC: the raw side plays the switch or the peer,
 * sending exactly the frames a test builds and recording what the NIC sends.
 */
export function nicWithRawPeer(
  sim: Simulator,
  a: RawPeerAddresses,
  nic: Partial<NicConfigInit> = {},
): { nic: Nic; raw: RawHost } {
  const n = sim.addDevice(
    "nic",
    (env) =>
      new Nic(
        nicConfig({
          name: "nic",
          port: { mac: a.macNic, ip: a.ipNic, rateBps: RATE },
          gatewayMac: a.macRaw,
          ...nic,
        }),
        env,
      ),
  );
  const address: PortAddress = {
    node: "raw",
    port: 1,
    mac: a.macRaw,
    ip: a.ipRaw,
    prefixLength: 31,
    peerIp: a.ipNic,
    peerMac: a.macNic,
  };
  const raw = sim.addDevice("raw", (env) => new RawHost("raw", address, RATE, env, false));
  sim.connect({ a: { device: "nic", port: 1 }, b: { device: "raw", port: 1 }, delayNs: a.delayNs });
  return { nic: n, raw };
}
