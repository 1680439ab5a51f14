// builds-ab's `switch-path` case: the live switch's JavaScript forwarding path in one process, without the
// kernel. A build's own DeviceHost, LiveClock (dilation 1) and Switch, configured as the switch-forwarding
// benchmark's switch (the same fabric, routes and frame: switch-forwarding-setup.ts), get the benchmark's
// full-size frame on port 1 in batches of the ring port's size, each frame a fresh copy in a reused slab
// (as the addon hands them over), stamped with one arrival time per batch; port 2 counts what it is given.
// What is measured is the host (clock, timers, delivery), the switch core and the transmit bookkeeping per
// forwarded frame: everything of a live switch process but the addon and the kernel. Two builds' costs on
// a busy machine compare far better this way than through veths, where the scheduler decides how much of
// a core the switch gets (and with it how many frames a wake-up reads).

import { join } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { pathToFileURL } from "node:url";

/** Frames per batch: the ring port's RX_BATCH. */
const BATCH = 64;
/** Slabs reused round robin: frames are forwarded within their batch, so one would do; a few are realistic. */
const SLABS = 8;

/** A port that keeps nothing: the frames a device sends are counted and dropped. */
class CountingPort {
  sendErrors = 0;
  sent = 0;
  handler: ((frame: Uint8Array, arrivalNs: number) => void) | null = null;
  constructor(readonly ifname: string) {}
  send(): void {
    this.sent++;
  }
  flush(): void {}
  onFrame(h: (frame: Uint8Array, arrivalNs: number) => void): void {
    this.handler = h;
  }
  close(): void {}
}

/** One sample: CPU ms for `frames` forwarded frames. */
export interface PathSample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

/** Forwards `frames` frames `runs` times (after one warm-up run) through the build at `root`. */
export async function switchPathSamples(root: string, frames: number, runs: number): Promise<PathSample[]> {
  const dist = join(root, "dist");
  // biome-ignore lint/suspicious/noExplicitAny: another build's modules, loaded by path
  const load = (p: string): Promise<any> => import(pathToFileURL(join(dist, p)).href);
  const { DeviceHost } = await load("runtime/realtime/device-host.js");
  const { LiveClock } = await load("runtime/realtime/clock.js");
  const { Switch } = await load("switch/switch.js");
  const { createRandom } = await load("device/prng.js");
  const { computeRoutes } = await load("scenario/routing.js");
  const { resolveTunables } = await load("scenario/settings-layers.js");
  const { buildSwitchConfig, maxFrameBytes } = await load("scenario/switch-config.js");
  const { DEFAULT_MTU } = await load("scenario/topology.js");
  const { ArpOp, buildArpFrame } = await load("wire/arp.js");
  const { benchTopology, buildFrame } = await load("tools/bench/switch-forwarding-setup.js");

  const f = benchTopology(400e9);
  const routes = computeRoutes(f.topo, f.plan).get("sw") ?? [];
  const config = buildSwitchConfig(f.topo, f.plan, routes, "sw", resolveTunables(f.topo, "sw"));
  const frame: Uint8Array = buildFrame(maxFrameBytes(DEFAULT_MTU), f.gen, f.swIn.mac, f.sink.ip);
  const p1 = new CountingPort("eth1");
  const p2 = new CountingPort("eth2");
  const clock = new LiveClock(process.hrtime.bigint(), 1);
  const ports = new Map([
    [1, { io: p1, delayNs: 0 }],
    [2, { io: p2, delayNs: 0 }],
  ]);
  const host = new DeviceHost(clock, ports, createRandom(1, "device:sw"));
  host.attach(new Switch(config, host.env));
  const hr = (): number => Number(process.hrtime.bigint());
  // The peers answer the ARP requests the switch sends at start.
  const reply = (peer: { mac: number; ip: number }, own: { mac: number; ip: number }): Uint8Array =>
    buildArpFrame({
      op: ArpOp.Reply,
      senderMac: peer.mac,
      senderIp: peer.ip,
      targetMac: own.mac,
      targetIp: own.ip,
    });
  p1.handler!(reply(f.gen, f.swIn), hr());
  p2.handler!(reply(f.sink, f.swOut), hr());

  const len = frame.length;
  const slabs = Array.from({ length: SLABS }, () => new Uint8Array(BATCH * len));
  let slab = 0;
  const forward = async (n: number): Promise<void> => {
    const before = p2.sent;
    for (let done = 0; done < n; done += BATCH) {
      const buf = slabs[slab++ % SLABS]!;
      const at = hr();
      for (let i = 0, off = 0; i < BATCH; i++, off += len) {
        buf.set(frame, off);
        p1.handler!(new Uint8Array(buf.buffer, off, len), at);
      }
      // The event loop's turn after each batch, as in a live process: Node timers, immediates.
      if ((done / BATCH) % 16 === 15) await yieldToLoop();
    }
    await yieldToLoop();
    const sent = p2.sent - before;
    if (sent < n * 0.99) throw new Error(`switch-path: ${sent} of ${n} frames forwarded`);
  };
  await forward(frames);
  const out: PathSample[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await forward(frames);
    const c = process.cpuUsage(c0);
    out.push({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 });
  }
  host.close();
  return out;
}
