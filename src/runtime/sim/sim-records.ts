// The simulator's records: links, devices as it holds them, queued events and the tie rule's ranks
// (simulator.ts says the rule).

import type { Device, Nanoseconds, TimerId } from "../../device/contract.js";
import type { QueuedEvent } from "../../device/event-queue.js";
import type { Random } from "../../device/prng.js";

export interface Endpoint {
  readonly device: string;
  readonly port: number;
}

export interface LinkSpec {
  readonly a: Endpoint;
  readonly b: Endpoint;
  /** One-way propagation delay, ns. */
  readonly delayNs: number;
  /** Probability that a frame is lost on this link (failure injection; default 0). */
  readonly lossRate?: number;
}

/**
 * Called for every frame put on a link (before loss), with the time its last bit leaves (`t`: the frame is
 * handed over as its first bit leaves, so calls come in the order frames start), e.g. to write a capture; `verified` is what the
 * sender said of its ICRC (DeviceEnv.transmit). A tap must not change the frame.
 */
export type FrameTap = (
  t: Nanoseconds,
  from: Endpoint,
  to: Endpoint,
  frame: Uint8Array,
  verified: boolean,
) => void;

export const TIMER = 0;
export const DELIVER = 1;
export const ACTION = 2;
export type EventType = typeof TIMER | typeof DELIVER | typeof ACTION;

/**
 * The rank of an event among those of its nanosecond (the tie rule above): class, device, port. Ports are
 * below 2^16 (connect checks it) and devices are ranked by name below 2^21, so the rank is an exact
 * integer in a double.
 */
export const RANK_DELIVER = 2 ** 37;
export const RANK_TIMER = 2 * 2 ** 37;
export const RANK_DEVICE = 2 ** 16;
export const MAX_DEVICES = 2 ** 21;

/**
 * Every queued event, of whichever type, is one of these: one object shape, so the queue's comparisons
 * and the dispatch see a single hidden class, and records are recycled through a free list once
 * dispatched, so the steady state allocates no event objects.
 */
export class SimEventRecord implements QueuedEvent {
  t = 0;
  seq = 0;
  type: EventType = TIMER;
  /** TIMER: the device; DELIVER: the receiving device. */
  node: SimNode | null = null;
  /** TIMER: the timer id; DELIVER: the receiving port. */
  id = 0;
  /** TIMER: the arming's generation; DELIVER: the link's generation when the frame left (frames in flight
   * die with a link that goes down). */
  gen = 0;
  link: SimLink | null = null;
  /** TIMER: the timer's slot, whose generation says whether this arming is still the live one. */
  slot: TimerSlot | null = null;
  frame: Uint8Array | null = null;
  /** DELIVER: the sender's `verified` for `frame` (DeviceEnv.transmit), handed to `Device.receive`. */
  verified = false;
  run: ((now: Nanoseconds) => void) | null = null;
}

/**
 * One timer id of one device, made on its first arming and kept: arming stamps a new generation, disarming
 * and firing set 0, and an event fires only if the slot still holds its generation. So neither arming
 * nor firing inserts into or deletes from a map.
 */
export class TimerSlot {
  gen = 0;
}

export interface SimNode {
  readonly name: string;
  /** The device's place in the name order of every device (the tie rule), times RANK_DEVICE. */
  rank: number;
  device: Device;
  /** A killed device: frames and timers for it vanish, as for a crashed process. */
  dead: boolean;
  /**
   * Simulated here (always, unless `partition` says otherwise). A device of another partition is a ghost:
   * built from the same configuration and told the same commands, but never started, and whatever it
   * transmits, arms or emits is dropped; its partition's worker holds the real one (sim-partition.ts).
   */
  local: boolean;
  /** Every timer id the device ever armed -> its slot (generation 0: not armed). */
  readonly timers: Map<TimerId, TimerSlot>;
  /** port -> link, which side of it this node is, and the node and port at its other end. */
  /** Indexed by port number (ports are small integers), holes for unconnected ports. */
  readonly ports: (Attachment | undefined)[];
}

export interface Attachment {
  readonly link: SimLink;
  readonly side: 0 | 1;
  readonly from: Endpoint;
  readonly to: Endpoint;
  readonly peer: SimNode;
  /** The peer is simulated by another partition: frames go to `Simulator.partition`'s `send`. */
  remote: boolean;
}

export interface SimLink {
  readonly spec: LinkSpec;
  up: boolean;
  gen: number;
  /** Frames lost to injected loss or to the link being down. */
  lost: number;
  readonly frames: [number, number];
  readonly bytes: [number, number];
  readonly loss: Random | null;
  /** Position in `Simulator.links` (how a partition names the link to another). */
  readonly index: number;
}

/** A frame that leaves this partition: delivered by the partition of its receiver (`deliverRemote`). */
export type RemoteSend = (
  link: SimLink,
  side: 0 | 1,
  arrival: Nanoseconds,
  frame: Uint8Array,
  verified: boolean,
) => void;

/** Orders the events emitted at `start` (before any action of time 0): by device creation order. */
export const KEY_START = -(2 ** 31);

/** The rank of a queued event (the tie rule), as it was pushed with. */
export function rankOf(e: SimEventRecord): number {
  if (e.type === ACTION) return 0;
  if (e.type === DELIVER) return RANK_DELIVER + e.node!.rank + e.id;
  return RANK_TIMER + e.node!.rank;
}

/** Every armed timer of `node` is disarmed (its pending events will not fire). */
export function disarmAll(node: SimNode): void {
  for (const slot of node.timers.values()) slot.gen = 0;
}

/** Counts the device's commands as calls into it (`enter`), for the emit keys of a partition. */
export function countCalls(node: SimNode, enter: () => void): void {
  const device = node.device;
  const command = device.command.bind(device);
  device.command = (cmd, now) => {
    enter();
    return command(cmd, now);
  };
}

/** Fills `e` as a frame's arrival at `node`'s `port` over `link` (of generation `gen`). */
export function delivery(
  e: SimEventRecord,
  node: SimNode,
  port: number,
  link: SimLink,
  gen: number,
  frame: Uint8Array,
  verified: boolean,
): SimEventRecord {
  e.node = node;
  e.id = port;
  e.gen = gen;
  e.link = link;
  e.frame = frame;
  e.verified = verified;
  return e;
}
