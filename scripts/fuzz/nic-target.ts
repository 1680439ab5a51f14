// The NIC fuzz target: h1 and h5 of the default fabric, two NICs joined by a stand-in for the fabric that
// delivers each one's frames to the other re-addressed as a leaf would (destination MAC the receiver's,
// source MAC its gateway's), and injects mutated frames towards either NIC. The catalog's frames belong to
// h1's QP 0x000102 and h5's QP 0x000105, and those QPs exist and carry a WRITE and a READ during the fuzz,
// so mutated and replayed packets reach live requester and responder state. Variants: with the host port
// (port 2 is the host's stack, which also sends mutated frames down) and with the receive buffer (which
// sends PFC when the host cannot keep up). Now and then a link fails for a few µs. After the fuzz a fresh
// QP pair must complete a WRITE and a READ.

import type { Counters, Device, DeviceEnv, DeviceStats, Nanoseconds } from "../../src/device/contract.js";
import type { NicCommand } from "../../src/nic/commands.js";
import { Nic } from "../../src/nic/nic.js";
import { nicConfig } from "../../src/nic/resolve-config.js";
import { type SimLink, Simulator } from "../../src/runtime/sim/simulator.js";
import { hostAddress, planAddresses } from "../../src/scenario/address-plan.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { buildFrameCatalog, CATALOG_QPN_H1, CATALOG_QPN_H5 } from "../../src/verify/frame-catalog.js";
import { FrameMutator } from "../../src/verify/frame-mutator.js";
import { readU16, readU32, writeMac } from "../../src/wire/bytes.js";
import { EtherType } from "../../src/wire/ethernet.js";
import { countersThatRose, type DeviceFault, flatCounters, GuardedDevice, WirePeer } from "./harness.js";

export interface NicFuzzOptions {
  readonly seed: number | string;
  readonly frames: number;
  /** Port 2 of both NICs is a host stack (which sends mutated frames too). */
  readonly hostPort?: boolean;
  /** Both NICs buffer received frames and drain them at half the line rate, sending PFC. */
  readonly rxBuffer?: boolean;
  /** One unmodified catalog frame every this many fuzz frames (default 8). */
  readonly validEvery?: number;
}

export interface NicFuzzReport {
  readonly frames: number;
  readonly validFrames: number;
  /** Link failures (a few µs each) during the fuzz. */
  readonly linkFlaps: number;
  readonly exceptions: number;
  readonly faults: readonly DeviceFault[];
  /** Counters of both NICs (summed) that rose during the fuzz. */
  readonly rose: Counters;
  /** Whether the WRITE and READ on the catalog's QPs, posted before the fuzz, completed (not required). */
  readonly duringFuzzCompleted: number;
  /** Messages the fresh QP pair completed after the fuzz, of `afterFuzzPosted`. */
  readonly afterFuzzCompleted: number;
  readonly afterFuzzPosted: number;
  readonly emulatedNs: Nanoseconds;
  /** Most either NIC's receive buffer held during the fuzz, bytes (0 without one). */
  readonly rxBufferPeakBytes: number;
}

const RATE = 100e9;
const DELAY_NS = 1000;
const SPACING_NS = 100;
const BATCH = 256;
const FLAP_EVERY = 16;
const AFTER_QPN = 0x300;
const AFTER_LIMIT_NS = 50_000_000;

/** The fabric stand-in: port 1 faces h1, port 2 faces h5. */
class Fabric implements Device<never, void> {
  constructor(
    readonly name: string,
    private readonly env: DeviceEnv,
    /** Per port (index 1, 2): the MAC of the NIC on it and of the gateway it sends to. */
    private readonly nicMac: readonly number[],
    private readonly gatewayMac: readonly number[],
  ) {}
  start(): void {}
  receive(port: number, frame: Uint8Array): void {
    // A leaf consumes MAC Control frames; it routes the rest to the other NIC.
    if (frame.length < 14 || readU16(frame, 12) === EtherType.MacControl) return;
    this.deliver(port === 1 ? 2 : 1, frame, true);
  }
  deliver(port: number, frame: Uint8Array, readdress: boolean): void {
    if (readdress && frame.length >= 12) {
      writeMac(frame, 0, this.nicMac[port]!);
      writeMac(frame, 6, this.gatewayMac[port]!);
    }
    this.env.transmit(port, frame);
  }
  fire(): void {}
  setLinkState(): void {}
  command(): void {}
  stats(now: Nanoseconds): DeviceStats {
    return { kind: "fabric", name: this.name, now, counters: {}, ports: [] };
  }
}

function sum(a: Counters, b: Counters): Counters {
  const out: Counters = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function fuzzNic(opts: NicFuzzOptions): NicFuzzReport {
  const topo = defaultTopology();
  const plan = planAddresses(topo);
  const addr = [hostAddress(plan, "h1"), hostAddress(plan, "h5")] as const;
  const sim = new Simulator({ seed: opts.seed });
  const nics: Nic[] = [];
  const guards = addr.map((a) =>
    sim.addDevice(a.node, (env) => {
      const nic = new Nic(
        nicConfig({
          name: a.node,
          port: { mac: a.mac, ip: a.ip, rateBps: RATE, delayNs: DELAY_NS },
          gatewayMac: a.peerMac,
          mtu: topo.mtu,
          hostPort: opts.hostPort ?? false,
          settings: opts.rxBuffer ? { rxBuffer: { enabled: true, hostIngestRate: RATE / 2 } } : {},
        }),
        env,
      );
      nics.push(nic);
      return new GuardedDevice(nic);
    }),
  );
  const fabric = sim.addDevice(
    "fabric",
    (env) => new Fabric("fabric", env, [0, addr[0].mac, addr[1].mac], [0, addr[0].peerMac, addr[1].peerMac]),
  );
  const hostStacks: WirePeer[] = [];
  const wires: SimLink[] = [];
  addr.forEach((a, i) => {
    wires.push(
      sim.connect({
        a: { device: a.node, port: 1 },
        b: { device: "fabric", port: i + 1 },
        delayNs: DELAY_NS,
      }),
    );
    if (opts.hostPort) {
      hostStacks.push(sim.addDevice(`${a.node}-host`, (env) => new WirePeer(`${a.node}-host`, a, env)));
      sim.connect({ a: { device: a.node, port: 2 }, b: { device: `${a.node}-host`, port: 1 }, delayNs: 0 });
    }
  });
  const must = (i: number, cmd: NicCommand) => {
    const r = nics[i]!.command(cmd, sim.now);
    if (!r.ok) throw new Error(`${addr[i]!.node}: ${cmd.type} refused: ${r.error}`);
  };
  const connect = (qpn: number, remote: number) => {
    must(0, { type: "create-qp", qpn, remoteQpn: remote, remoteIp: addr[1].ip });
    must(1, { type: "create-qp", qpn: remote, remoteQpn: qpn, remoteIp: addr[0].ip });
  };
  const completed = (qpn: number) => nics[0]!.completions.filter((c) => c.qpn === qpn).length;

  connect(CATALOG_QPN_H1, CATALOG_QPN_H5);
  const fuzzNs = Math.ceil(opts.frames * SPACING_NS);
  // A WRITE and a READ that keep the catalog's QPs busy through the fuzz (about half the time at line rate).
  const bytes = Math.max(64 * 1024, Math.floor((fuzzNs * RATE) / 8e9 / 4));
  must(0, { type: "post", qpn: CATALOG_QPN_H1, op: "write", bytes, flowId: "during-write" });
  must(0, { type: "post", qpn: CATALOG_QPN_H1, op: "read", bytes, flowId: "during-read" });
  sim.run(10_000);
  const before = guards.map((g) => flatCounters(g.stats(sim.now)));

  const catalog = buildFrameCatalog();
  const mutator = new FrameMutator(
    opts.seed,
    catalog.map((c) => c.frame),
  );
  const validEvery = opts.validEvery ?? 8;
  let validFrames = 0;
  let flaps = 0;
  /** Which NIC (0: h1, 1: h5) a frame is for: by its IPv4 destination where it has one, else at random. */
  const sideOf = (f: Uint8Array): number => {
    if (f.length >= 34 && readU16(f, 12) === EtherType.IPv4) {
      const dst = readU32(f, 30);
      if (dst === addr[0].ip) return 0;
      if (dst === addr[1].ip) return 1;
    }
    return mutator.int(2);
  };
  const inject = (f: Uint8Array, at: Nanoseconds, readdress: boolean) => {
    const side = sideOf(f);
    if (opts.hostPort && mutator.int(4) === 0) {
      sim.at(at, () => hostStacks[side]!.send(f));
      return;
    }
    const re = readdress && f.length >= 14 && readU16(f, 12) !== EtherType.MacControl;
    sim.at(at, () => fabric.deliver(side + 1, f, re));
  };
  for (let done = 0; done < opts.frames; ) {
    const start = sim.now;
    const n = Math.min(BATCH, opts.frames - done);
    for (let i = 0; i < n; i++) {
      inject(mutator.next().frame, start + i * SPACING_NS, mutator.int(4) !== 0);
      if (i % validEvery === 0) {
        inject(
          catalog[mutator.int(catalog.length)]!.frame.slice(),
          start + i * SPACING_NS + SPACING_NS / 2,
          true,
        );
        validFrames++;
      }
    }
    // Now and then one NIC's link fails for a few µs while the garbage keeps coming.
    if ((done / BATCH) % FLAP_EVERY === FLAP_EVERY - 1) {
      const wire = wires[mutator.int(2)]!;
      sim.at(start + (n * SPACING_NS) / 4, () => sim.setLinkUp(wire, false));
      sim.at(start + (n * SPACING_NS) / 2, () => sim.setLinkUp(wire, true));
      flaps++;
    }
    done += n;
    sim.run(start + n * SPACING_NS);
  }
  sim.run(sim.now + 2_000_000);
  const afterStats = guards.map((g) => g.stats(sim.now));
  const after = afterStats.map(flatCounters);
  const rxBufferPeakBytes = Math.max(
    0,
    ...afterStats.flatMap((st) => st.ports.map((p) => p.counters.rx_buffer_peak_bytes ?? 0)),
  );
  const rose = countersThatRose(sum(before[0]!, before[1]!), sum(after[0]!, after[1]!));
  const duringFuzzCompleted = completed(CATALOG_QPN_H1);

  // A fresh connection after the fuzz: both messages must complete.
  connect(AFTER_QPN, AFTER_QPN + 1);
  must(0, { type: "post", qpn: AFTER_QPN, op: "write", bytes: 1 << 20, flowId: "after-write" });
  must(0, { type: "post", qpn: AFTER_QPN, op: "read", bytes: 256 * 1024, flowId: "after-read" });
  const limit = sim.now + AFTER_LIMIT_NS;
  while (sim.now < limit && completed(AFTER_QPN) < 2) sim.run(sim.now + 100_000);
  return {
    frames: opts.frames,
    validFrames,
    linkFlaps: flaps,
    exceptions: guards.reduce((n, g) => n + g.exceptions, 0),
    faults: guards.flatMap((g) => g.faults),
    rose,
    duringFuzzCompleted,
    afterFuzzCompleted: completed(AFTER_QPN),
    afterFuzzPosted: 2,
    emulatedNs: sim.now,
    rxBufferPeakBytes,
  };
}
