import { createRandom } from "../../device/prng.js";
import type { CompletionRecord } from "../../nic/stats-types.js";
import { generateFlows, type WorkloadSpec } from "../../nic/workloads.js";
import { MAX_DILATION, MIN_DILATION } from "../../runtime/live/dilation.js";
import type { InitMessage } from "../../runtime/live/protocol.js";
import type { SwitchTunables } from "../../switch/config.js";
import { type AddressPlan, hostAddress, planAddresses } from "../address-plan.js";
import {
  type IncastRequest,
  incastWorkload,
  type LabEvent,
  type LinkView,
  type UdpRequest,
} from "../controller.js";
import type { AnyDeviceStats } from "../device-stats.js";
import { CONFIG_CHANGED } from "../event-stream.js";
import { FlowDriver } from "../flow-driver.js";
import type { MetricsServer } from "../metrics/prometheus.js";
import { buildNicConfig } from "../nic-config.js";
import type { FlowReport } from "../report/report.js";
import { roceV1Of } from "../rocev1.js";
import { computeRoutes } from "../routing.js";
import type { NicSettings, SwitchSettings } from "../schema.js";
import { hostChange, SettingsLayers, switchChange } from "../settings-layers.js";
import { buildSwitchConfig } from "../switch-config.js";
import { linkAt, NodeKind, type Topology } from "../topology.js";
import { topologyView } from "../topology-view.js";
import { AUTO_WINDOW_MS, AutoDilation } from "./auto-dilation.js";
import { ClockMode } from "./clock-plan.js";
import { type ControlConnection, ControlServer } from "./control.js";
import { DeviceProcess } from "./device-process.js";
import { LabClock } from "./lab-clock.js";
import { serveLabMetrics } from "./metrics-endpoint.js";
import { controlSocketPath, HOST_NIC_IF, NIC_HOST_PORT, nsName } from "./names.js";
import { provision, resolveNeighbours, teardown } from "./provision.js";
import { startConcurrency, startLimited } from "./start-waves.js";
import { type LabState, writeState } from "./state.js";
import { UdpHelpers } from "./udp-helpers.js";

/** Real time a live device may take to react to a PFC pause (see liveSlack). */
export const LIVE_REACTION_MS = 10;

/** How many telemetry events the supervisor keeps for clients. */
const EVENT_RING = 2000;
/** Snapshot push interval to subscribed clients, real ms. */
const SNAPSHOT_MS = 500;

export interface DeviceView {
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly status: string;
  readonly pid: number | null;
  readonly restarts: number;
  readonly health: DeviceProcess["health"];
}

export interface LabStatus {
  readonly lab: string;
  readonly status: LabState["status"];
  readonly topology: string;
  readonly dilation: number;
  /** `--dilation auto` (or `rocelab dilation auto`): the supervisor adjusts the dilation. */
  readonly dilationAuto: boolean;
  readonly now: number;
  /** How the devices' clocks run, and how far the lab's clock is behind real time / dilation (ns). */
  readonly clock: ClockMode;
  readonly behindNs: number;
  readonly devices: readonly DeviceView[];
  readonly links: readonly LinkView[];
}

export interface Snapshot extends LabStatus {
  readonly stats: Record<string, AnyDeviceStats>;
  readonly events: readonly LabEvent[];
}

export interface SupervisorOptions {
  readonly lab: string;
  readonly topology: Topology;
  readonly dilation: number;
  readonly seed: number;
  /** Emulated time routes take to converge after a link change. */
  readonly convergenceNs?: number;
  /** "synced": devices keep one emulated time between them (clock-table.ts); "free": each its own. */
  readonly clock?: ClockMode;
  /** Synced clocks: real ms a device with work is taken to keep running after its last sign of life. */
  readonly syncGraceMs?: number;
  /** `--dilation auto`: raise the dilation when the machine cannot hold it (auto-dilation.ts). */
  readonly autoDilation?: boolean;
  /** Serve Prometheus /metrics on 127.0.0.1 at this port (0 or absent: no endpoint). */
  readonly metricsPort?: number;
}

export class Supervisor {
  readonly lab: string;
  readonly topo: Topology;
  readonly plan: AddressPlan;
  private readonly clock: LabClock;
  private readonly lateBudgetNs: number;
  private auto: AutoDilation | null;
  private autoTimer: NodeJS.Timeout | null = null;
  /** Latest device timer in the current auto-dilation window, emulated ns. */
  private windowLateNs = 0;
  private readonly devices = new Map<string, DeviceProcess>();
  private readonly downLinks = new Set<number>();
  private readonly settings: SettingsLayers;
  private readonly events: LabEvent[] = [];
  /** Bring-up steps so far, for a client that subscribes after some were broadcast. */
  private readonly progressLog: string[] = [];
  private readonly server: ControlServer;
  private state: LabState;
  private driver: FlowDriver;
  /** Drivers replaced by `stopTraffic`, kept for the flow report of a scenario run. */
  private readonly oldDrivers: FlowDriver[] = [];
  private workloadCount = 0;
  private snapshotTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private readonly udp: UdpHelpers;
  private metricsServer: MetricsServer | null = null;

  constructor(private readonly opts: SupervisorOptions) {
    this.lab = opts.lab;
    this.topo = opts.topology;
    this.plan = planAddresses(opts.topology);
    this.clock = new LabClock(
      this.lab,
      this.topo,
      opts.dilation,
      opts.clock ?? ClockMode.Free,
      opts.syncGraceMs,
    );
    this.lateBudgetNs = (LIVE_REACTION_MS * 1e6) / opts.dilation;
    this.auto = opts.autoDilation ? new AutoDilation(opts.dilation, this.lateBudgetNs) : null;
    this.settings = new SettingsLayers(this.topo, switchChange(this.liveSlack()));
    this.state = {
      lab: this.lab,
      createdAt: new Date().toISOString(),
      topology: this.topo.source,
      dilation: this.dilation,
      epoch: this.clock.epoch.toString(),
      namespaces: this.topo.nodes.map((n) => nsName(this.lab, n.name)),
      supervisorPid: process.pid,
      status: "provisioning",
      devices: {},
      helpers: [],
    };
    this.server = new ControlServer(controlSocketPath(this.lab), (op, args, conn) =>
      this.handle(op, args, conn),
    );
    this.driver = this.newDriver();
    this.udp = new UdpHelpers(
      this.lab,
      this.topo,
      this.plan,
      () => this.dilation,
      (name, namespace, pid) => {
        this.state.helpers.push({ name, namespace, pid });
        writeState(this.state);
      },
    );
  }

  /** The dilation in force now. */
  get dilation(): number {
    return this.clock.dilation;
  }

  /** The lab's emulated now (with synced clocks, the slowest device's). */
  now(): number {
    return this.clock.now();
  }

  private progress(step: string): void {
    this.progressLog.push(step);
    this.server.broadcast("progress", step);
  }

  /**
   * A live device reacts to a pause only when its process runs: Node timers fire a millisecond or more
   * late, and on a busy 2-core machine a process waits for CPU for several more (docs/performance.md has
   * the measured lateness). At dilation D, every real millisecond of reaction is 1e6/D emulated ns during
   * which an upstream keeps sending, so automatic headroom covers LIVE_REACTION_MS of it.
   */
  private liveSlack(): SwitchSettings {
    return { pfc: { headroomSlack: Math.ceil(this.lateBudgetNs) } };
  }

  async start(): Promise<void> {
    writeState(this.state);
    await this.server.listen();
    try {
      await provision(this.lab, this.topo, this.plan, (s) => this.progress(s));
      this.state.status = "starting";
      writeState(this.state);
      this.clock.create();
      this.progress(
        `starting ${this.topo.nodes.length} device processes (dilation ${this.dilation}, ${this.clock.mode} clocks)`,
      );
      const routes = computeRoutes(this.topo, this.plan, this.downLinks);
      for (const n of this.topo.nodes) {
        const proc = new DeviceProcess(
          this.lab,
          n.name,
          n.kind === NodeKind.Switch ? "switch" : "nic",
          nsName(this.lab, n.name),
          this.initFor(n.name, routes),
        );
        this.devices.set(n.name, proc);
        this.watch(proc);
      }
      await startLimited([...this.devices.values()], startConcurrency(), (d) => d.start());
      for (const d of this.devices.values()) this.recordDevice(d);
      this.progress(`resolving neighbours (hosts ping their leaf)`);
      await resolveNeighbours(this.lab, this.topo, this.plan);
      await this.serveMetrics();
      this.state.status = "running";
      writeState(this.state);
      this.progress("running");
      this.snapshotTimer = setInterval(() => void this.pushSnapshot(), SNAPSHOT_MS);
      this.startAutoDilation();
    } catch (e) {
      this.state.status = "failed";
      writeState(this.state);
      this.progress(`failed: ${(e as Error).message}`);
      throw e;
    }
  }

  private initFor(node: string, routes: Map<string, import("../../switch/config.js").Route[]>): InitMessage {
    const n = this.topo.nodes.find((x) => x.name === node)!;
    const base = {
      type: "init" as const,
      lab: this.lab,
      node,
      epoch: this.clock.epoch.toString(),
      // Ring sizes follow the dilation the lab starts with (auto only raises it, which slows the ports).
      dilation: this.clock.initialDilation,
      dilationTable: this.clock.dilationFor(),
      seed: this.opts.seed,
      ...(this.clock.mode === ClockMode.Synced ? { sync: this.clock.syncFor(node)! } : {}),
    };
    if (n.kind === NodeKind.Switch) {
      const config = buildSwitchConfig(
        this.topo,
        this.plan,
        routes.get(node) ?? [],
        node,
        this.settings.switchTunables(node),
      );
      const ports = n.ports.map((port) => ({
        port,
        ifname: `eth${port}`,
        delayNs: linkAt(this.topo, node, port)!.link.delayNs,
      }));
      return { ...base, kind: "switch", config, ports };
    }
    const link = linkAt(this.topo, node, 1)!.link;
    // The kernel answers ARP and ping on host0, behind the NIC's host port.
    const config = {
      ...buildNicConfig(
        {
          host: node,
          address: hostAddress(this.plan, node),
          link,
          mtu: this.topo.mtu,
          l2: roceV1Of(this.topo, this.plan, node),
        },
        this.settings.hostSettings(),
        { answerArp: false },
      ),
      hostPort: true,
    };
    return {
      ...base,
      kind: "nic",
      config,
      ports: [
        { port: 1, ifname: "eth1", delayNs: link.delayNs },
        // The host kernel's side: no emulated propagation delay inside the server.
        { port: NIC_HOST_PORT, ifname: HOST_NIC_IF, delayNs: 0 },
      ],
    };
  }

  private watch(proc: DeviceProcess): void {
    proc.on("health", (_now, h) => {
      if ((h.timerLateRecentNs ?? 0) > this.windowLateNs) this.windowLateNs = h.timerLateRecentNs ?? 0;
    });
    proc.on("events", (events) => {
      for (const e of events) {
        const stamped: LabEvent = { ...e, device: proc.node };
        this.events.push(stamped);
        if (e.kind === "flow-done" && e.detail !== undefined) this.driver.onFlowDone(Number(e.detail), e.t);
      }
      if (this.events.length > EVENT_RING) this.events.splice(0, this.events.length - EVENT_RING);
      this.server.broadcast(
        "events",
        events.map((e) => ({ ...e, device: proc.node })),
      );
    });
    proc.on("exit", (status, code, signal) => {
      this.clock.gone(proc.node);
      if (this.stopping) return;
      const info: LabEvent = {
        t: this.now(),
        device: proc.node,
        kind: "info",
        detail:
          status === "killed"
            ? "process killed (failure injection)"
            : `process crashed (exit code ${code ?? "none"}, signal ${signal ?? "none"}); see the log in /run/rocelab/${this.lab}/${proc.node}.log`,
      };
      this.events.push(info);
      this.server.broadcast("events", [info]);
      this.recordDevice(proc);
    });
  }

  private recordDevice(d: DeviceProcess): void {
    this.state.devices[d.node] = {
      node: d.node,
      kind: d.kind,
      namespace: d.namespace,
      pid: d.pid,
      status: d.status,
      restarts: d.restarts,
    };
    writeState(this.state);
  }

  status(): LabStatus {
    const now = this.now();
    return {
      lab: this.lab,
      status: this.state.status,
      topology: this.topo.source,
      dilation: this.dilation,
      dilationAuto: this.auto !== null,
      now,
      clock: this.clock.mode,
      behindNs: Math.max(0, this.clock.free() - now),
      devices: [...this.devices.values()].map((d) => ({
        node: d.node,
        kind: d.kind,
        status: d.status,
        pid: d.pid,
        restarts: d.restarts,
        health: d.health,
      })),
      links: this.topo.links.map((l) => ({
        id: l.id,
        a: `${l.a.node}:eth${l.a.port}`,
        b: `${l.b.node}:eth${l.b.port}`,
        up: !this.downLinks.has(l.id),
        rateBps: l.rateBps,
        delayNs: l.delayNs,
      })),
    };
  }

  private device(node: string): DeviceProcess {
    const d = this.devices.get(node);
    if (!d)
      throw new Error(`no node ${node} in lab ${this.lab} (nodes: ${[...this.devices.keys()].join(", ")})`);
    return d;
  }

  async stats(node: string): Promise<{ stats: AnyDeviceStats; health: unknown }> {
    return this.device(node).request({ type: "stats" });
  }

  async allStats(): Promise<Record<string, AnyDeviceStats>> {
    const out: Record<string, AnyDeviceStats> = {};
    await Promise.all(
      [...this.devices.values()]
        .filter((d) => d.status === "running")
        .map(async (d) => {
          try {
            out[d.node] = (await d.request({ type: "stats" })).stats;
          } catch {
            // A device that just died is reported by its status.
          }
        }),
    );
    return out;
  }

  /** The Prometheus endpoint, if asked for; a port in use is reported, not fatal. */
  private async serveMetrics(): Promise<void> {
    const port = this.opts.metricsPort ?? 0;
    if (port === 0) return;
    const r = await serveLabMetrics(port, this.lab, this.topo, () => this.devices.values());
    if (typeof r === "string") this.progress(r);
    else {
      this.metricsServer = r;
      this.progress(`Prometheus metrics on ${r.url}`);
    }
  }

  private async pushSnapshot(): Promise<void> {
    const subscribed = [...this.server.connections].some((c) => c.isSubscribed);
    if (!subscribed) return;
    const stats = await this.allStats();
    this.server.broadcast("snapshot", { ...this.status(), stats });
  }

  private async command(node: string, command: unknown): Promise<unknown> {
    return this.device(node).request({ type: "command", command });
  }

  /**
   * Link down/up. The link state is the devices' (both ends stop sending and ignore what arrives, as in
   * the simulator); the veth itself stays up, because a libpcap handle does not survive its interface
   * losing carrier (the cap binding aborts the process). Routes reconverge after the convergence delay.
   */
  async setLink(node: string, port: number, up: boolean): Promise<void> {
    const attached = linkAt(this.topo, node, port);
    if (!attached) throw new Error(`${node}:eth${port} is not connected`);
    const { link, peer } = attached;
    if (up) this.downLinks.delete(link.id);
    else this.downLinks.add(link.id);
    for (const [n, p] of [
      [node, port],
      [peer.node, peer.port],
    ] as const) {
      this.devices.get(n)?.send({ type: "link", port: p, up });
    }
    const ev: LabEvent = {
      t: this.now(),
      device: node,
      kind: up ? "link-up" : "link-down",
      port,
      detail: `${node}:eth${port} <-> ${peer.node}:eth${peer.port}`,
    };
    this.events.push(ev);
    this.server.broadcast("events", [ev]);
    const routes = computeRoutes(this.topo, this.plan, this.downLinks);
    const delayMs = this.clock.realMsUntil(this.clock.free() + (this.opts.convergenceNs ?? 0));
    setTimeout(() => {
      for (const [name, d] of this.devices) {
        if (d.kind === "switch" && d.status === "running")
          void d
            .request({ type: "command", command: { type: "set-routes", routes: routes.get(name) ?? [] } })
            .catch(() => {});
      }
    }, delayMs);
  }

  kill(node: string): void {
    const d = this.device(node);
    if (d.status !== "running") throw new Error(`${node} is ${d.status}`);
    d.kill();
  }

  async restart(node: string): Promise<void> {
    const d = this.device(node);
    if (d.status === "running" || d.status === "starting")
      throw new Error(`${node} is ${d.status}; kill it first`);
    const routes = computeRoutes(this.topo, this.plan, this.downLinks);
    const fresh = new DeviceProcess(this.lab, node, d.kind, d.namespace, this.initFor(node, routes));
    fresh.restarts = d.restarts + 1;
    this.devices.set(node, fresh);
    this.watch(fresh);
    await fresh.start();
    // A fresh process starts with every port up: tell it which of its links are down.
    for (const l of this.topo.links) {
      if (!this.downLinks.has(l.id)) continue;
      if (l.a.node === node) fresh.send({ type: "link", port: l.a.port, up: false });
      if (l.b.node === node) fresh.send({ type: "link", port: l.b.port, up: false });
    }
    this.recordDevice(fresh);
    const ev: LabEvent = { t: this.now(), device: node, kind: "info", detail: "process restarted" };
    this.events.push(ev);
    this.server.broadcast("events", [ev]);
  }

  private newDriver(): FlowDriver {
    return new FlowDriver(this.plan, {
      command: (host, cmd) => {
        void this.command(host, cmd).catch((e: Error) => {
          const ev: LabEvent = {
            t: this.now(),
            device: host,
            kind: "info",
            detail: `command failed: ${e.message}`,
          };
          this.events.push(ev);
        });
      },
      schedule: (at, fn) => {
        // The lab's clock may run slower than real time (synced clocks on a busy machine): wait again
        // until it is there.
        const wait = (): void => {
          const now = this.now();
          if (now >= at) fn(now);
          else setTimeout(wait, Math.max(1, this.clock.realMsUntil(this.clock.free() + (at - now))));
        };
        wait();
      },
    });
  }

  /** Starts a workload now. Returns its name. */
  /**
   * Starts a workload now. `stream` names its random stream (a scenario run passes the simulator's, so both
   * runtimes draw the same flows).
   */
  startWorkload(spec: WorkloadSpec, stream?: string): { name: string; flows: number } {
    const now = this.now();
    const random = createRandom(this.opts.seed, stream ?? `workload:${spec.name}:${this.workloadCount++}`);
    const flows = generateFlows(spec, now, random, this.driver.newId);
    this.driver.add(flows);
    return { name: spec.name, flows: flows.length };
  }

  /** An N-to-1 incast of RDMA WRITEs, started now. */
  incast(req: IncastRequest): { name: string; flows: number } {
    const all = this.topo.nodes.filter((n) => n.kind === NodeKind.Host).map((n) => n.name);
    return this.startWorkload(incastWorkload(req, all, `incast-${this.workloadCount + 1}`));
  }

  stopTraffic(): void {
    this.udp.stopSenders();
    this.driver.stop("all");
    // A fresh driver: later workloads start from a clean slate (the NICs keep their QPs).
    this.oldDrivers.push(this.driver);
    this.driver = this.newDriver();
  }

  /** Applies switch settings (a profile or explicit values) to every switch, or to some. */
  async configureSwitches(settings: SwitchSettings, only?: readonly string[]): Promise<void> {
    this.settings.push(switchChange(settings, only));
    for (const name of this.settings.switches) {
      if (only && !only.includes(name)) continue;
      // A device that is down (killed, crashed) gets the layered settings when it is restarted (initFor).
      if (this.devices.get(name)?.status !== "running") continue;
      const tunables: Partial<SwitchTunables> = this.settings.switchTunables(name);
      await this.command(name, { type: "configure", tunables });
      this.note(name, `${CONFIG_CHANGED}${JSON.stringify(settings)}`);
    }
  }

  /** An info event of the lab's own (settings changed), kept and pushed like the devices' events. */
  private note(device: string, detail: string): void {
    const ev: LabEvent = { t: this.now(), device, kind: "info", detail };
    this.events.push(ev);
    this.server.broadcast("events", [ev]);
  }

  async configureHosts(settings: NicSettings): Promise<void> {
    this.settings.push(hostChange(settings));
    const configure = this.settings.hostConfigure([settings]);
    for (const [name, d] of this.devices) {
      if (d.kind !== "nic" || d.status !== "running") continue;
      await this.command(name, configure);
      this.note(name, `${CONFIG_CHANGED}${JSON.stringify(settings)}`);
    }
  }

  /** Every flow of every workload so far, with the NICs' completion records. */
  async flowReport(): Promise<FlowReport[]> {
    const records = new Map<string, CompletionRecord[]>();
    for (const [name, s] of Object.entries(await this.allStats())) {
      if (s.kind === "nic") records.set(name, [...s.detail.flows]);
    }
    return [...this.oldDrivers, this.driver].flatMap((d) => d.report(records));
  }

  recentEvents(limit = 200): LabEvent[] {
    return this.events.slice(-limit);
  }

  /** Orderly shutdown: stop the devices, remove everything the lab created. */
  async shutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.state.status = "stopping";
    writeState(this.state);
    if (this.snapshotTimer) clearInterval(this.snapshotTimer);
    if (this.autoTimer) clearInterval(this.autoTimer);
    this.udp.stopAll();
    await this.metricsServer?.close();
    await Promise.all([...this.devices.values()].map((d) => d.stop()));
    await this.server.close();
    await teardown(this.lab);
  }

  /**
   * `--dilation auto`: once a window, compare how far the lab's clock got with what the dilation promises
   * (and, free clocks, how late device timers fired) and change the dilation when auto-dilation.ts says.
   */
  private startAutoDilation(): void {
    let real0 = performance.now();
    let emu0 = this.now();
    this.autoTimer = setInterval(() => {
      const real1 = performance.now();
      const emu1 = this.now();
      const decision = this.auto?.decide({
        mode: this.clock.mode,
        dilation: this.dilation,
        emulatedNs: emu1 - emu0,
        realNs: (real1 - real0) * 1e6,
        worstLateNs: this.windowLateNs,
      });
      this.windowLateNs = 0;
      real0 = real1;
      emu0 = emu1;
      if (decision) this.applyDilation(decision.dilation, `auto: ${decision.reason}`);
    }, AUTO_WINDOW_MS);
    this.autoTimer.unref();
  }

  /** `rocelab dilation N|auto`: a fixed dilation (auto off), or auto from the current one up. */
  private setDilation(d: number | "auto"): { dilation: number; auto: boolean; at: number } {
    if (d === "auto") {
      this.auto = new AutoDilation(this.clock.initialDilation, this.lateBudgetNs);
      return { dilation: this.dilation, auto: true, at: this.now() };
    }
    if (!(d >= MIN_DILATION && d <= MAX_DILATION))
      throw new Error(`dilation must be between ${MIN_DILATION} and ${MAX_DILATION}, not ${d}`);
    this.auto = null;
    const at = this.applyDilation(d, "set by the operator");
    return { dilation: d, auto: false, at };
  }

  private applyDilation(d: number, why: string): number {
    const before = this.dilation;
    const at = this.clock.setDilation(d);
    const ev: LabEvent = {
      t: at,
      device: "lab",
      kind: "info",
      value: d,
      detail: `dilation ${before} -> ${d} (${why})`,
    };
    this.events.push(ev);
    this.server.broadcast("events", [ev]);
    return at;
  }

  private async handle(op: string, args: unknown, conn: ControlConnection): Promise<unknown> {
    const a = (args ?? {}) as Record<string, unknown>;
    switch (op) {
      case "status":
        return this.status();
      case "subscribe":
        conn.subscribe();
        return { ...this.status(), events: this.recentEvents(), progress: this.progressLog };
      case "snapshot":
        return {
          ...this.status(),
          stats: await this.allStats(),
          events: this.recentEvents(),
        } satisfies Snapshot;
      case "stats":
        return this.stats(String(a.node));
      case "command":
        return this.command(String(a.node), a.command);
      case "link":
        await this.setLink(String(a.node), Number(a.port), Boolean(a.up));
        return { ok: true };
      case "kill":
        this.kill(String(a.node));
        return { ok: true };
      case "restart":
        await this.restart(String(a.node));
        return { ok: true };
      case "topology":
        return topologyView(this.topo, (id) => this.downLinks.has(id));
      case "workload":
        return this.startWorkload(a.spec as WorkloadSpec, a.stream as string | undefined);
      case "stop-workloads":
        this.driver.stop(a.names as string[]);
        return { ok: true };
      case "flows":
        return this.flowReport();
      case "incast":
        return this.incast(a as unknown as IncastRequest);
      case "udp":
        this.udp.start(a as unknown as UdpRequest);
        return { ok: true };
      case "stop-traffic":
        this.stopTraffic();
        return { ok: true };
      case "configure-switches":
        await this.configureSwitches(a.settings as SwitchSettings, a.only as string[] | undefined);
        return { ok: true };
      case "configure-hosts":
        await this.configureHosts(a.settings as NicSettings);
        return { ok: true };
      case "events":
        return this.recentEvents(Number(a.limit ?? 200));
      case "udp-stats":
        return this.udp.stats();
      case "dilation":
        return this.setDilation(a.dilation === "auto" ? "auto" : Number(a.dilation));
      case "switch-config": {
        // A switch's configuration as the lab gave it (a controller reads its hash settings from it).
        const node = String(a.node);
        if (!this.settings.switches.includes(node)) throw new Error(`${node} is not a switch`);
        return buildSwitchConfig(this.topo, this.plan, [], node, this.settings.switchTunables(node));
      }
      case "down":
        // Answer first, then go: the client waits for the state directory to disappear.
        setTimeout(() => void this.shutdown().then(() => process.exit(0)), 10);
        return { ok: true };
      default:
        throw new Error(`unknown request "${op}"`);
    }
  }
}
