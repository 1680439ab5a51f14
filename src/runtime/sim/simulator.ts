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
import { EventQueue } from "../../device/event-queue.js";
import { createRandom } from "../../device/prng.js";
import { releaseFrame } from "../../wire/frame-alloc.js";
import type { Incoming } from "./partition-exchange.js";
import {
  ACTION,
  countCalls,
  DELIVER,
  delivery,
  disarmAll,
  type EventType,
  type FrameTap,
  KEY_START,
  type LinkSpec,
  MAX_DEVICES,
  RANK_DELIVER,
  RANK_DEVICE,
  RANK_TIMER,
  type RemoteSend,
  rankOf,
  SimEventRecord,
  type SimLink,
  type SimNode,
  TIMER,
  TimerSlot,
} from "./sim-records.js";
import { type SimEvent, stampEvent } from "./stamp-event.js";

export type { Endpoint, FrameTap, LinkSpec, RemoteSend, SimLink } from "./sim-records.js";
export type { SimEvent };

export interface SimulatorOptions {
  readonly seed?: number | string;
  /** When the devices start, ns (0 by default); before 0 for a scenario's bring-up (run/bring-up.ts). */
  readonly startNs?: Nanoseconds;
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
  private sendRemote: RemoteSend | null = null;
  /**
   * Where the events now being emitted stand in the order of their nanosecond (`emitKey`): the dispatched
   * event's rank (the tie rule), or for an external action a step count that grows at each action and at
   * each device call inside one (`enterDevice`), or KEY_START + creation index at start.
   */
  private key = 0;
  private actionSteps = 0;
  private inAction = false;

  constructor(opts: SimulatorOptions = {}) {
    this.seed = opts.seed ?? 1;
    this.clock = opts.startNs ?? 0;
    if (!Number.isSafeInteger(this.clock) || this.clock > 0) throw new RangeError(`startNs: ${this.clock}`);
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
      local: true,
      timers: new Map(),
      ports: [],
    };
    const env: DeviceEnv = {
      transmit: (port, frame, at, verified) =>
        this.transmit(node, port, frame, at ?? this.clock, verified === true),
      arm: (timer, at) => {
        if (node.local) this.arm(node, timer, at);
      },
      disarm: (timer) => {
        const slot = node.timers.get(timer);
        if (slot !== undefined) slot.gen = 0;
      },
      emit: (event) => {
        if (this.listeners.length === 0 || !node.local) return;
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
    if (this.sendRemote !== null) countCalls(node, () => this.enterDevice());
    this.enterDevice();
    if (this.started && node.local) device.start(this.clock);
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
      index: this.links.length,
    };
    a.ports[spec.a.port] = { link, side: 0, from: spec.a, to: spec.b, peer: b, remote: false };
    b.ports[spec.b.port] = { link, side: 1, from: spec.b, to: spec.a, peer: a, remote: false };
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
    for (const [end, node] of [
      [a, this.nodeOf(a.device)],
      [b, this.nodeOf(b.device)],
    ] as const) {
      this.enterDevice();
      if (node.local) node.device.setLinkState(end.port, up, this.clock);
    }
  }

  linkAt(device: string, port: number): SimLink | undefined {
    return this.nodes.get(device)?.ports[port]?.link;
  }

  /** Runs every event up to and including emulated time `until`; the clock ends at `until`. */
  run(until: Nanoseconds): void {
    if (!this.started) {
      this.started = true;
      let i = 0;
      for (const node of this.nodes.values()) {
        this.key = KEY_START + i++;
        if (node.local) node.device.start(this.clock);
      }
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
        this.key = RANK_TIMER + node!.rank;
        node!.device.fire(id, t);
      } else if (type === DELIVER) {
        if (gen !== link!.gen || !link!.up || node!.dead) {
          link!.lost++;
          continue;
        }
        this.key = RANK_DELIVER + node!.rank + id;
        node!.device.receive(id, frame!, t, e.verified); // read before the call reuses `e`
      } else {
        this.key = ++this.actionSteps;
        this.inAction = true;
        run!(t);
        this.inAction = false;
      }
    }
    if (until > this.clock) this.clock = until;
  }

  /**
   * Makes this simulator one partition of a parallel run (run/sim-parallel.ts): the devices for which
   * `local` is false become ghosts (SimNode.local) and frames for them go to `send`, with their arrival
   * time; their partition takes them with `deliverRemote`. Before the first `run`.
   */
  partition(local: (device: string) => boolean, send: RemoteSend): void {
    if (this.started) throw new Error("partition a simulator before it runs");
    this.sendRemote = send;
    for (const node of this.nodes.values()) {
      node.local = local(node.name);
      countCalls(node, () => this.enterDevice());
    }
    for (const node of this.nodes.values())
      for (const at of node.ports) if (at !== undefined) at.remote = node.local && !at.peer.local;
  }

  /** A frame another partition sent on `links[link]` from its `side`, with the link's generation then and
   * the sender's `verified` (the bytes came through shared memory unchanged). */
  readonly deliverRemote: Incoming = (link, side, arrival, gen, frame, verified): void => {
    const l = this.links[link]!;
    const to = side === 0 ? l.spec.b : l.spec.a;
    const node = this.nodeOf(to.device);
    const e = delivery(this.record(DELIVER, arrival), node, to.port, l, gen, frame, verified);
    this.queue.push(e, RANK_DELIVER + node.rank + to.port);
  };

  /** Time of the earliest queued event (Infinity: none). */
  nextEventTime(): Nanoseconds {
    return this.queue.peekTime();
  }

  /**
   * Where an event emitted now stands among those of its nanosecond, the same number in every partition
   * of a parallel run: at start, before time 0's actions, by device creation order; in an external
   * action, a count of actions and device calls made in them; in a device's event, the event's rank (the
   * tie rule). Events in time order and, within a nanosecond, by this key are in the order a
   * single-threaded run emits them; two partitions never emit under the same key.
   */
  get emitKey(): number {
    return this.key;
  }

  /** An external action calls into a device (a command, a link change, a restart): a new emit key. */
  private enterDevice(): void {
    if (this.inAction) this.key = ++this.actionSteps;
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

  /** A frame whose last bit leaves `port` at `left` (TxPort hands it over earlier), due at `left` + delay. */
  private transmit(node: SimNode, port: number, frame: Uint8Array, left: number, verified: boolean): void {
    if (node.dead || !node.local) return;
    const attachment = node.ports[port];
    if (!attachment) return; // an unconnected port: the frame goes nowhere
    const { link, side } = attachment;
    const spec = link.spec;
    link.frames[side]++;
    link.bytes[side] += frame.length;
    const taps = this.taps;
    for (let i = 0; i < taps.length; i++) taps[i]!(left, attachment.from, attachment.to, frame, verified);
    const lost = !link.up || (link.loss !== null && link.loss.next() < (spec.lossRate ?? 0));
    if (lost || attachment.remote) {
      if (lost) link.lost++;
      else this.sendRemote!(link, side, left + spec.delayNs, frame, verified); // copies the bytes
      releaseFrame(frame); // no receiver holds this buffer: it serves a later frame (wire/frame-alloc.ts)
      return;
    }
    const { peer, to } = attachment;
    const e = this.record(DELIVER, left + spec.delayNs);
    this.queue.push(
      delivery(e, peer, to.port, link, link.gen, frame, verified),
      RANK_DELIVER + peer.rank + to.port,
    );
  }
}
