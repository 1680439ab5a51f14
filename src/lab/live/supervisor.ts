// The supervisor of a live lab: creates the lab's namespaces and links (provision.ts), spawns one device
// process per node inside them (device-process.ts) and answers the lab's control socket. What it does
// with the devices once they run — stats, commands, link state, settings, workloads, snapshots — is the
// fleet's (device-fleet.ts), shared with `rocelab attach`; the dilation of its clocks is
// dilation-control.ts's; the Prometheus endpoint metrics-endpoint.ts's.

import type { MetricsServer } from "../../metrics/prometheus.js";
import type { InitMessage } from "../../runtime/realtime/protocol.js";
import type { ActionOf } from "../../scenario/action.js";
import { type AddressPlan, planAddresses } from "../../scenario/address-plan.js";
import { SettingsLayers, switchChange } from "../../scenario/settings-layers.js";
import type { Topology } from "../../scenario/topology.js";
import type { Route } from "../../switch/config.js";
import { ClockMode } from "./clock-plan.js";
import { ControlServer } from "./control.js";
import type { DeviceConnection } from "./device-connection.js";
import { DeviceFleet } from "./device-fleet.js";
import { deviceSetup, labIntBytes, lateBudgetNs, liveSlack } from "./device-inits.js";
import { DeviceProcess, labDevicePrivileges } from "./device-process.js";
import { DilationControl } from "./dilation-control.js";
import { LabClock } from "./lab-clock.js";
import { handleLabRequest } from "./lab-requests.js";
import { enterRunning } from "./lab-running.js";
import type { LabService } from "./lab-service.js";
import type { LabStatus } from "./lab-status.js";
import type { MetricsSettings } from "./metrics-endpoint.js";
import { controlSocketPath, nsName } from "./names.js";
import { interfaceMtu, provision, resolveNeighbours, teardown } from "./provision.js";
import { startConcurrency, startLimited } from "./start-waves.js";
import { type LabState, writeState } from "./state.js";
import { UdpHelpers } from "./udp-helpers.js";

export { LIVE_REACTION_MS } from "./device-inits.js";
export type { DeviceView, LabStatus, Snapshot } from "./lab-status.js";

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
  /** Serve Prometheus /metrics on 127.0.0.1 (null or absent: no endpoint). */
  readonly metrics?: MetricsSettings | null;
  /** Bytes of INT per data packet the ports must take beyond what the lab's own settings need. */
  readonly intRoomBytes?: number;
}

export class Supervisor implements LabService {
  readonly lab: string;
  readonly topo: Topology;
  readonly plan: AddressPlan;
  readonly fleet: DeviceFleet;
  private readonly clock: LabClock;
  private readonly dilationControl: DilationControl;
  private readonly settings: SettingsLayers;
  /** Bytes of INT per data packet its ports have room for (the hosts' settings at start). */
  private readonly intRoomBytes: number;
  private readonly progressSteps: string[] = [];
  readonly server: ControlServer;
  readonly state: LabState;
  private stopping = false;
  private readonly udpHelpers: UdpHelpers;
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
    this.settings = new SettingsLayers(
      this.topo,
      switchChange(liveSlack(opts.dilation, undefined, opts.clock ?? ClockMode.Free)),
    );
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
      handleLabRequest(this, op, args, conn),
    );
    this.intRoomBytes = Math.max(opts.intRoomBytes ?? 0, labIntBytes(this.topo, this.plan, this.settings));
    this.fleet = new DeviceFleet({
      lab: this.lab,
      topo: this.topo,
      intRoomBytes: this.intRoomBytes,
      plan: this.plan,
      seed: opts.seed,
      convergenceNs: opts.convergenceNs ?? 0,
      clock: this.clock,
      settings: this.settings,
      broadcast: (push, data) => this.server.broadcast(push, data),
      onDeviceChange: (d) => this.recordDevice(d),
    });
    this.dilationControl = new DilationControl(
      this.clock,
      lateBudgetNs(opts.dilation),
      opts.autoDilation ?? false,
      () => this.fleet.takeWorstLate(),
      (ev) => this.fleet.record(ev),
    );
    this.udpHelpers = new UdpHelpers(
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

  progressLog(): readonly string[] {
    return this.progressSteps;
  }

  progress(step: string): void {
    this.progressSteps.push(step);
    this.server.broadcast("progress", step);
  }

  async start(): Promise<void> {
    writeState(this.state);
    await this.server.listen();
    try {
      const mtu = interfaceMtu(this.topo.mtu, this.intRoomBytes);
      await provision(this.lab, this.topo, this.plan, (s) => this.progress(s), mtu);
      this.state.status = "starting";
      writeState(this.state);
      this.clock.create();
      const privileges = await labDevicePrivileges();
      this.progress(
        `device processes run as ${privileges.user}${privileges.note !== undefined ? `: ${privileges.note}` : ""}`,
      );
      this.progress(
        `starting ${this.topo.nodes.length} device processes (dilation ${this.dilation}, ${this.clock.mode} clocks)`,
      );
      const routes = this.fleet.routes();
      const started: DeviceProcess[] = [];
      for (const n of this.topo.nodes) {
        const proc = this.spawnFor(n.name, routes);
        started.push(proc);
        this.fleet.add(proc);
      }
      await startLimited(started, startConcurrency(), (d) => d.start());
      for (const d of started) this.recordDevice(d);
      this.progress(`resolving neighbours (hosts ping their leaf)`);
      await resolveNeighbours(this.lab, this.topo, this.plan);
      this.metricsServer = await enterRunning(this, this.opts.metrics ?? null);
      this.dilationControl.start();
    } catch (e) {
      this.state.status = "failed";
      writeState(this.state);
      this.progress(`failed: ${(e as Error).message}`);
      throw e;
    }
  }

  /** A device process for `node`, not started yet. */
  private spawnFor(node: string, routes: Map<string, Route[]>): DeviceProcess {
    const setup = deviceSetup(this.topo, this.plan, this.settings, node, routes.get(node) ?? []);
    const init: InitMessage = {
      type: "init",
      lab: this.lab,
      node,
      ...setup,
      epoch: this.clock.epoch.toString(),
      // Ring sizes follow the dilation the lab starts with (auto only raises it, which slows the ports).
      dilation: this.clock.initialDilation,
      dilationTable: this.clock.dilationFor(),
      seed: this.opts.seed,
      ...(this.clock.mode === ClockMode.Synced ? { sync: this.clock.syncFor(node)! } : {}),
    };
    return new DeviceProcess(this.lab, node, setup.kind, nsName(this.lab, node), init);
  }

  private recordDevice(d: DeviceConnection): void {
    this.state.devices[d.node] = {
      node: d.node,
      kind: d.kind,
      namespace: nsName(this.lab, d.node),
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
      dilationAuto: this.dilationControl.isAuto,
      now,
      clock: this.clock.mode,
      behindNs: Math.max(0, this.clock.free() - now),
      devices: this.fleet.deviceViews(),
      links: this.fleet.linkViews(),
      ...(this.metricsServer !== null ? { metrics: this.metricsServer.url } : {}),
    };
  }

  private process(node: string): DeviceProcess {
    const d = this.fleet.get(node);
    if (!(d instanceof DeviceProcess)) throw new Error(`${node} is not a process of lab ${this.lab}`);
    return d;
  }

  kill(node: string): void {
    const d = this.process(node);
    if (d.status !== "running") throw new Error(`${node} is ${d.status}`);
    d.kill();
  }

  async restart(node: string): Promise<void> {
    const d = this.process(node);
    if (d.status === "running" || d.status === "starting")
      throw new Error(`${node} is ${d.status}; kill it first`);
    const fresh = this.spawnFor(node, this.fleet.routes());
    fresh.restarts = d.restarts + 1;
    this.fleet.add(fresh);
    await fresh.start();
    this.fleet.restoreLinks(fresh);
    this.recordDevice(fresh);
    this.fleet.note(node, "process restarted");
  }

  udp(req: ActionOf<"udp">): Promise<void> {
    return this.udpHelpers.start(req);
  }

  udpStats(): unknown {
    return this.udpHelpers.stats();
  }

  stopTraffic(): void {
    this.udpHelpers.stopSenders();
    this.fleet.traffic.stopAll();
  }

  setDilation(d: number | "auto"): { dilation: number; auto: boolean; at: number } {
    return this.dilationControl.set(d);
  }

  hold(at: number): boolean {
    return this.clock.hold(at);
  }

  down(): void {
    // Answer first, then go: the client waits for the state directory to disappear.
    setTimeout(() => void this.shutdown().then(() => process.exit(0)), 10);
  }

  /**
   * Shutdown: stop the devices, remove everything the lab created. `abnormal` (a failed start, an
   * uncaught error): the lab's logs are kept (provision.ts keepLogs).
   */
  async shutdown(abnormal = false): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.state.status = "stopping";
    writeState(this.state);
    this.dilationControl.stop();
    this.udpHelpers.stopAll();
    await this.metricsServer?.close();
    await this.fleet.stop();
    await this.server.close();
    await teardown(this.lab, () => {}, { keepLogs: abnormal });
  }
}
