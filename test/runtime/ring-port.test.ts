// The ring port backend (AF_PACKET, native/src/packet.c) on a real veth pair: bytes (802.1Q tags too), order, kernel
// timestamps, a batch of 1000 frames, and no echo of a handle's own sends. Needs root and the built addon;
// it makes its own namespace (rl-ringtest-<pid>) and removes it even when the test fails.
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import type { Test } from "tap";
import t from "tap";
import {
  MAX_RING_BYTES,
  MIN_RING_BYTES,
  RX_BATCH,
  ringBytesFor,
} from "../../src/runtime/realtime/ring-port.js";
import { AFTER_FLAP, type ChunksReport, KEEP, keeps, type PeerReport } from "../helpers/ring-peer.js";

const FRAMES = 1000;

t.test("ring sizes follow the dilated line rate", async (t) => {
  t.equal(ringBytesFor(100e9, 1000), 2_500_000, "100 Gb/s at D = 1000: 0.2 s of 12.5 MB/s");
  t.equal(ringBytesFor(400e9, 1000), 10_000_000);
  t.equal(ringBytesFor(10e9, 1000), MIN_RING_BYTES, "never below the floor");
  t.equal(ringBytesFor(400e9, 1), MAX_RING_BYTES, "never above the ceiling");
});

t.test(
  "frames through a veth pair with the ring backend",
  { skip: process.getuid?.() !== 0 && "needs root" },
  async (t) => {
    const r = await runPeer(t, "--run", FRAMES);
    const report = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as PeerReport;

    t.equal(report.received.length, FRAMES, "all 1000 frames arrive");
    t.same(
      report.received.map((f) => f.seq),
      Array.from({ length: FRAMES }, (_, i) => i),
      "in the order they were sent",
    );
    t.ok(
      report.received.every((f) => f.intact),
      "every frame byte for byte as sent (lengths 60..4238)",
    );
    t.ok(new Set(report.received.map((f) => f.len)).size > 100, "of many lengths");
    const times = report.received.map((f) => f.arrivalNs);
    t.ok(
      times.every((x, i) => i === 0 || x >= times[i - 1]!),
      "arrival timestamps never go backwards",
    );
    // veth delivers inside the sender's system call: every arrival lies within the send, and before its read.
    const slackNs = 1e6;
    t.ok(
      report.received.every(
        (f) => f.arrivalNs >= report.sendStartNs - slackNs && f.arrivalNs <= report.sendEndNs + slackNs,
      ),
      `arrival times within the send (± 1 ms): first ${times[0]! - report.sendStartNs} ns after its start, last ${
        times[times.length - 1]! - report.sendEndNs
      } ns from its end`,
    );
    t.ok(
      report.received.every((f) => f.arrivalNs <= f.readNs),
      "and never after the process read the frame",
    );
    t.equal(report.ownSeen, 0, "the sender's handle never sees its own frames");
    t.equal(report.replySeen, 1, "but does see what its peer sends");
    t.equal(report.sendErrors, 0, "no send errors");
    t.equal(report.drops, 0, "no ring drops");
    t.equal(report.afterFlap, AFTER_FLAP, "and the port still receives after its interface went down and up");
  },
);

/** Makes a namespace with the veth pair a-b and runs the ring peer in it in `mode`; removed at the end. */
async function runPeer(t: Test, mode: string, frames: number, nodeArgs: readonly string[] = []) {
  const ns = `rl-ringtest-${process.pid}-${mode.replace(/\W/g, "")}`;
  t.teardown(async () => {
    await execa("ip", ["netns", "del", ns], { reject: false });
  });
  const ip = (args: readonly string[]) => execa("ip", ["-n", ns, ...args]);
  await execa("ip", ["netns", "add", ns]);
  await ip(["link", "add", "name", "a", "type", "veth", "peer", "name", "b"]);
  await execa("ip", ["netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"]);
  for (const [dev, mac] of [
    ["a", "02:00:00:00:00:0a"],
    ["b", "02:00:00:00:00:0b"],
  ] as const) {
    await ip(["link", "set", "dev", dev, "address", mac, "mtu", "4224", "up"]);
  }
  // The peer runs in the namespace with this test's TypeScript loader (and none of tap's other hooks).
  const loader = process.execArgv.filter((a) => a.includes("test-loader"));
  const peer = fileURLToPath(new URL("../helpers/ring-peer.ts", import.meta.url));
  const r = await execa(
    "ip",
    ["netns", "exec", ns, process.execPath, ...nodeArgs, ...loader, peer, mode, String(frames)],
    {
      reject: false,
      env: { NODE_OPTIONS: "" },
      timeout: 60_000,
    },
  );
  t.equal(r.exitCode, 0, r.stderr);
  return r;
}

t.test(
  "a receive chunk serves the next batch once its frames are sent, never while one is kept",
  { skip: process.getuid?.() !== 0 && "needs root" },
  async (t) => {
    const frames = 4000;
    const r = await runPeer(t, "--chunks", frames, ["--expose-gc"]);
    const report = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as ChunksReport;
    const kept = Array.from({ length: frames }, (_, seq) => seq).filter(keeps).length;
    t.equal(report.echoed, frames - kept, "every frame not kept comes back");
    t.equal(report.echoedIntact, report.echoed, "byte for byte");
    t.equal(report.kept, kept, `${kept} kept: the first ${KEEP} and some after them`);
    t.equal(
      report.keptIntact,
      kept,
      "the kept frames, in batches otherwise sent, are never overwritten: not by later batches, not after a collection",
    );
    // Every batch of b's without a kept frame is over at its send: at least the batches b needs for the
    // frames after the first KEEP (RX_BATCH at most in each), less one for each kept frame among them.
    const atLeast = Math.floor((frames - KEEP) / RX_BATCH) - (kept - KEEP) - 1;
    t.ok(
      report.chunks.backAtSend >= atLeast,
      `chunks back at the send: ${report.chunks.backAtSend} of ${report.batches} batches (≥ ${atLeast})`,
    );
    // Once every Buffer is collected, each batch (a's and b's) has ended exactly once: at its send, or by
    // the collector. A finalizer that freed a chunk already serving a later batch would end one twice.
    const c = report.collected;
    t.equal(c.backAtSend, report.chunks.backAtSend, "nothing more came back at a send after the run");
    t.ok(c.backCollected >= 2, `the kept frames' batches came back by the collector (${c.backCollected})`);
    t.equal(
      c.backAtSend + c.backCollected,
      report.allBatches,
      `every batch ended once: ${c.backAtSend} at the send + ${c.backCollected} collected = ${report.allBatches}`,
    );
  },
);
