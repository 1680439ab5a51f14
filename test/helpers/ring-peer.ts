// Run by test/runtime/ring-port.test.ts inside its own namespace (both ends of one veth pair, `a` and `b`):
// sends numbered frames from `a` through the ring backend, reads them on `b`, and one reply back, then
// prints what it saw as one JSON line. The test makes the assertions.
import { execa } from "execa";
import { type ChunkStats, nativeAddon } from "../../src/runtime/realtime/native.js";
import { RingPort } from "../../src/runtime/realtime/ring-port.js";

/** A local experimental EtherType: nothing else on the veth uses it (the kernel's own frames are ignored). */
export const TEST_ETHERTYPE = 0x88b5;

export interface PeerReport {
  readonly sendStartNs: number;
  readonly sendEndNs: number;
  /** Per frame received on b: sequence number, length, bytes as sent, arrival ns, when it was read. */
  readonly received: { seq: number; len: number; intact: boolean; arrivalNs: number; readNs: number }[];
  /** Test frames a's own handle saw that a sent (must be none) and the reply from b it saw (must be 1). */
  readonly ownSeen: number;
  readonly replySeen: number;
  readonly sendErrors: number;
  readonly drops: number;
  /** Frames b received of AFTER_FLAP sent after b's interface went down and up again. */
  readonly afterFlap: number;
}

export const AFTER_FLAP = 10;

/**
 * `--chunks N`: b keeps the first KEEP frames it receives and every KEEP_EVERY-th after them, and sends
 * every other one straight back to a.
 */
export const KEEP = 100;
export const KEEP_EVERY = 97;
export const keeps = (seq: number): boolean => seq < KEEP || seq % KEEP_EVERY === 0;

export interface ChunksReport {
  /** Frames a got back from b, and how many of them byte for byte as sent. */
  readonly echoed: number;
  readonly echoedIntact: number;
  /** Frames b kept, and how many of them were still byte for byte as sent after all the others. */
  readonly kept: number;
  readonly keptIntact: number;
  /** The batches b read, and a and b together; the addon's receive chunks at the end. */
  readonly batches: number;
  readonly allBatches: number;
  readonly chunks: ChunkStats;
  /** The chunks again once everything was let go and collected (run with --expose-gc). */
  readonly collected: ChunkStats;
}

const MAC_A = [0x02, 0, 0, 0, 0, 0x0a];
const MAC_B = [0x02, 0, 0, 0, 0, 0x0b];

/** Every 7th frame carries an 802.1Q tag (VID 100, PCP seq % 8), which the kernel moves out of the frame
 * into the ring's header on receive and the backend must put back. */
const tagged = (seq: number): boolean => seq % 7 === 3;

/** Frame `seq` from `src`: a length that varies with seq (60..4238 bytes), a pattern derived from seq. */
export function testFrame(seq: number, src: readonly number[], dst: readonly number[]): Uint8Array {
  const len = 60 + ((seq * 797) % 4179);
  const f = new Uint8Array(len);
  f.set(dst, 0);
  f.set(src, 6);
  const at = tagged(seq) ? 16 : 12;
  if (at === 16) {
    f[12] = 0x81;
    f[13] = 0x00;
    new DataView(f.buffer).setUint16(14, ((seq % 8) << 13) | 100);
  }
  f[at] = TEST_ETHERTYPE >> 8;
  f[at + 1] = TEST_ETHERTYPE & 0xff;
  new DataView(f.buffer).setUint32(at + 2, seq);
  for (let i = at + 6; i < len; i++) f[i] = (seq + i) & 0xff;
  return f;
}

/** Where the test EtherType is: after the tag, if there is one. */
const typeAt = (f: Uint8Array): number => (f[12] === 0x81 && f[13] === 0x00 ? 16 : 12);

function intact(frame: Uint8Array, seq: number, src: readonly number[]): boolean {
  const want = testFrame(seq, src, MAC_B);
  return frame.length === want.length && frame.every((b, i) => b === want[i]);
}

const isTest = (f: Uint8Array): boolean =>
  f.length >= 22 && f[typeAt(f)] === TEST_ETHERTYPE >> 8 && f[typeAt(f) + 1] === (TEST_ETHERTYPE & 0xff);
const from = (f: Uint8Array, mac: readonly number[]): boolean => mac.every((b, i) => f[6 + i] === b);

async function main(count: number): Promise<void> {
  const a = new RingPort("a", 8 * 1024 * 1024);
  const b = new RingPort("b", 8 * 1024 * 1024);
  const received: PeerReport["received"] = [];
  let ownSeen = 0;
  let replySeen = 0;
  a.onFrame((f) => {
    if (!isTest(f)) return;
    if (from(f, MAC_A)) ownSeen++;
    if (from(f, MAC_B)) replySeen++;
  });
  b.onFrame((f, arrivalNs) => {
    if (!isTest(f) || !from(f, MAC_A)) return;
    const seq = new DataView(f.buffer, f.byteOffset, f.length).getUint32(typeAt(f) + 2);
    received.push({ seq, len: f.length, intact: intact(f, seq, MAC_A), arrivalNs, readNs: now() });
  });
  const frames = Array.from({ length: count }, (_, seq) => testFrame(seq, MAC_A, MAC_B));
  const sendStartNs = now();
  for (const f of frames) a.send(f);
  a.flush();
  const sendEndNs = now();
  const deadline = Date.now() + 5000;
  while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  b.send(testFrame(count, MAC_B, MAC_A));
  const until = Date.now() + 2000;
  while (replySeen === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  // Give a looped-back copy of a's own frames time to show up, if the backend were to deliver one.
  await new Promise((r) => setTimeout(r, 100));
  // The interface goes down and up (the socket gets ENETDOWN meanwhile): the port must hear again after.
  await execa("ip", ["link", "set", "dev", "b", "down"]);
  await execa("ip", ["link", "set", "dev", "b", "up"]);
  await new Promise((r) => setTimeout(r, 200));
  const beforeFlap = received.length;
  for (let seq = count + 1; seq <= count + AFTER_FLAP; seq++) a.send(testFrame(seq, MAC_A, MAC_B));
  const flapUntil = Date.now() + 2000;
  while (received.length < beforeFlap + AFTER_FLAP && Date.now() < flapUntil) {
    await new Promise((r) => setTimeout(r, 10));
  }
  const report: PeerReport = {
    sendStartNs,
    sendEndNs,
    received,
    ownSeen,
    replySeen,
    sendErrors: a.sendErrors + b.sendErrors,
    drops: a.stats().drops + b.stats().drops,
    afterFlap: received.length - beforeFlap,
  };
  received.length = beforeFlap;
  a.close();
  b.close();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function now(): number {
  return Number(process.hrtime.bigint());
}

/**
 * Receive chunks come back when every frame of a batch is sent (native/src/chunks.c): b sends most of what
 * it reads straight back and keeps some (keeps()), whose chunks, part kept and part sent, must not
 * serve a later batch.
 */
async function chunks(count: number): Promise<void> {
  const a = new RingPort("a", 8 * 1024 * 1024);
  const b = new RingPort("b", 8 * 1024 * 1024);
  const kept: { seq: number; frame: Uint8Array }[] = [];
  let echoed = 0;
  let echoedIntact = 0;
  const seqOf = (f: Uint8Array): number =>
    new DataView(f.buffer, f.byteOffset, f.length).getUint32(typeAt(f) + 2);
  let read = 0;
  b.onFrame((f) => {
    if (!isTest(f) || !from(f, MAC_A)) return;
    read++;
    const seq = seqOf(f);
    if (keeps(seq)) kept.push({ seq, frame: f });
    else b.send(f);
  });
  a.onFrame((f) => {
    if (!isTest(f) || !from(f, MAC_A)) return;
    echoed++;
    if (intact(f, seqOf(f), MAC_A)) echoedIntact++;
  });
  // In bursts that b reads as several batches each; the next burst once b has read this one, so that a
  // process starved of CPU on a busy machine never lets its own sends overrun b's ring. A collection after
  // every burst (run with --expose-gc) frees the Buffers of batches whose chunks already serve later
  // batches, some of which hold a kept frame: their finalizers must leave those chunks alone.
  const gc = (globalThis as { gc?: () => void }).gc;
  const deadline = Date.now() + 20_000;
  for (let seq = 0; seq < count; seq++) {
    a.send(testFrame(seq, MAC_A, MAC_B));
    if (seq % 256 === 255 || seq === count - 1) {
      a.flush();
      while (read <= seq && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      gc?.();
      await new Promise((r) => setImmediate(r));
    }
  }
  const keptCount = Array.from({ length: count }, (_, seq) => seq).filter(keeps).length;
  while (echoed < count - keptCount && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const keptIntact = kept.filter((k) => intact(k.frame, k.seq, MAC_A)).length;
  const keptFrames = kept.length;
  const chunks = nativeAddon().packetChunks();
  a.close();
  b.close();
  // Let go of the kept frames and collect: every batch's Buffer is then dead, and its finalizer (which Node
  // runs from an immediate) ends the batches whose chunks did not come back at the send — those only.
  kept.length = 0;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 10));
  }
  const report: ChunksReport = {
    echoed,
    echoedIntact,
    kept: keptFrames,
    keptIntact,
    batches: b.batches,
    allBatches: a.batches + b.batches,
    chunks,
    collected: nativeAddon().packetChunks(),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

if (process.argv[2] === "--run") void main(Number(process.argv[3] ?? 1000));
if (process.argv[2] === "--chunks") void chunks(Number(process.argv[3] ?? 4000));
