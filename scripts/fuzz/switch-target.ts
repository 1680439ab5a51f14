// The switch fuzz target: leaf1 of the default fabric, alone in the simulator with a WirePeer on each of
// its ports (the spines' and the hosts' addresses, answering ARP). Mutated frames arrive on every port,
// half of them re-addressed to the port's own MAC so that they get past the L3 port's address filter,
// interleaved with unmodified catalog frames and the odd link flap; timers (transmit, PFC pause expiry,
// XOFF refresh, ARP retries) fire as emulated time runs. Before and after the fuzz, known-good RoCE frames from h1 (one to
// h5, routed to a spine by ECMP; one to h2, on the same leaf) must leave by the same ports, TTL 63.

import type { Counters, Nanoseconds } from "../../src/device/contract.js";
import { type SimLink, Simulator } from "../../src/runtime/sim/simulator.js";
import { hostAddress, planAddresses, portKey } from "../../src/scenario/address-plan.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { SettingsLayers } from "../../src/scenario/settings-layers.js";
import { buildSwitchConfig } from "../../src/scenario/switch-config.js";
import { defaultTopology, linkAt, nodeByName } from "../../src/scenario/topology.js";
import { Switch } from "../../src/switch/switch.js";
import { buildFrameCatalog } from "../../src/verify/frame-catalog.js";
import { FrameMutator, fixChecksums } from "../../src/verify/frame-mutator.js";
import { readU16, readU32, writeMac, writeU16, writeU32 } from "../../src/wire/bytes.js";
import { EtherType } from "../../src/wire/ethernet.js";
import { countersThatRose, type DeviceFault, flatCounters, GuardedDevice, WirePeer } from "./harness.js";

export interface SwitchFuzzOptions {
  readonly seed: number | string;
  readonly frames: number;
  /** One unmodified catalog frame every this many fuzz frames (default 8). */
  readonly validEvery?: number;
}

export interface KnownGoodCheck {
  readonly name: string;
  /** Port the frame left by before the fuzz, and after it (-1: it did not come out). */
  readonly portBefore: number;
  readonly portAfter: number;
  /** TTL it came out with after the fuzz (63: one router hop). */
  readonly ttlAfter: number;
}

export interface SwitchFuzzReport {
  readonly frames: number;
  readonly validFrames: number;
  /** Links taken down and back up during the fuzz. */
  readonly linkFlaps: number;
  readonly exceptions: number;
  readonly faults: readonly DeviceFault[];
  /** Switch counters (port counters summed as `port.*`) that rose during the fuzz, and by how much. */
  readonly rose: Counters;
  readonly knownGood: readonly KnownGoodCheck[];
  readonly emulatedNs: Nanoseconds;
}

const SWITCH = "leaf1";
/** Emulated time between injected frames: about line rate for small frames at 100 Gb/s. */
const SPACING_NS = 100;
const BATCH = 256;
/** One link flap every this many batches. */
const FLAP_EVERY = 16;
/** After the fuzz: every received pause (65535 quanta is 335 µs at 100 Gb/s) has run out. */
const SETTLE_NS = 2_000_000;
/** IPv4 identification of the known-good frames, so the peers can tell them from fuzz frames. */
const MARK_ID = 0xf00d;

export function fuzzSwitch(opts: SwitchFuzzOptions): SwitchFuzzReport {
  const topo = defaultTopology();
  const plan = planAddresses(topo);
  const routes = computeRoutes(topo, plan);
  const node = nodeByName(topo, SWITCH)!;
  const cfg = buildSwitchConfig(
    topo,
    plan,
    routes.get(SWITCH) ?? [],
    SWITCH,
    new SettingsLayers(topo).switchTunables(SWITCH),
  );
  const sim = new Simulator({ seed: opts.seed });
  const sw = sim.addDevice(SWITCH, (env) => new GuardedDevice(new Switch(cfg, env)));
  const peers = new Map<number, WirePeer>();
  const links = new Map<number, SimLink>();
  for (const port of node.ports) {
    const { link, peer: far } = linkAt(topo, SWITCH, port)!;
    const address = plan.ports.get(portKey(far.node, far.port))!;
    peers.set(
      port,
      sim.addDevice(`${far.node}:eth${far.port}`, (env) => new WirePeer(`${far.node}`, address, env)),
    );
    const simLink = sim.connect({
      a: { device: SWITCH, port },
      b: { device: `${far.node}:eth${far.port}`, port: 1 },
      delayNs: link.delayNs,
    });
    links.set(port, simLink);
  }
  const ports = cfg.ports.map((p) => p.port);
  const portMac = new Map(cfg.ports.map((p) => [p.port, p.mac]));

  // Known-good frames: the catalog's WRITE ONLY from h1 (to h5), and the same re-addressed to h2.
  const catalog = buildFrameCatalog();
  const h1 = hostAddress(plan, "h1");
  const h2 = hostAddress(plan, "h2");
  const h1Port = [...peers].find(([, p]) => p.address.ip === h1.ip)![0];
  const write = catalog.find((c) => c.name === "write-only")!.frame;
  const goodFrames = (): { name: string; frame: Uint8Array }[] => {
    const toH5 = write.slice();
    writeU16(toH5, 18, MARK_ID);
    fixChecksums(toH5);
    const toH2 = toH5.slice();
    writeU32(toH2, 30, h2.ip);
    fixChecksums(toH2);
    return [
      { name: "h1->h5 (routed to a spine)", frame: toH5 },
      { name: "h1->h2 (same leaf)", frame: toH2 },
    ];
  };
  const isGood = (f: Uint8Array) =>
    f.length > 34 &&
    readU16(f, 12) === EtherType.IPv4 &&
    readU16(f, 18) === MARK_ID &&
    readU32(f, 26) === h1.ip;
  for (const p of peers.values()) p.watch = isGood;
  const sendGood = (): Map<string, { port: number; ttl: number }> => {
    for (const p of peers.values()) p.watched.length = 0;
    const frames = goodFrames();
    for (const g of frames) sim.at(sim.now, () => peers.get(h1Port)!.send(g.frame));
    sim.run(sim.now + 200_000);
    const out = new Map<string, { port: number; ttl: number }>();
    for (const g of frames) {
      const dst = readU32(g.frame, 30);
      for (const [port, p] of peers) {
        const hit = p.watched.find((w) => readU32(w.frame, 30) === dst);
        if (hit) out.set(g.name, { port, ttl: hit.frame[22]! });
      }
    }
    return out;
  };

  sim.run(300_000); // ARP for every neighbour
  const before = sendGood();
  const countersBefore = flatCounters(sw.stats(sim.now));

  const mutator = new FrameMutator(
    opts.seed,
    catalog.map((c) => c.frame),
  );
  const validEvery = opts.validEvery ?? 8;
  let validFrames = 0;
  let flaps = 0;
  for (let done = 0; done < opts.frames; ) {
    const start = sim.now;
    const n = Math.min(BATCH, opts.frames - done);
    for (let i = 0; i < n; i++) {
      const port = ports[mutator.int(ports.length)]!;
      const m = mutator.next();
      const f = m.frame;
      if (f.length >= 14 && readU16(f, 12) !== EtherType.MacControl && mutator.int(2) === 0) {
        writeMac(f, 0, portMac.get(port)!);
      }
      sim.at(start + i * SPACING_NS, () => peers.get(port)!.send(f));
      if (i % validEvery === 0) {
        const valid = catalog[mutator.int(catalog.length)]!.frame.slice();
        if (readU16(valid, 12) !== EtherType.MacControl) writeMac(valid, 0, portMac.get(port)!);
        sim.at(start + i * SPACING_NS + SPACING_NS / 2, () => peers.get(port)!.send(valid));
        validFrames++;
      }
    }
    // Now and then a link fails for a few µs in the middle of it all (its peer keeps sending into it).
    if ((done / BATCH) % FLAP_EVERY === FLAP_EVERY - 1) {
      const link = links.get(ports[mutator.int(ports.length)]!)!;
      sim.at(start + (n * SPACING_NS) / 4, () => sim.setLinkUp(link, false));
      sim.at(start + (n * SPACING_NS) / 2, () => sim.setLinkUp(link, true));
      flaps++;
    }
    done += n;
    sim.run(start + n * SPACING_NS);
  }
  sim.run(sim.now + SETTLE_NS);
  const rose = countersThatRose(countersBefore, flatCounters(sw.stats(sim.now)));
  const after = sendGood();
  const knownGood = goodFrames().map(({ name }) => ({
    name,
    portBefore: before.get(name)?.port ?? -1,
    portAfter: after.get(name)?.port ?? -1,
    ttlAfter: after.get(name)?.ttl ?? -1,
  }));
  return {
    frames: opts.frames,
    validFrames,
    linkFlaps: flaps,
    exceptions: sw.exceptions,
    faults: sw.faults,
    rose,
    knownGood,
    emulatedNs: sim.now,
  };
}
