// A fabric in virtual time, driven like a live lab: the simulator advances in step with the real clock at
// a chosen dilation (emulated time runs `dilation` times slower than real time), so a person can watch
// queues build and pauses spread in the TUI and inject incasts, failures and presets from the keyboard.
// Every host has a kernel stack behind its NIC (HostStack), as in the live lab.

import { createRandom } from "../../device/prng.js";
import { HostStack } from "../../nic/host-stack.js";
import { Nic } from "../../nic/nic.js";
import { generateFlows, type WorkloadSpec } from "../../nic/workloads.js";
import { hostAddress, planAddresses } from "../../scenario/address-plan.js";
import { buildNicConfig } from "../../scenario/nic-config.js";
import { roceV1Of } from "../../scenario/rocev1.js";
import { switchChange } from "../../scenario/settings-layers.js";
import { hosts, NodeKind, type Topology } from "../../scenario/topology.js";
import {
  type IncastRequest,
  incastWorkload,
  type LabController,
  type LabEvent,
  type LabSnapshot,
  type ThresholdPreset,
  type TopologyView,
  type UdpRequest,
} from "../controller.js";
import type { AnyDeviceStats } from "../device-stats.js";
import { FlowDriver } from "../flow-driver.js";
import { Listeners } from "../listeners.js";
import { linkViews, topologyView } from "../topology-view.js";
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

export class SimLab implements LabController {
  readonly runtime = "sim" as const;
  readonly name: string;
  readonly topology: TopologyView;
  readonly fabric: SimFabric;
  private dilationNow: number;
  private pausedNow = false;
  private readonly closeListeners = new Listeners<string>();
  private readonly kernels = new Map<string, HostStack>();
  private driver: FlowDriver;
  private readonly snapshotListeners = new Listeners<LabSnapshot>();
  private readonly eventListeners = new Listeners<readonly LabEvent[]>();
  private pendingEvents: LabEvent[] = [];
  private readonly status = new Map<string, string>();
  private readonly restarts = new Map<string, number>();
  private tick: NodeJS.Timeout | null = null;
  private snap: NodeJS.Timeout | null = null;
  private realStart = 0;
  private emulatedStart = 0;
  private workloads = 0;
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
              { host, address, link, mtu: topo.mtu, l2: roceV1Of(topo, plan, host) },
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
    this.driver = this.newDriver();
    sim.onEvent((e) => {
      this.pendingEvents.push(e);
      if (e.kind === "flow-done" && e.detail !== undefined) this.driver.onFlowDone(Number(e.detail), e.t);
    });
    this.topology = topologyView(topo, (id) => this.fabric.isDown(id));
  }

  private newDriver(): FlowDriver {
    const sim = this.fabric.sim;
    return new FlowDriver(this.fabric.plan, {
      command: (host, cmd) => {
        if (this.status.get(host) !== "running") return;
        (this.fabric.hosts.get(host) as Nic).command(cmd, sim.now);
      },
      schedule: (at, fn) => sim.at(at, fn),
    });
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

  private startWorkload(spec: WorkloadSpec): string {
    const now = this.fabric.sim.now;
    const random = createRandom(this.seed, `workload:${spec.name}:${this.workloads}`);
    this.driver.add(generateFlows(spec, now, random, this.driver.newId));
    return spec.name;
  }

  incast(req: IncastRequest): Promise<string> {
    const all = hosts(this.opts.topology).map((h) => h.name);
    let spec: WorkloadSpec;
    try {
      spec = incastWorkload(req, all, `incast-${this.workloads + 1}`);
    } catch (e) {
      return Promise.reject(e);
    }
    this.workloads++;
    return Promise.resolve(this.startWorkload(spec));
  }

  udp(req: UdpRequest): Promise<void> {
    const kernel = this.kernels.get(req.from);
    if (!kernel) return Promise.reject(new Error(`${req.from} is not a host`));
    kernel.command(
      {
        type: "udp",
        dstIp: hostAddress(this.fabric.plan, req.to).ip,
        rateBps: req.rateBps,
        ...(req.size !== undefined ? { size: req.size } : {}),
        ...(req.durationNs !== undefined ? { durationNs: req.durationNs } : {}),
      },
      this.fabric.sim.now,
    );
    return Promise.resolve();
  }

  stopTraffic(): Promise<void> {
    this.driver.stop("all");
    this.driver = this.newDriver();
    for (const k of this.kernels.values()) k.command({ type: "stop" }, this.fabric.sim.now);
    return Promise.resolve();
  }

  setLink(node: string, port: number, up: boolean): Promise<void> {
    this.fabric.setLinkUp(this.fabric.linkId(node, port), up);
    this.pendingEvents.push({
      t: this.fabric.sim.now,
      device: node,
      kind: up ? "link-up" : "link-down",
      port,
      detail: `${node}:eth${port}`,
    });
    return Promise.resolve();
  }

  kill(node: string): Promise<void> {
    if (this.status.get(node) !== "running")
      return Promise.reject(new Error(`${node} is ${this.status.get(node) ?? "unknown"}`));
    this.fabric.kill(node);
    this.status.set(node, "killed");
    this.pendingEvents.push({
      t: this.fabric.sim.now,
      device: node,
      kind: "info",
      detail: "process killed (failure injection)",
    });
    return Promise.resolve();
  }

  restart(node: string): Promise<void> {
    this.fabric.restart(node);
    this.status.set(node, "running");
    this.restarts.set(node, (this.restarts.get(node) ?? 0) + 1);
    this.pendingEvents.push({
      t: this.fabric.sim.now,
      device: node,
      kind: "info",
      detail: "process restarted",
    });
    return Promise.resolve();
  }

  /** Makes a host's NIC storm its leaf with XOFF on `priority` (null stops it), as LiveLab.pfcStorm. */
  pfcStorm(host: string, priority: number | null): Promise<void> {
    const nic = this.fabric.hosts.get(host);
    if (!(nic instanceof Nic)) return Promise.reject(new Error(`${host} is not a host`));
    const reply = nic.command({ type: "pfc-storm", priority }, this.fabric.sim.now);
    return reply.ok ? Promise.resolve() : Promise.reject(new Error(`${host}: ${reply.error}`));
  }

  /** Adds (via ethN) or withdraws (via null) a static route on a switch, as LiveLab.staticRoute. */
  staticRoute(node: string, to: string, via: string | null): Promise<void> {
    try {
      this.fabric.setStaticRoute(node, to, via);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  pfcEnable(node: string, port: number, priority: number): Promise<void> {
    const sw = this.fabric.switches.get(node);
    if (sw === undefined) return Promise.reject(new Error(`${node} is not a switch`));
    if (this.status.get(node) !== "running") return Promise.reject(new Error(`${node} is not running`));
    const reply = sw.command({ type: "pfc-enable", port, priority }, this.fabric.sim.now);
    return reply.ok ? Promise.resolve() : Promise.reject(new Error(`${node}: ${reply.error}`));
  }

  applyPreset(preset: ThresholdPreset): Promise<void> {
    this.fabric.configureSwitches(switchChange({ profile: preset }));
    this.pendingEvents.push({
      t: this.fabric.sim.now,
      device: "lab",
      kind: "info",
      detail: `switch preset ${preset} applied`,
    });
    return Promise.resolve();
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
