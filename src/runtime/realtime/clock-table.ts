// The lab's clock table: a small block of memory shared by every device process of a live lab (a file
// under the lab's /run directory, mapped MAP_SHARED by the native addon), where each device publishes how
// far its emulated clock has got, and each link counts the frames put on it and taken off it.
//
// It is what lets the devices keep one emulated time between them on a busy machine (synced-clock.ts):
// a device may run ahead of a neighbour by at most the link's delay, the lookahead of conservative
// parallel discrete-event simulation (Chandy and Misra, "Distributed Simulation: A Case Study in Design
// and Verification of Distributed Programs", IEEE TSE 5(5), 1979; Fujimoto, "Parallel and Distributed
// Simulation Systems", Wiley 2000, ch. 3). A process that the OS does not run stops publishing, and its
// neighbours wait for it instead of flooding it with frames it would have paused.
//
// Layout (Float64 words; every field has exactly one writer, so no atomics are needed):
//   header   [0] magic, [1] devices, [2] links, [3] gate: the emulated time no device may pass (+Inf:
//            none), written by the supervisor while it plays a scenario's timeline
//   device d at DEVICE_BASE + d * DEVICE_WORDS:
//     STATE    0 absent (not started yet), 1 running, 2 gone (killed or crashed: constrains nobody)
//     PUB_REAL real ns since the epoch when the device last published   (written before PUB)
//     PUB      the device's emulated time then, ns
//     OFFSET   how far the device's clock is behind the dilated real clock, emulated ns (only grows)
//     WAKE     real ns since the epoch at which the device will run next on its own (timer), or +Inf;
//              lowered by the device itself, before it counts a frame as read, to when that frame is due
//              (a frame taken off the link but not yet handled is work, not idleness)
//   link l (one direction; written by its sender except READ) at linkBase + l * LINK_WORDS:
//     SENT     frames the sender handed to the kernel
//     READ     frames the receiver took off the port (written by the receiver)
//     FIRST    real ns since the epoch when the link last went from empty to non-empty
//     TO       index of the receiving device (written once, by whoever creates the table)
//     FROM     index of the sending device (written once, likewise)
//     DELAY    the link's propagation delay, emulated ns (written once, likewise)
//     HEAD     arrival time of the first frame the sender holds back for the link's delay, or +Inf
//   stamps of link l at stampBase + (l * STAMPS + n % STAMPS) * 2, for the n-th frame put on it:
//     DUE      its emulated arrival time at the receiver (when it left the sender + the link delay)
//     TAG      a hash of its length and first bytes, so the receiver knows the stamp is this frame's
// With them a frame arrives at the time the emulated wire says, however late its receiver reads it and
// however the sender's timer batched it, where a kernel timestamp only says when it was handed over.

import type { DilationTimeline } from "./dilation.js";

export const CLOCK_TABLE_MAGIC = 0x524c434b; // "RLCK"

export const DeviceState = { Absent: 0, Running: 1, Gone: 2 } as const;
export type DeviceState = (typeof DeviceState)[keyof typeof DeviceState];

const HEADER_WORDS = 8;
const GATE = 3;
const DEVICE_WORDS = 8;
const LINK_WORDS = 8;
/** Stamps kept per link: far more than a synced sender can have in flight towards a stalled receiver. */
export const STAMPS = 512;
/** How far a receiver looks ahead for its frame's stamp after the kernel lost frames. */
const RESYNC_WINDOW = 16;
const STATE = 0;
const PUB_REAL = 1;
const PUB = 2;
const OFFSET = 3;
const WAKE = 4;
const SENT = 0;
const READ = 1;
const FIRST = 2;
const TO = 3;
const HEAD = 4;
const FROM = 5;
const DELAY = 6;

/** One direction of a link, as the table is created with it. */
export interface ClockLink {
  readonly from: number;
  readonly to: number;
  readonly delayNs: number;
}

/** What identifies a frame in a link's stamps: its length and a hash (FNV-1a) of its first 64 bytes. */
export function frameTag(frame: Uint8Array): number {
  let h = 0x811c9dc5;
  const n = Math.min(frame.length, 64);
  for (let i = 0; i < n; i++) h = Math.imul(h ^ frame[i]!, 0x01000193);
  return (h >>> 0) * 65536 + (frame.length & 0xffff);
}

export function clockTableBytes(devices: number, links: number): number {
  return (HEADER_WORDS + devices * DEVICE_WORDS + links * (LINK_WORDS + STAMPS * 2)) * 8;
}

/** One view of the table. Indices of devices and links are the lab's (see Supervisor). */
export class ClockTable {
  readonly words: Float64Array;
  readonly devices: number;
  readonly links: number;
  private readonly linkBase: number;
  private readonly stampBase: number;
  /** Incoming link indices of each device (derived from TO). */
  private readonly incoming: number[][];

  constructor(buffer: ArrayBuffer) {
    this.words = new Float64Array(buffer);
    if (this.words[0] !== CLOCK_TABLE_MAGIC) throw new Error("not a rocelab clock table (bad magic)");
    this.devices = this.words[1]!;
    this.links = this.words[2]!;
    if (buffer.byteLength < clockTableBytes(this.devices, this.links)) {
      throw new Error("clock table is shorter than its header says");
    }
    this.linkBase = HEADER_WORDS + this.devices * DEVICE_WORDS;
    this.stampBase = this.linkBase + this.links * LINK_WORDS;
    this.incoming = Array.from({ length: this.devices }, () => []);
    for (let l = 0; l < this.links; l++) this.incoming[this.linkTo(l)]?.push(l);
  }

  /** Writes an empty table for `links` (one entry per direction) into `buffer`. */
  static format(buffer: ArrayBuffer, devices: number, links: readonly ClockLink[]): ClockTable {
    const w = new Float64Array(buffer);
    w.fill(0, 0, clockTableBytes(devices, links.length) / 8);
    w[0] = CLOCK_TABLE_MAGIC;
    w[1] = devices;
    w[2] = links.length;
    w[GATE] = Number.POSITIVE_INFINITY;
    for (let d = 0; d < devices; d++) w[HEADER_WORDS + d * DEVICE_WORDS + WAKE] = Number.POSITIVE_INFINITY;
    const base = HEADER_WORDS + devices * DEVICE_WORDS;
    links.forEach((link, l) => {
      w[base + l * LINK_WORDS + TO] = link.to;
      w[base + l * LINK_WORDS + FROM] = link.from;
      w[base + l * LINK_WORDS + DELAY] = link.delayNs;
      w[base + l * LINK_WORDS + HEAD] = Number.POSITIVE_INFINITY;
    });
    return new ClockTable(buffer);
  }

  /**
   * No device runs past emulated time `at` until the gate moves (+Inf: open). The supervisor holds the
   * lab at its timeline's next step until it has handed the step over, so a step reaches its devices
   * before their time however late the machine runs it (a workload start, a link failure).
   */
  setGate(at: number): void {
    this.words[GATE] = at;
  }

  gate(): number {
    return this.words[GATE]!;
  }

  linkTo(l: number): number {
    return this.words[this.linkBase + l * LINK_WORDS + TO]!;
  }

  linkFrom(l: number): number {
    return this.words[this.linkBase + l * LINK_WORDS + FROM]!;
  }

  state(d: number): DeviceState {
    return this.words[HEADER_WORDS + d * DEVICE_WORDS + STATE] as DeviceState;
  }

  setState(d: number, state: DeviceState): void {
    this.words[HEADER_WORDS + d * DEVICE_WORDS + STATE] = state;
  }

  /** Device `d` says: at real time `real` my clock read `emulated`; I next run on my own at `wake`. */
  publish(d: number, real: number, emulated: number, offset: number, wake: number): void {
    const b = HEADER_WORDS + d * DEVICE_WORDS;
    const w = this.words;
    w[b + OFFSET] = offset;
    w[b + WAKE] = wake;
    // PUB_REAL before PUB: a reader that catches the pair half-written sees an older PUB with a newer
    // PUB_REAL, which under-estimates the device's progress (safe), never the reverse.
    w[b + PUB_REAL] = real;
    w[b + PUB] = emulated;
  }

  /** Device `d`'s clock was held: it is `offset` behind the dilated real clock from now on. */
  setOffset(d: number, offset: number): void {
    this.words[HEADER_WORDS + d * DEVICE_WORDS + OFFSET] = offset;
  }

  published(d: number): { real: number; emulated: number; offset: number; wake: number } {
    const b = HEADER_WORDS + d * DEVICE_WORDS;
    const w = this.words;
    return { real: w[b + PUB_REAL]!, emulated: w[b + PUB]!, offset: w[b + OFFSET]!, wake: w[b + WAKE]! };
  }

  /**
   * The sender of link `l` put a frame (`tag`: frameTag) on it at real time `real`; it arrives at emulated
   * time `due`.
   */
  noteSent(l: number, real: number, due: number, tag: number): void {
    const b = this.linkBase + l * LINK_WORDS;
    const w = this.words;
    const sent = w[b + SENT]!;
    const s = this.stampBase + (l * STAMPS + (sent % STAMPS)) * 2;
    w[s] = due;
    w[s + 1] = tag;
    if (sent === w[b + READ]) w[b + FIRST] = real;
    w[b + SENT] = sent + 1;
  }

  /**
   * The receiver of link `l` took a frame (`tag`) off it: returns its stamped arrival time, or NaN when no
   * stamp matches (the sender did not stamp it, or it was overwritten). When the kernel lost frames the
   * count skips ahead to the stamp that matches. `dueReal` converts the frame's arrival time (NaN: none,
   * handled at once) to the real time at which the receiver will handle it; the receiver counts as busy
   * from then on until it publishes again.
   */
  noteRead(l: number, tag: number, dueReal: (due: number) => number): number {
    const b = this.linkBase + l * LINK_WORDS;
    const w = this.words;
    const read = w[b + READ]!;
    const last = Math.min(w[b + SENT]! - 1, read + RESYNC_WINDOW);
    for (let n = read; n <= last; n++) {
      const s = this.stampBase + (l * STAMPS + (n % STAMPS)) * 2;
      if (w[s + 1] === tag) {
        const due = w[s]!;
        this.busyFrom(this.linkTo(l), dueReal(due));
        w[b + READ] = n + 1;
        return due;
      }
    }
    // Not a frame the sender stamped (or its stamp was overwritten): count it, but never past what was
    // sent, or the link would look empty while frames wait on it.
    this.busyFrom(this.linkTo(l), dueReal(Number.NaN));
    w[b + READ] = Math.min(read + 1, w[b + SENT]!);
    return Number.NaN;
  }

  /**
   * Device `d` has work from real time `real` on: a frame it took off a link and has not handled yet.
   * Written before the frame counts as read: between the read and the device's next publication the link
   * looks empty, and a stale WAKE would make a device that is descheduled right there look idle, so that
   * its neighbours followed the real clock past the pause it was about to send.
   */
  private busyFrom(d: number, real: number): void {
    const i = HEADER_WORDS + d * DEVICE_WORDS + WAKE;
    if (this.words[i]! > real) this.words[i] = real;
  }

  /**
   * The receiver of link `l` has read everything that was on it before `sentBefore` was observed (frames
   * the kernel dropped would otherwise count as unread forever).
   */
  settle(l: number, sentBefore: number): void {
    const b = this.linkBase + l * LINK_WORDS + READ;
    if (this.words[b]! < sentBefore) this.words[b] = sentBefore;
  }

  sent(l: number): number {
    return this.words[this.linkBase + l * LINK_WORDS + SENT]!;
  }

  /** The sender of link `l` holds frames back for the link's delay; the first arrives at `due` (+Inf: none). */
  setHead(l: number, due: number): void {
    this.words[this.linkBase + l * LINK_WORDS + HEAD] = due;
  }

  /**
   * The earliest arrival time of a frame on link `l` that its receiver has not read yet: the first unread
   * frame's stamp, or the first frame still held back by the sender (+Inf when neither). A receiver that
   * ran past it would get the frame late.
   */
  nextArrival(l: number): number {
    const b = this.linkBase + l * LINK_WORDS;
    const w = this.words;
    // HEAD before SENT: the sender counts a frame as sent before it moves HEAD on to the next one, so a
    // reader that sees the new HEAD also sees the frame (x86 keeps stores and loads in order). Read the
    // other way round, a frame sent between the two reads was in neither, and the receiver ran past it.
    const head = w[b + HEAD]!;
    const read = w[b + READ]!;
    if (w[b + SENT]! > read) return w[this.stampBase + (l * STAMPS + (read % STAMPS)) * 2]!;
    return head;
  }

  read(l: number): number {
    return this.words[this.linkBase + l * LINK_WORDS + READ]!;
  }

  /**
   * A lower bound on device `d`'s emulated clock at real time `real` (ns since the epoch), or +Inf when it
   * constrains nobody (absent or gone). `timeline` (the lab's dilation) converts real to emulated ns; `graceNs` (real ns) is how
   * long a device that has work is assumed to keep up after its last sign of life.
   *
   * A device with nothing to do (no unread frame on any incoming link, and its own next wake-up still in
   * the future) follows the real clock. A device with work has been running since that work appeared, or
   * since it last published, whichever is later, for at most `graceNs`; beyond that it is taken to be
   * stalled where it was.
   */
  estimate(d: number, real: number, timeline: DilationTimeline, graceNs: number): number {
    const b = HEADER_WORDS + d * DEVICE_WORDS;
    const w = this.words;
    if (w[b + STATE] !== DeviceState.Running) return Number.POSITIVE_INFINITY;
    // WAKE (in activeSince) before OFFSET: publish() writes them the other way round, so a new WAKE is never
    // paired with an older, smaller offset (which would put the device ahead of where it is).
    const active = this.activeSince(d);
    const offset = w[b + OFFSET]!;
    if (real < active) return timeline.emulated(real) - offset;
    const pubReal = w[b + PUB_REAL]!;
    const dilation = timeline.factor(real);
    const sincePub = w[b + PUB]! + Math.min(Math.max(0, real - pubReal), graceNs) / dilation;
    const sinceActive = timeline.emulated(active) - offset + Math.min(real - active, graceNs) / dilation;
    return Math.floor(Math.max(sincePub, sinceActive));
  }

  /**
   * For device `self`: a lower bound on the emulated time of everything every other device will still
   * send, written into `out` (one entry per device; +Inf: constrains nobody, as `self` itself does here).
   *
   * A device's own estimate (estimate()) says how far its clock may have got by itself; but its clock is
   * also held by its neighbours, as ours is, so it can be no further than what they may send it (their
   * bound + the link's delay) and than the frames waiting for it on its links. Without this, an idle
   * device B next to a stalled C looked to follow the real clock, its other neighbour A ran ahead, and
   * when B ran it was held at C's time and sent A frames (a PFC pause among them) in A's past. This is
   * the transitive bound of conservative synchronisation (the earliest input time over all paths, with
   * the link delays as lookahead: Chandy and Misra's null messages, computed from the table instead of
   * sent); paths through `self` are left out, as they add at least two delays to our own time. It never
   * goes below a device's last published clock, which is where that device is at least.
   */
  lowerBounds(
    self: number,
    real: number,
    timeline: DilationTimeline,
    graceNs: number,
    out: Float64Array,
  ): void {
    const w = this.words;
    for (let d = 0; d < this.devices; d++) {
      out[d] = d === self ? Number.POSITIVE_INFINITY : this.estimate(d, real, timeline, graceNs);
    }
    // Bellman-Ford over the link directions: a shortest path has at most devices - 1 links.
    for (let round = 0; round < this.devices; round++) {
      let changed = false;
      for (let l = 0; l < this.links; l++) {
        const b = this.linkBase + l * LINK_WORDS;
        const to = w[b + TO]!;
        const now = out[to]!;
        if (to === self || now === Number.POSITIVE_INFINITY) continue;
        const via = Math.min(out[w[b + FROM]!]! + w[b + DELAY]!, this.nextArrival(l));
        if (via < now) {
          const floor = w[HEADER_WORDS + to * DEVICE_WORDS + PUB]!;
          const v = Math.max(via, floor);
          if (v < now) {
            out[to] = v;
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
  }

  /**
   * How long device `d` has had work without showing a sign of life, real ns at real time `real` (0 when
   * it is idle, absent or gone, or has published since its work appeared).
   */
  silence(d: number, real: number): number {
    const b = HEADER_WORDS + d * DEVICE_WORDS;
    if (this.words[b + STATE] !== DeviceState.Running) return 0;
    const active = this.activeSince(d);
    if (real < active) return 0;
    return Math.max(0, real - Math.max(active, this.words[b + PUB_REAL]!));
  }

  /** Real time since which device `d` has had something to do: its own wake-up or an unread frame. */
  private activeSince(d: number): number {
    const w = this.words;
    // The links before WAKE: the receiver lowers WAKE before it counts a frame as read, so a reader that
    // finds the frame read finds the WAKE it left. Read the other way round, a frame read between the two
    // reads was in neither, and the device looked idle with work in hand.
    let active = Number.POSITIVE_INFINITY;
    for (const l of this.incoming[d]!) {
      const lb = this.linkBase + l * LINK_WORDS;
      if (w[lb + SENT]! > w[lb + READ]! && w[lb + FIRST]! < active) active = w[lb + FIRST]!;
    }
    const wake = w[HEADER_WORDS + d * DEVICE_WORDS + WAKE]!;
    return wake < active ? wake : active;
  }
}
