// The live-port fuzz's injector: run inside a lab namespace (`ip netns exec NS node live-injector.js …`),
// it opens an AF_PACKET socket of its own on one end of a veth and sends the frame mutator's frames, paced,
// so that they arrive on the other end — a port of a running switch or NIC process. Half of them are
// re-addressed to the target port's MAC (so they get past its address filter into the parsers), as the
// simulator fuzz does. Prints one JSON line: frames sent, frames refused (by the kernel: zero-length,
// longer than the veth's MTU; or here: longer than 64 KB), and the count per mutation.
//
//   node live-injector.js --lab L --ifname eth1 --dst-mac 02:00:.. --frames N --seed S [--rate FPS]

import { parseArgs } from "node:util";
import { nativeAddon } from "../../src/runtime/realtime/native.js";
import { MIN_RING_BYTES, RX_BATCH } from "../../src/runtime/realtime/ring-port.js";
import { buildFrameCatalog } from "../../src/verify/frame-catalog.js";
import { FrameMutator, type Mutation } from "../../src/verify/frame-mutator.js";

export interface InjectorReport {
  readonly sent: number;
  readonly refused: number;
  /**
   * Frames sent that the receiving kernel drops before any packet socket sees them, so no device port can
   * count them (see reachesSockets).
   */
  readonly kernelDropped: number;
  /** Frames handed to the kernel per mutation (sent + refused). */
  readonly byMutation: Partial<Record<Mutation, number>>;
  readonly seconds: number;
}

/** Frames per send call; the pacing sleeps between batches. */
const BATCH = 32;
/** The largest frame an AF_PACKET send takes (the addon's limit, the IPv4 total-length ceiling). */
const MAX_SEND_BYTES = 65_535;

/**
 * Whether Linux hands a frame that arrived on a veth to packet sockets (the ring of a device process,
 * tcpdump). A runt shorter than the Ethernet header leaves padded with zeros to 14 bytes (root sends
 * runts: dev_validate_header); a frame whose EtherType says 802.1Q or 802.1ad but that has no room for a
 * tag and the EtherType after it (20 bytes) is freed by skb_vlan_untag before the packet taps
 * (__netif_receive_skb_core, net/core/dev.c) — like a MAC dropping a runt.
 */
export function reachesSockets(frame: Uint8Array): boolean {
  const etherType = ((frame[12] ?? 0) << 8) | (frame[13] ?? 0);
  return !((etherType === 0x8100 || etherType === 0x88a8) && Math.max(frame.length, 14) < 20);
}

function parseMac(text: string): Uint8Array {
  const parts = text.split(":").map((h) => Number.parseInt(h, 16));
  if (parts.length !== 6 || parts.some((b) => !Number.isInteger(b) || b < 0 || b > 255))
    throw new Error(`--dst-mac "${text}" is not a MAC address`);
  return Uint8Array.from(parts);
}

export async function inject(opts: {
  readonly ifname: string;
  readonly dstMac: Uint8Array;
  readonly frames: number;
  readonly seed: string;
  readonly rate: number;
}): Promise<InjectorReport> {
  const addon = nativeAddon();
  const times = new Float64Array(RX_BATCH);
  const lens = new Uint32Array(RX_BATCH + 1);
  // Frames arriving on this end are read and let go: the socket is for sending.
  const handle = addon.packetOpen(opts.ifname, 0, MIN_RING_BYTES, times, lens, () => {
    addon.packetRecv(handle);
  });
  const mutator = new FrameMutator(
    opts.seed,
    buildFrameCatalog().map((c) => c.frame),
  );
  const byMutation: Partial<Record<Mutation, number>> = {};
  const batch: Uint8Array[] = [];
  const one: Uint8Array[] = [new Uint8Array(0)];
  let refused = 0;
  let kernelDropped = 0;
  const started = performance.now();
  for (let i = 0; i < opts.frames; i += BATCH) {
    batch.length = 0;
    for (let j = i; j < Math.min(opts.frames, i + BATCH); j++) {
      const m = mutator.next();
      const frame = m.frame;
      if (j % 2 === 0 && frame.length >= 6) frame.set(opts.dstMac, 0);
      byMutation[m.mutation] = (byMutation[m.mutation] ?? 0) + 1;
      // Longer than any link layer can carry (the mutator goes past 64 KB): no socket takes it.
      if (frame.length > MAX_SEND_BYTES) refused++;
      else batch.push(frame);
    }
    // One frame per send, so that each frame's fate is known (a few thousand system calls a second).
    for (const f of batch) {
      one[0] = f;
      if (addon.packetSend(handle, one, 1) !== 0) refused++;
      else if (!reachesSockets(f)) kernelDropped++;
    }
    const due = started + ((i + batch.length) / opts.rate) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  addon.packetClose(handle);
  return {
    sent: opts.frames - refused,
    refused,
    kernelDropped,
    byMutation,
    seconds: (performance.now() - started) / 1000,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      lab: { type: "string" },
      ifname: { type: "string" },
      "dst-mac": { type: "string" },
      frames: { type: "string", default: "2000" },
      seed: { type: "string", default: "rocelab-live-fuzz" },
      rate: { type: "string", default: "2000" },
    },
  });
  if (!values.lab || !values.ifname || !values["dst-mac"]) {
    process.stderr.write(
      "usage: live-injector --lab L --ifname IF --dst-mac MAC [--frames N --seed S --rate FPS]\n",
    );
    process.exit(2);
  }
  // Named after the lab, so `rocelab down` finds it if it outlives its caller.
  process.title = `rocelab-${values.lab}-fuzz-${values.ifname}`;
  const frames = Number(values.frames);
  const rate = Number(values.rate);
  if (!Number.isInteger(frames) || frames < 1) throw new Error(`--frames ${values.frames}: a count >= 1`);
  if (!(rate > 0)) throw new Error(`--rate ${values.rate}: frames per second > 0`);
  const report = await inject({
    ifname: values.ifname,
    dstMac: parseMac(values["dst-mac"]),
    frames,
    seed: values.seed,
    rate,
  });
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

if (process.argv[1] && /live-injector\.[jt]s$/.test(process.argv[1])) await main();
