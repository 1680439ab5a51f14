// A fabric in virtual time, driven like a live lab: the simulator advances in step with the real clock at
// a chosen dilation (emulated time runs `dilation` times slower than real time), so a person can watch
// queues build and pauses spread in the TUI and inject incasts, failures and presets from the keyboard.
// Every host has a kernel stack behind its NIC (HostStack), as in the live lab.

import { HostStack } from "../../nic/host-stack.js";
import { Nic } from "../../nic/nic.js";
import { type ActionResult, describeAction, type LabAction } from "../../scenario/action.js";
import { hostAddress, planAddresses } from "../../scenario/address-plan.js";
import { fabricBaseRtt } from "../../scenario/fabric-rtt.js";
import { buildNicConfig } from "../../scenario/nic-config.js";
import { roceV1Of } from "../../scenario/rocev1.js";
import { hosts, NodeKind, type Topology } from "../../scenario/topology.js";
import type { AnyDeviceStats } from "../device-stats.js";
import { FlowDriver, feedFlowEvent } from "../flow-driver.js";
import type { Lab, LabEvent, LabSnapshot, TopologyView } from "../lab.js";
import { Listeners } from "../listeners.js";
import { linkViews, topologyView } from "../topology-view.js";
import { SimActions } from "./sim-actions.js";
import { SimFabric } from "./sim-fabric.js";

export interface SimLabOptions {
  readonly name?: string;
  readonly topology: Topology;
  readonly seed?: number;
  /** Real time per emulated time (default 10,000: one emulated millisecond lasts ten real seconds). */
  readonly dilation?: number;
  /** Real ms between snapshots (default 250). */
  readonly snapshotMs?: number;
  /** Real ms between simulator slices (default 20). */
  readonly tickMs?: number;
}

/** At most this much real time of simulation work per slice, so the UI stays responsive when behind. */
const MAX_WORK_MS = 40;

export class SimLab implements Lab {
  readonly runtime = "sim" as const;
  readonly name: string;
  readonly topology: TopologyView;
  readonly fabric: SimFabric;
  private dilationNow: number;
  private pausedNow = false;
  private readonly closeListeners = new Listeners<string>();
  private readonly kernels = new Map<string, HostStack>();
  private readonly driver: FlowDriver;
  private readonly actions: SimActions;
  private readonly snapshotListeners = new Listeners<LabSnapshot>();
  private readonly eventListeners = new Listeners<readonly LabEvent[]>();
  private pendingEvents: LabEvent[] = [];
  private readonly status = new Map<string, string>();
  private readonly restarts = new Map<string, number>();
  private tick: NodeJS.Timeout | null = null;
  private snap: NodeJS.Timeout | null = null;
  private realStart = 0;
  private emulatedStart = 0;
  private readonly seed: number;

  constructor(private readonly opts: SimLabOptions) {
    this.name = opts.name ?? `sim-${opts.topology.name}`;
    const dilation = opts.dilation ?? 10_000;
    if (!(dilation >= 1)) throw new Error(`dilation must be >= 1, not ${dilation}`);
    this.dilationNow = dilation;
    this.seed = opts.seed ?? 1;
    const topo = opts.topology;
    // One address plan for every NIC's RoCEv1 settings (not one per NIC: it walks every link).
    const plan = planAddresses(topo);
    this.fabric = new SimFabric(
      topo,
      (host, address, link, env) =>
        new Nic(
          {
            ...buildNicConfig(
              {
                host,
                address,
                link,
                mtu: topo.mtu,
                l2: roceV1Of(topo, plan, host),
                fabricRttNs: fabricBaseRtt(topo),
              },
              {},
              { answerArp: false },
            ),
            hostPort: true,
          },
          env,
        ),
      { seed: this.seed },
    );
    const sim = this.fabric.sim;
    for (const h of hosts(topo)) {
      const addr = hostAddress(this.fabric.plan, h.name);
      const kernel = sim.addDevice(
        `${h.name}-kernel`,
        (env) => new HostStack({ name: h.name, mac: addr.mac, ip: addr.ip, gatewayMac: addr.peerMac }, env),
      );
      sim.connect({ a: { device: h.name, port: 2 }, b: { device: `${h.name}-kernel`, port: 1 }, delayNs: 0 });
      this.kernels.set(h.name, kernel);
    }
    for (const n of topo.nodes) this.status.set(n.name, "running");
    this.driver = new FlowDriver(this.fabric.plan, {
      command: (host, cmd) => {
        if (this.status.get(host) !== "running") return;
        (this.fabric.hosts.get(host) as Nic).command(cmd, sim.now);
      },
      schedule: (at, fn) => sim.at(at, fn),
    });
    this.actions = new SimActions({
      fabric: this.fabric,
      nics: this.fabric.hosts as unknown as ReadonlyMap<string, Nic>,
      driver: this.driver,
      seed: this.seed,
      kernels: this.kernels,
      running: (node) => this.status.get(node) === "running",
      lab: { status: (node) => this.status.get(node) ?? "stopped", linkDown: (id) => this.fabric.isDown(id) },
      setDilation: (d) => this.setDilation(d),
    });
    sim.onEvent((e) => {
      this.pendingEvents.push(e);
      feedFlowEvent(this.driver, e);
    });
    this.topology = topologyView(topo, (id) => this.fabric.isDown(id));
  }

  /** Real time per emulated time. */
  get dilation(): number {
    return this.dilationNow;
  }

  /** True while virtual time is frozen (snapshots keep flowing). */
  get paused(): boolean {
    return this.pausedNow;
  }

  /** Starts advancing virtual time with the real clock. */
  start(): void {
    if (this.tick) return;
    this.pausedNow = false;
    this.rebase();
    this.tick = setInterval(() => this.advance(), this.opts.tickMs ?? 20);
    this.snap ??= setInterval(() => this.publish(), this.opts.snapshotMs ?? 250);
  }

  /** Freezes virtual time; snapshots keep being published so the screen stays live. */
  pause(): void {
    if (this.tick) clearInterval(this.tick);
    this.tick = null;
    this.pausedNow = true;
    this.publish();
  }

  /** Continues virtual time from where it was frozen. */
  resume(): void {
    if (!this.pausedNow) return;
    this.start();
  }

  /** Changes the pace of virtual time from now on (real time per emulated time, >= 1). */
  setDilation(dilation: number): void {
    if (!(dilation >= 1)) throw new Error(`dilation must be >= 1, not ${dilation}`);
    this.rebase();
    this.dilationNow = dilation;
  }

  /** Anchors the emulated clock to the real clock at this instant. */
  private rebase(): void {
    this.realStart = performance.now();
    this.emulatedStart = this.fabric.sim.now;
  }

  /** Runs the simulator up to where the real clock says it should be (bounded work per slice). */
  advance(): void {
    const sim = this.fabric.sim;
    const target =
      this.emulatedStart + Math.floor(((performance.now() - this.realStart) * 1e6) / this.dilationNow);
    const began = performance.now();
    const step = Math.max(1000, Math.floor((MAX_WORK_MS * 1e6) / this.dilationNow));
    while (sim.now < target && performance.now() - began < MAX_WORK_MS)
      sim.run(Math.min(target, sim.now + step));
    // Cannot keep up at this dilation: slow the emulated clock rather than fall further behind.
    if (sim.now < target) this.rebase();
  }

  private publish(): void {
    const events = this.pendingEvents;
    this.pendingEvents = [];
    if (events.length > 0) this.eventListeners.emit(events);
    if (this.snapshotListeners.size === 0) return;
    const s = this.snapshotNow();
    this.snapshotListeners.emit(s);
  }

  snapshotNow(): LabSnapshot {
    const now = this.fabric.sim.now;
    const stats: Record<string, AnyDeviceStats> = {};
    for (const [name, sw] of this.fabric.switches)
      if (this.status.get(name) === "running") stats[name] = sw.stats(now);
    for (const [name, nic] of this.fabric.hosts)
      if (this.status.get(name) === "running") stats[name] = nic.stats(now);
    return {
      lab: this.name,
      runtime: "sim",
      now,
      dilation: this.dilationNow,
      status: this.tick ? "running" : "paused",
      devices: this.opts.topology.nodes.map((n) => ({
        node: n.name,
        kind: n.kind === NodeKind.Switch ? "switch" : "nic",
        status: this.status.get(n.name)!,
        pid: null,
        restarts: this.restarts.get(n.name) ?? 0,
        health: null,
      })),
      links: linkViews(this.opts.topology, (id) => this.fabric.isDown(id)),
      stats,
    };
  }

  snapshot(): Promise<LabSnapshot> {
    return Promise.resolve(this.snapshotNow());
  }

  onSnapshot(listener: (s: LabSnapshot) => void): () => void {
    return this.snapshotListeners.add(listener);
  }

  onEvents(listener: (e: readonly LabEvent[]) => void): () => void {
    return this.eventListeners.add(listener);
  }

  /** A simulated lab only goes away when its owner closes it, so listeners are never called. */
  onClose(listener: (reason: string) => void): () => void {
    return this.closeListeners.add(listener);
  }

  /**
   * Carries out an action now (sim-actions.ts); the lab's own bookkeeping (device status, the events the
   * dashboard shows for a link, a kill or a restart) around it.
   */
  apply(action: LabAction): Promise<ActionResult> {
    const now = this.fabric.sim.now;
    try {
      if (action.kind === "device" && !action.running && this.status.get(action.node) !== "running")
        throw new Error(`${action.node} is ${this.status.get(action.node) ?? "unknown"}`);
      const result = this.actions.apply(action, now);
      this.afterAction(action, now);
      return Promise.resolve(result);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private afterAction(action: LabAction, now: number): void {
    switch (action.kind) {
      case "link":
        this.pendingEvents.push({
          t: now,
          device: action.node,
          kind: action.up ? "link-up" : "link-down",
          port: action.port,
          detail: `${action.node}:eth${action.port}`,
        });
        return;
      case "device":
        if (action.running) this.restarts.set(action.node, (this.restarts.get(action.node) ?? 0) + 1);
        this.status.set(action.node, action.running ? "running" : "killed");
        this.pendingEvents.push({
          t: now,
          device: action.node,
          kind: "info",
          detail: action.running ? "process restarted" : "process killed (failure injection)",
        });
        return;
      case "set":
        this.pendingEvents.push({ t: now, device: "lab", kind: "info", detail: describeAction(action) });
        return;
      default:
        return;
    }
  }

  close(): Promise<void> {
    if (this.tick) clearInterval(this.tick);
    if (this.snap) clearInterval(this.snap);
    this.tick = null;
    this.snap = null;
    return Promise.resolve();
  }

  /** The kernel stack of a host. */
  kernel(host: string): HostStack | undefined {
    return this.kernels.get(host);
  }

  /** Advances virtual time by `ns` at once, without the real clock (tests, scripted runs). */
  step(ns: number): void {
    this.fabric.sim.run(this.fabric.sim.now + ns);
  }
}
