// The virtual-time runtime: every device of a fabric inside one process, links in memory, a discrete-
// event queue in emulated nanoseconds. Deterministic: the same devices, links, seed and actions give the
// same run, bit for bit. Frames are the devices' real bytes; the simulator only moves them.
//
// The tie rule (docs/fidelity.md, "The tie rule"): events of the same emulated nanosecond run in the order
//   1. external actions (scenario steps, samples), in the order they were scheduled;
//   2. frames arriving at a device, by the device's name, then by the arrival port's number (a port
//      delivers its frames in the order they were sent);
//   3. device timers, by the device's name, then in the order the device armed them;
// never by the order in which the events were scheduled. So what one device sees in one nanosecond
// follows from that device's own inputs and port numbers alone, which the live runtime computes too
// (device-host.ts, inbox.ts): a live lab takes the same frames in the same order. The device names order
// what the event log shows of different devices within one nanosecond; no device sees that order.

import type { Device, DeviceEnv, Nanoseconds, TimerId } from "../../device/contract.js";
import { EventQueue, type QueuedEvent } from "../../device/event-queue.js";
import { createRandom, type Random } from "../../device/prng.js";
import { type SimEvent, stampEvent } from "./stamp-event.js";

export interface Endpoint {
  readonly device: string;
  readonly port: number;
}

export type { SimEvent };

export interface LinkSpec {
  readonly a: Endpoint;
  readonly b: Endpoint;
  /** One-way propagation delay, ns. */
  readonly delayNs: number;
  /** Probability that a frame is lost on this link (failure injection; default 0). */
  readonly lossRate?: number;
}

/** Called for every frame put on a link (before loss), e.g. to write a capture. */
export type FrameTap = (t: Nanoseconds, from: Endpoint, to: Endpoint, frame: Uint8Array) => void;

const TIMER = 0;
const DELIVER = 1;
const ACTION = 2;
type EventType = typeof TIMER | typeof DELIVER | typeof ACTION;

/**
 * The rank of an event among those of its nanosecond (the tie rule above): class, device, port. Ports are
 * below 2^16 (connect checks it) and devices are ranked by name below 2^21, so the rank is an exact
 * integer in a double.
 */
const RANK_DELIVER = 2 ** 37;
const RANK_TIMER = 2 * 2 ** 37;
const RANK_DEVICE = 2 ** 16;
const MAX_DEVICES = 2 ** 21;

/**
 * Every queued event, of whichever type, is one of these: one object shape, so the queue's comparisons
 * and the dispatch see a single hidden class, and records are recycled through a free list once
 * dispatched, so the steady state allocates no event objects.
 */
class SimEventRecord implements QueuedEvent {
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
  run: ((now: Nanoseconds) => void) | null = null;
}

/**
 * One timer id of one device, made on its first arming and kept: arming stamps a new generation, disarming
 * and firing set 0, and an event fires only if the slot still holds its generation. So neither arming
 * nor firing inserts into or deletes from a map.
 */
class TimerSlot {
  gen = 0;
}

interface SimNode {
  readonly name: string;
  /** The device's place in the name order of every device (the tie rule), times RANK_DEVICE. */
  rank: number;
  device: Device;
  /** A killed device: frames and timers for it vanish, as for a crashed process. */
  dead: boolean;
  /** Every timer id the device ever armed -> its slot (generation 0: not armed). */
  readonly timers: Map<TimerId, TimerSlot>;
  /** port -> link, which side of it this node is, and the node and port at its other end. */
  /** Indexed by port number (ports are small integers), holes for unconnected ports. */
  readonly ports: (Attachment | undefined)[];
}

interface Attachment {
  readonly link: SimLink;
  readonly side: 0 | 1;
  readonly from: Endpoint;
  readonly to: Endpoint;
  readonly peer: SimNode;
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
}

export interface SimulatorOptions {
  readonly seed?: number | string;
}

export class Simulator {
  private readonly queue = new EventQueue<SimEventRecord>();
  /** Dispatched records, for reuse. */
  private readonly free: SimEventRecord[] = [];
  private readonly nodes = new Map<string, SimNode>();
  readonly links: SimLink[] = [];
  private timerGen = 0;
  private clock: Nanoseconds = 0;
  private started = false;
  /** Events processed so far (a cost measure for benchmarks). */
  eventsProcessed = 0;
  readonly seed: number | string;
  private readonly listeners: ((e: SimEvent) => void)[] = [];
  private readonly taps: FrameTap[] = [];
  private readonly envs = new Map<string, DeviceEnv>();

  constructor(opts: SimulatorOptions = {}) {
    this.seed = opts.seed ?? 1;
  }

  get now(): Nanoseconds {
    return this.clock;
  }

  /**
   * Adds a device. `create` receives the environment the device must use; the device's random stream is
   * derived from the run seed and its name.
   */
  addDevice<D extends Device>(name: string, create: (env: DeviceEnv) => D): D {
    if (this.nodes.has(name)) throw new Error(`device ${name} already exists`);
    const random = createRandom(this.seed, `device:${name}`);
    if (this.nodes.size >= MAX_DEVICES) throw new Error(`more than ${MAX_DEVICES} devices`);
    const node: SimNode = {
      name,
      rank: 0,
      device: undefined as unknown as Device,
      dead: false,
      timers: new Map(),
      ports: [],
    };
    const env: DeviceEnv = {
      transmit: (port, frame) => this.transmit(node, port, frame),
      arm: (timer, at) => this.arm(node, timer, at),
      disarm: (timer) => {
        const slot = node.timers.get(timer);
        if (slot !== undefined) slot.gen = 0;
      },
      emit: (event) => {
        if (this.listeners.length === 0) return;
        const stamped = stampEvent(event, this.clock, name);
        for (const l of this.listeners) l(stamped);
      },
      random: random.next,
    };
    this.nodes.set(name, node);
    this.rankNodes();
    const device = create(env);
    node.device = device;
    this.envs.set(name, env);
    return device;
  }

  /**
   * Ranks every device by name (the tie rule); events already queued are queued again under the new
   * ranks, in their order (a device added while others have events pending; not on any hot path).
   */
  private rankNodes(): void {
    const names = [...this.nodes.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (let i = 0; i < names.length; i++) this.nodes.get(names[i]!)!.rank = i * RANK_DEVICE;
    if (this.queue.size === 0) return;
    for (const e of this.queue.drain()) this.queue.push(e, rankOf(e));
  }

  /**
   * Kills a device, as a crashed process: its links stay up (the peers see no carrier change) but frames
   * sent to it vanish and its timers never fire, until it is restarted.
   */
  killDevice(name: string): void {
    const node = this.nodeOf(name);
    node.dead = true;
    disarmAll(node);
  }

  /** Restarts a killed (or running) device with fresh state from `create`. */
  restartDevice<D extends Device>(name: string, create: (env: DeviceEnv) => D): D {
    const node = this.nodeOf(name);
    disarmAll(node);
    const device = create(this.envs.get(name)!);
    node.device = device;
    node.dead = false;
    if (this.started) device.start(this.clock);
    return device;
  }

  isDead(name: string): boolean {
    return this.nodeOf(name).dead;
  }

  device(name: string): Device {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no device ${name}`);
    return node.device;
  }

  get deviceNames(): string[] {
    return [...this.nodes.keys()];
  }

  connect(spec: LinkSpec): SimLink {
    const a = this.nodeOf(spec.a.device);
    const b = this.nodeOf(spec.b.device);
    for (const [node, ep] of [
      [a, spec.a],
      [b, spec.b],
    ] as const) {
      if (!Number.isInteger(ep.port) || ep.port < 0 || ep.port > 0xffff)
        throw new Error(`${ep.device} port ${ep.port} is not a port number (0..65535)`);
      if (node.ports[ep.port] !== undefined)
        throw new Error(`${ep.device} port ${ep.port} is already connected`);
    }
    const link: SimLink = {
      spec,
      up: true,
      gen: 0,
      lost: 0,
      frames: [0, 0],
      bytes: [0, 0],
      loss: spec.lossRate ? createRandom(this.seed, `link:${spec.a.device}:${spec.a.port}`) : null,
    };
    a.ports[spec.a.port] = { link, side: 0, from: spec.a, to: spec.b, peer: b };
    b.ports[spec.b.port] = { link, side: 1, from: spec.b, to: spec.a, peer: a };
    this.links.push(link);
    return link;
  }

  /** Subscribe to every device's telemetry events. */
  onEvent(listener: (e: SimEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Observe every frame put on a link. */
  onFrame(tap: FrameTap): void {
    this.taps.push(tap);
  }

  /** Run `fn` at emulated time `t` (an external action: a scenario step, a sample). */
  at(t: Nanoseconds, fn: (now: Nanoseconds) => void): void {
    const e = this.record(ACTION, Math.max(t, this.clock));
    e.run = fn;
    this.queue.push(e);
  }

  /** Take a link down or bring it up; both ends are told at the current time. */
  setLinkUp(link: SimLink, up: boolean): void {
    if (link.up === up) return;
    link.up = up;
    link.gen++;
    const { a, b } = link.spec;
    this.nodeOf(a.device).device.setLinkState(a.port, up, this.clock);
    this.nodeOf(b.device).device.setLinkState(b.port, up, this.clock);
  }

  linkAt(device: string, port: number): SimLink | undefined {
    return this.nodes.get(device)?.ports[port]?.link;
  }

  /** Runs every event up to and including emulated time `until`; the clock ends at `until`. */
  run(until: Nanoseconds): void {
    if (!this.started) {
      this.started = true;
      for (const node of this.nodes.values()) node.device.start(this.clock);
    }
    const queue = this.queue;
    const free = this.free;
    while (queue.peekTime() <= until) {
      const e = queue.pop()!;
      const t = e.t;
      this.clock = t;
      this.eventsProcessed++;
      // Read what the dispatch needs and recycle the record first: the handler may schedule new events.
      const type = e.type;
      const node = e.node;
      const id = e.id;
      const gen = e.gen;
      const link = e.link;
      const slot = e.slot;
      const frame = e.frame;
      const run = e.run;
      e.node = null;
      e.link = null;
      e.slot = null;
      e.frame = null;
      e.run = null;
      free.push(e);
      if (type === TIMER) {
        if (slot!.gen !== gen) continue;
        slot!.gen = 0;
        node!.device.fire(id, t);
      } else if (type === DELIVER) {
        if (gen !== link!.gen || !link!.up || node!.dead) {
          link!.lost++;
          continue;
        }
        node!.device.receive(id, frame!, t);
      } else {
        run!(t);
      }
    }
    if (until > this.clock) this.clock = until;
  }

  private nodeOf(name: string): SimNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no device ${name}`);
    return node;
  }

  private arm(node: SimNode, timer: TimerId, at: Nanoseconds): void {
    let slot = node.timers.get(timer);
    if (slot === undefined) {
      slot = new TimerSlot();
      node.timers.set(timer, slot);
    }
    const gen = ++this.timerGen;
    slot.gen = gen;
    const e = this.record(TIMER, Math.max(Math.ceil(at), this.clock));
    e.node = node;
    e.id = timer;
    e.gen = gen;
    e.slot = slot;
    this.queue.push(e, RANK_TIMER + node.rank);
  }

  /** A record for a new event, recycled when one is free. */
  private record(type: EventType, t: Nanoseconds): SimEventRecord {
    const e = this.free.pop() ?? new SimEventRecord();
    e.type = type;
    e.t = t;
    return e;
  }

  private transmit(node: SimNode, port: number, frame: Uint8Array): void {
    if (node.dead) return;
    const attachment = node.ports[port];
    if (!attachment) return; // an unconnected port: the frame goes nowhere
    const { link, side } = attachment;
    const spec = link.spec;
    link.frames[side]++;
    link.bytes[side] += frame.length;
    const taps = this.taps;
    for (let i = 0; i < taps.length; i++) taps[i]!(this.clock, attachment.from, attachment.to, frame);
    if (!link.up || (link.loss !== null && link.loss.next() < (spec.lossRate ?? 0))) {
      link.lost++;
      return;
    }
    const e = this.record(DELIVER, this.clock + spec.delayNs);
    e.node = attachment.peer;
    e.id = attachment.to.port;
    e.gen = link.gen;
    e.link = link;
    e.frame = frame;
    this.queue.push(e, RANK_DELIVER + attachment.peer.rank + attachment.to.port);
  }
}

/** The rank of a queued event (the tie rule), as it was pushed with. */
function rankOf(e: SimEventRecord): number {
  if (e.type === ACTION) return 0;
  if (e.type === DELIVER) return RANK_DELIVER + e.node!.rank + e.id;
  return RANK_TIMER + e.node!.rank;
}

/** Every armed timer of `node` is disarmed (its pending events will not fire). */
function disarmAll(node: SimNode): void {
  for (const slot of node.timers.values()) slot.gen = 0;
}
