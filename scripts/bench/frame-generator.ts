// The traffic source of the switch-forwarding benchmark: a process inside the generator's namespace that puts
// one pre-built frame on its port, over and over, at the rate it is told. Started by the benchmark with an IPC
// channel: `ip netns exec rl-<lab>-gen node dist/tools/bench/frame-generator.js --lab <lab> --ifname eth1
// [--io ring|pcap]`. It is not a benchmark itself (the launcher does not list it).
//
// Two ways out, no per-frame allocation in either:
//   ring (default)  the project's AF_PACKET addon (native/src/packet.c): each burst is one sendmmsg() of up
//                   to 1024 messages that all point at the same frame, so the
//                   generator costs the kernel's work and almost nothing else. It is what lets the kernel
//                   phase find the kernel's own limit rather than the generator's.
//   pcap            libpcap (`cap`) like the lab's fallback ports: one send() per frame from one Buffer.
// Pacing is by bursts: every timer tick (Node timers wake every ~1 ms) it sends what the schedule says is
// due. A real NIC paces per frame; here a burst of rate/1000 frames leaves at once, which the receiver's
// ring absorbs (and which is the arrival pattern the lab's own processes produce).

import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { nativeAddon } from "../../src/runtime/realtime/native.js";

/** Parent -> generator. */
export type ToGenerator =
  | { readonly type: "init"; readonly frameHex: string }
  /** Send for `seconds`; `fps` 0 means as fast as possible. */
  | { readonly type: "run"; readonly id: number; readonly fps: number; readonly seconds: number }
  | { readonly type: "exit" };

/** Generator -> parent. */
export type FromGenerator =
  | { readonly type: "ready"; readonly pid: number }
  | {
      readonly type: "done";
      readonly id: number;
      /** Frames handed to the kernel. */
      readonly sent: number;
      /** Sends the kernel refused. */
      readonly errors: number;
      /** Real seconds from the first to the last frame of the run. */
      readonly seconds: number;
      /** Frames the schedule wanted but the generator could not send in time (it fell > 10 ms behind). */
      readonly skipped: number;
    }
  | { readonly type: "fatal"; readonly message: string };

/** Never more than this much of the schedule is made up at once after the generator fell behind. */
const MAX_DEBT_S = 0.01;
/** Frames sent between yields when running flat out. */
const FLAT_OUT_BATCH = 256;

const { values } = parseArgs({
  options: { lab: { type: "string" }, ifname: { type: "string" }, io: { type: "string" } },
});
if (!values.lab || !values.ifname || !process.send) {
  process.stderr.write(
    "frame-generator is started by the switch-forwarding benchmark (--lab, --ifname, IPC)\n",
  );
  process.exit(2);
}
// The lab's naming mark: `rocelab down --all` finds and stops a generator left behind.
process.title = `rocelab-${values.lab}-gen`;

const send = (m: FromGenerator): void => {
  if (process.connected) process.send!(m);
};

/** Puts `count` copies of the frame on the wire; returns how many the kernel refused. */
type Sender = { init(frame: Buffer): void; send(count: number): number; close(): void };

/** Copies of the frame one sendmmsg() carries at most (the addon's limit). */
const RING_BURST = 1024;

function ringSender(ifname: string): Sender {
  const addon = nativeAddon();
  const times = new Float64Array(1);
  const lens = new Uint32Array(2);
  let burst: Uint8Array[] = [];
  // The generator never reads its port: whatever arrives (nothing, normally) is taken off the ring.
  const drain = (): void => {
    addon.packetRecv(handle);
  };
  const handle = addon.packetOpen(ifname, 0, 1024 * 1024, times, lens, drain);
  return {
    init(frame) {
      // The same frame, RING_BURST times: the kernel copies it from here for every send.
      burst = new Array(RING_BURST).fill(frame);
    },
    send(count) {
      let errors = 0;
      for (let left = count; left > 0; left -= RING_BURST) {
        errors += addon.packetSend(handle, burst, Math.min(left, RING_BURST));
      }
      return errors;
    },
    close() {
      addon.packetClose(handle);
    },
  };
}

interface CapHandle {
  open(device: string, filter: string, bufferSize: number, buffer: Buffer): string;
  send(buffer: Buffer, length?: number): void;
  close(): void;
}

function pcapSender(ifname: string): Sender {
  const require = createRequire(import.meta.url);
  const { Cap } = require("cap") as { Cap: new () => CapHandle };
  const cap = new Cap();
  // cap keeps only a raw pointer to this buffer (tooling.md trap 1): it must stay referenced while open.
  const rxBuffer = Buffer.alloc(2048);
  // A filter that matches nothing (an unused EtherType): the generator never needs to read its port.
  cap.open(ifname, "ether proto 0x88b5", 1024 * 1024, rxBuffer);
  let frame: Buffer = Buffer.alloc(0);
  return {
    init(f) {
      frame = f;
    },
    send(count) {
      let errors = 0;
      for (let i = 0; i < count; i++) {
        try {
          cap.send(frame, frame.length);
        } catch {
          errors++;
        }
      }
      return errors;
    },
    close() {
      cap.close();
      // Referenced here, so it lives exactly as long as the handle.
      rxBuffer.fill(0);
    },
  };
}

const sender = values.io === "pcap" ? pcapSender(values.ifname) : ringSender(values.ifname);

function run(id: number, fps: number, seconds: number): void {
  const start = process.hrtime.bigint();
  const endNs = seconds * 1e9;
  let sent = 0;
  let errors = 0;
  let skipped = 0;
  /** Frames the schedule owes from `start` (skipped debt is written off here). */
  let base = 0;
  const burst = (count: number): void => {
    const refused = sender.send(count);
    sent += count - refused;
    errors += refused;
  };
  const finish = (): void => {
    const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    send({ type: "done", id, sent, errors, seconds: elapsed, skipped });
  };
  const tick = (): void => {
    const elapsedNs = Number(process.hrtime.bigint() - start);
    if (elapsedNs >= endNs) {
      finish();
      return;
    }
    if (fps === 0) {
      burst(FLAT_OUT_BATCH);
      // setImmediate lets IPC and timers in between batches without sleeping.
      setImmediate(tick);
      return;
    }
    let due = Math.floor((elapsedNs / 1e9) * fps) - base - sent - errors;
    if (due > fps * MAX_DEBT_S) {
      // We were descheduled (2 CPUs shared with the switch): do not dump the whole debt as one burst.
      const excess = due - Math.ceil(fps * MAX_DEBT_S);
      skipped += excess;
      base += excess;
      due -= excess;
    }
    if (due > 0) burst(due);
    setTimeout(tick, 0);
  };
  tick();
}

process.on("message", (raw) => {
  const m = raw as ToGenerator;
  try {
    switch (m.type) {
      case "init":
        sender.init(Buffer.from(m.frameHex, "hex"));
        break;
      case "run":
        run(m.id, m.fps, m.seconds);
        break;
      case "exit":
        sender.close();
        process.exit(0);
    }
  } catch (e) {
    send({ type: "fatal", message: (e as Error).stack ?? String(e) });
    process.exit(1);
  }
});
process.on("disconnect", () => process.exit(0));
send({ type: "ready", pid: process.pid });
