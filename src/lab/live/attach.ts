// `rocelab attach`: a lab whose devices something else started — containerlab, Kubernetes, the device
// entrypoint by hand (device-entry.ts) — driven by the same fleet as a lab the supervisor spawns
// (device-fleet.ts): stats, commands, link state and reconvergence, settings, workloads, events,
// snapshots, captures (the device's own tcpdump) and Prometheus metrics, through the same control socket,
// so `rocelab status|stats|inject|events|capture --name NAME` work unchanged. What needs the devices'
// processes or namespaces here (kill and restart, kernel UDP and trace from host namespaces, the dilation
// of clocks it does not own) is refused with the reason. Stopping the attachment leaves the devices running.

import { rmSync } from "node:fs";
import type { MetricsServer } from "../../metrics/prometheus.js";
import type { ActionOf } from "../../scenario/action.js";
import { planAddresses } from "../../scenario/address-plan.js";
import { SettingsLayers, switchChange } from "../../scenario/settings-layers.js";
import type { Topology } from "../../scenario/topology.js";
import { ClockMode } from "./clock-plan.js";
import { ControlServer } from "./control.js";
import { DeviceFleet, type FleetClock } from "./device-fleet.js";
import { labIntBytes, liveSlack } from "./device-inits.js";
import type { Endpoints } from "./endpoints-file.js";
import { handleLabRequest } from "./lab-requests.js";
import { enterRunning } from "./lab-running.js";
import type { LabService } from "./lab-service.js";
import type { LabStatus } from "./lab-status.js";
import type { MetricsSettings } from "./metrics-endpoint.js";
import { controlSocketPath, labDir } from "./names.js";
import { keepLogs } from "./provision.js";
import { RemoteDevice } from "./remote-device.js";
import { type LabState, writeState } from "./state.js";

/**
 * The clock of an attached fabric: its fixed dilation, anchored at the emulated time the first device
 * said it had (devices that share an epoch, epochUnixNs in their files, then agree with it within their
 * hosts' clock error divided by the dilation).
 */
export class AttachClock implements FleetClock {
  readonly mode = ClockMode.Free;
  private anchorEmu = 0;
  private anchorReal = process.hrtime.bigint();

  constructor(readonly dilation: number) {}

  /** Takes `now`, a device's emulated time at `at` (process.hrtime.bigint()), as the lab's. */
  anchor(now: number, at: bigint): void {
    this.anchorEmu = now;
    this.anchorReal = at;
  }

  now(): number {
    return this.anchorEmu + Number(process.hrtime.bigint() - this.anchorReal) / this.dilation;
  }

  free(): number {
    return this.now();
  }

  realMsUntil(at: number): number {
    return ((at - this.now()) * this.dilation) / 1e6;
  }

  gone(): void {}
}

const NOT_HERE = "the attached devices were not started by rocelab";

export class AttachedLab implements LabService {
  readonly topo: Topology;
  readonly fleet: DeviceFleet;
  private readonly clock: AttachClock;
  readonly server: ControlServer;
  private readonly steps: string[] = [];
  readonly state: LabState;
  private metricsServer: MetricsServer | null = null;
  private stopping = false;

  constructor(
    readonly lab: string,
    private readonly endpoints: Endpoints,
    private readonly metrics: MetricsSettings | null = null,
  ) {
    this.topo = endpoints.topology;
    this.clock = new AttachClock(endpoints.dilation);
    this.server = new ControlServer(controlSocketPath(lab), (op, args, conn) =>
      handleLabRequest(this, op, args, conn),
    );
    const plan = planAddresses(this.topo);
    // The layers the device files were written with (device-file.ts): later settings stack on them.
    const settings = new SettingsLayers(
      this.topo,
      switchChange(liveSlack(endpoints.dilation, endpoints.reactionMs)),
    );
    this.fleet = new DeviceFleet({
      lab,
      topo: this.topo,
      plan,
      seed: 1,
      convergenceNs: 0,
      clock: this.clock,
      settings,
      intRoomBytes: labIntBytes(this.topo, plan, settings),
      broadcast: (push, data) => this.server.broadcast(push, data),
      onDeviceChange: () => this.record(),
    });
    this.state = {
      lab,
      createdAt: new Date().toISOString(),
      topology: this.topo.source,
      dilation: endpoints.dilation,
      epoch: "0",
      namespaces: [],
      supervisorPid: process.pid,
      status: "starting",
      devices: {},
      helpers: [],
      attached: endpoints.file,
    };
  }

  progressLog(): readonly string[] {
    return this.steps;
  }

  progress(step: string): void {
    this.steps.push(step);
    this.server.broadcast("progress", step);
  }

  private record(): void {
    for (const d of this.fleet.devices.values())
      this.state.devices[d.node] = {
        node: d.node,
        kind: d.kind,
        namespace: "",
        pid: d.pid,
        status: d.status,
        restarts: 0,
      };
    writeState(this.state);
  }

  async start(): Promise<void> {
    writeState(this.state);
    await this.server.listen();
    try {
      const e = this.endpoints;
      this.progress(
        `connecting to ${e.devices.length} devices (${e.file}; up to ${e.connectTimeoutMs / 1000} s)`,
      );
      const devices = e.devices.map(
        (d) =>
          new RemoteDevice({
            lab: this.lab,
            node: d.node,
            kind: d.kind,
            endpoint: d.endpoint,
            token: d.token,
            dilation: e.dilation,
            reactionMs: e.reactionMs,
            ...(e.lab !== undefined ? { expectLab: e.lab } : {}),
          }),
      );
      for (const d of devices) this.fleet.add(d);
      const results = await Promise.allSettled(devices.map((d) => d.connect(e.connectTimeoutMs)));
      const failed = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as Error).message] : []));
      if (failed.length > 0) throw new Error(`cannot attach: ${failed.join("; ")}`);
      const first = devices.find((d) => d.identity !== null)!;
      this.clock.anchor(first.identity!.now, first.identityAt);
      this.record();
      this.metricsServer = await enterRunning(this, this.metrics);
    } catch (err) {
      this.state.status = "failed";
      writeState(this.state);
      this.progress(`failed: ${(err as Error).message}`);
      throw err;
    }
  }

  status(): LabStatus {
    return {
      lab: this.lab,
      status: this.state.status,
      topology: this.topo.source,
      dilation: this.clock.dilation,
      dilationAuto: false,
      now: this.clock.now(),
      clock: this.clock.mode,
      behindNs: 0,
      devices: this.fleet.deviceViews(),
      links: this.fleet.linkViews(),
      attached: this.endpoints.file,
      ...(this.metricsServer !== null ? { metrics: this.metricsServer.url } : {}),
    };
  }

  kill(node: string): void {
    this.fleet.get(node);
    throw new Error(`${node}: ${NOT_HERE}; stop it with the engine that started it (containerlab, kubectl)`);
  }

  async restart(node: string): Promise<void> {
    this.fleet.get(node);
    throw new Error(
      `${node}: ${NOT_HERE}; restart it with the engine that started it (docker restart, kubectl delete pod)`,
    );
  }

  udp(_req: ActionOf<"udp">): void {
    throw new Error(
      `kernel UDP runs in the hosts' namespaces, which an attached lab cannot enter: ${NOT_HERE}`,
    );
  }

  udpStats(): unknown {
    return {};
  }

  stopTraffic(): void {
    this.fleet.traffic.stopAll();
  }

  setDilation(): never {
    throw new Error(
      `the dilation of an attached fabric is fixed in its device files (dilation ${this.clock.dilation}); write them again with another --dilation and redeploy`,
    );
  }

  hold(): boolean {
    return false;
  }

  down(): void {
    setTimeout(() => void this.shutdown().then(() => process.exit(0)), 10);
  }

  /**
   * Closes every device connection and the control socket; the devices run on. `abnormal`: the
   * attachment's log is kept (provision.ts keepLogs).
   */
  async shutdown(abnormal = false): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.state.status = "stopping";
    writeState(this.state);
    await this.metricsServer?.close();
    await this.fleet.stop();
    await this.server.close();
    if (abnormal) keepLogs(this.lab);
    rmSync(labDir(this.lab), { recursive: true, force: true });
  }
}
