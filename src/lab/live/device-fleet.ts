// The devices of a running lab and what the lab does with them, however they were started: events and
// health from each, stats and commands to each, link state and route reconvergence, settings layers,
// workloads, and pushed snapshots. The supervisor (supervisor.ts) adds the devices it spawns; `rocelab
// attach` (attach.ts) the devices it connects to. Devices are reached only through DeviceConnection.

import { createWriteStream } from "node:fs";
import type { NicCommand } from "../../nic/commands.js";
import type { FrameTimes } from "../../runtime/realtime/frame-times.js";
import { openNewFile, PRIVATE_FILE_MODE } from "../../runtime/realtime/safe-files.js";
import type { AddressPlan } from "../../scenario/address-plan.js";
import { computeRoutes } from "../../scenario/routing.js";
import type { NicSettings, SwitchSettings } from "../../scenario/schema.js";
import { hostChange, SettingsLayers, switchChange } from "../../scenario/settings-layers.js";
import { RuntimeRoutes } from "../../scenario/static-routes.js";
import { buildSwitchConfig } from "../../scenario/switch-config.js";
import { linkAt, type Topology } from "../../scenario/topology.js";
import type { SwitchTunables } from "../../switch/config.js";
import type { AnyDeviceStats } from "../device-stats.js";
import { CONFIG_CHANGED } from "../event-stream.js";
import { feedFlowEvent } from "../flow-driver.js";
import type { FlowReport } from "../flow-report.js";
import type { LabEvent, LinkView } from "../lab.js";
import type { ClockMode } from "./clock-plan.js";
import type { DeviceConnection } from "./device-connection.js";
import { labIntBytes } from "./device-inits.js";
import { AHEAD_REAL_MS, FleetTraffic } from "./fleet-traffic.js";
import type { DeviceView } from "./lab-status.js";

/** How many telemetry events the lab keeps for clients. */
const EVENT_RING = 2000;
/** Snapshot push interval to subscribed clients, real ms. */
const SNAPSHOT_MS = 500;
/** Bytes kept of each captured frame (a full jumbo frame). */
const CAPTURE_SNAPLEN = 65535;

/** The lab's clock as the fleet needs it (lab-clock.ts for spawned devices, attach.ts's for attached). */
export interface FleetClock {
  readonly mode: ClockMode;
  /** The dilation in force now. */
  readonly dilation: number;
  /** The lab's emulated now. */
  now(): number;
  /** Emulated ns of the dilated real clock alone. */
  free(): number;
  /** Real ms until the dilated real clock reaches emulated `at`. */
  realMsUntil(at: number): number;
  /** A device stopped answering (synced clocks stop waiting for it). */
  gone(node: string): void;
}

export interface FleetOptions {
  readonly lab: string;
  readonly topo: Topology;
  readonly plan: AddressPlan;
  readonly seed: number;
  /** Emulated time routes take to converge after a link change. */
  readonly convergenceNs: number;
  readonly clock: FleetClock;
  readonly settings: SettingsLayers;
  /** Bytes of INT per data packet the lab's ports were given room for (device-inits.ts labInterfaceMtu). */
  readonly intRoomBytes: number;
  /** Pushes a message to every subscribed client of the lab's control socket. */
  readonly broadcast: (push: string, data: unknown) => void;
  /** A device's status or process changed (the supervisor records it in the lab's state file). */
  readonly onDeviceChange?: (d: DeviceConnection) => void;
}

export class DeviceFleet {
  readonly devices = new Map<string, DeviceConnection>();
  readonly downLinks = new Set<number>();
  /** Static routes added while the lab runs (`rocelab inject route`, a scenario's `inject: { route }`). */
  private readonly runtimeRoutes: RuntimeRoutes;
  readonly traffic: FleetTraffic;
  private readonly events: LabEvent[] = [];
  /** Latest device timer lateness reported since `takeWorstLate`, emulated ns. */
  private worstLateNs = 0;
  private snapshotTimer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly opts: FleetOptions) {
    this.runtimeRoutes = new RuntimeRoutes(opts.topo);
    this.traffic = new FleetTraffic(opts.topo, opts.plan, opts.seed, {
      now: () => opts.clock.now(),
      realMsUntilIn: (ns) => opts.clock.realMsUntil(opts.clock.free() + ns),
      aheadNs: () => (AHEAD_REAL_MS * 1e6) / opts.clock.dilation,
      command: (host, cmd) => this.commandOrNote(host, cmd),
      lab: {
        status: (node) => this.devices.get(node)?.status ?? "stopped",
        linkDown: (id) => this.downLinks.has(id),
      },
    });
  }

  /** Adds (or replaces) a device and follows its events, health and exit. */
  add(d: DeviceConnection): void {
    this.devices.set(d.node, d);
    d.on("health", (_now, h) => {
      if ((h.timerLateRecentNs ?? 0) > this.worstLateNs) this.worstLateNs = h.timerLateRecentNs ?? 0;
    });
    d.on("events", (events) => {
      const stamped = events.map((e): LabEvent => ({ ...e, device: d.node }));
      for (const e of stamped) {
        this.events.push(e);
        feedFlowEvent(this.traffic, e);
      }
      if (this.events.length > EVENT_RING) this.events.splice(0, this.events.length - EVENT_RING);
      this.opts.broadcast("events", stamped);
    });
    d.on("note", (detail) => this.note(d.node, detail));
    d.on("exit", (status, code, signal) => {
      this.opts.clock.gone(d.node);
      if (this.stopping) return;
      this.record({
        t: this.opts.clock.now(),
        device: d.node,
        kind: "info",
        detail: d.exitDetail(status, code, signal),
      });
      this.opts.onDeviceChange?.(d);
    });
  }

  /** The device `node`; an unknown name is an error that lists the lab's nodes. */
  get(node: string): DeviceConnection {
    const d = this.devices.get(node);
    if (!d)
      throw new Error(
        `no node ${node} in lab ${this.opts.lab} (nodes: ${[...this.devices.keys()].join(", ")})`,
      );
    return d;
  }

  /** The latest device timer lateness since the last call (auto-dilation's window), emulated ns. */
  takeWorstLate(): number {
    const w = this.worstLateNs;
    this.worstLateNs = 0;
    return w;
  }

  deviceViews(): DeviceView[] {
    return [...this.devices.values()].map((d) => ({
      node: d.node,
      kind: d.kind,
      status: d.status,
      pid: d.pid,
      restarts: d.restarts,
      health: d.health,
      ...(d.endpoint !== undefined ? { endpoint: d.endpoint } : {}),
    }));
  }

  linkViews(): LinkView[] {
    return this.opts.topo.links.map((l) => ({
      id: l.id,
      a: `${l.a.node}:eth${l.a.port}`,
      b: `${l.b.node}:eth${l.b.port}`,
      up: !this.downLinks.has(l.id),
      rateBps: l.rateBps,
      delayNs: l.delayNs,
    }));
  }

  stats(node: string): Promise<{ stats: AnyDeviceStats; health: unknown }> {
    return this.get(node).request({ type: "stats" });
  }

  /** The devices whose processes are running now. */
  running(): DeviceConnection[] {
    return [...this.devices.values()].filter((d) => d.status === "running");
  }

  /**
   * `ask` of every running device at once, the answers by name; a device that dies meanwhile is left out
   * (its status says so).
   */
  async askRunning<T>(ask: (d: DeviceConnection) => Promise<T>): Promise<Record<string, T>> {
    const out: Record<string, T> = {};
    await Promise.all(
      this.running().map(async (d) => {
        try {
          out[d.node] = await ask(d);
        } catch {
          // A device that just died is reported by its status.
        }
      }),
    );
    return out;
  }

  /** Every running device's stats. */
  allStats(): Promise<Record<string, AnyDeviceStats>> {
    return this.askRunning(async (d) => (await d.request({ type: "stats" })).stats);
  }

  command(node: string, command: unknown): Promise<unknown> {
    return this.get(node).request({ type: "command", command });
  }

  /** A workload's command to a NIC: fire and forget, a failure goes to the event log. */
  private commandOrNote(host: string, cmd: NicCommand): void {
    void this.command(host, cmd).catch((e: Error) => this.note(host, `command failed: ${e.message}`));
  }

  /**
   * Link down/up. The link state is the devices' (both ends stop sending and ignore what arrives, as in
   * the simulator); the interface itself stays up, because a libpcap handle does not survive its
   * interface losing carrier (the cap binding aborts the process). Routes reconverge after the
   * convergence delay.
   */
  setLink(node: string, port: number, up: boolean): void {
    const attached = linkAt(this.opts.topo, node, port);
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
    this.record({
      t: this.opts.clock.now(),
      device: node,
      kind: up ? "link-up" : "link-down",
      port,
      detail: `${node}:eth${port} <-> ${peer.node}:eth${peer.port}`,
    });
    const routes = this.routes();
    const clock = this.opts.clock;
    const delayMs = clock.realMsUntil(clock.free() + this.opts.convergenceNs);
    setTimeout(() => void this.installRoutes(routes), delayMs);
  }

  /**
   * Adds (via: ethN) or withdraws (via: null) a static route on a switch, at once (an operator's static
   * route has no convergence delay); resolves when every running switch has its new routes.
   */
  async setStaticRoute(node: string, to: string, via: string | null): Promise<void> {
    if (via === null) {
      if (!this.runtimeRoutes.withdraw(node, to)) throw new Error(`${node} has no added route to ${to}`);
    } else this.runtimeRoutes.add(node, { to, via });
    this.record({
      t: this.opts.clock.now(),
      device: node,
      kind: "info",
      detail: via === null ? `static route to ${to} withdrawn` : `static route to ${to} via ${via}`,
    });
    await this.installRoutes(this.routes());
  }

  private async installRoutes(routes: ReturnType<typeof computeRoutes>): Promise<void> {
    await Promise.all(
      [...this.devices]
        .filter(([, d]) => d.kind === "switch" && d.status === "running")
        .map(([name, d]) =>
          d
            .request({ type: "command", command: { type: "set-routes", routes: routes.get(name) ?? [] } })
            .catch(() => {}),
        ),
    );
  }

  /** The routes of every switch with the links that are down now and the static routes added at run time. */
  routes(): ReturnType<typeof computeRoutes> {
    return computeRoutes(this.opts.topo, this.opts.plan, this.downLinks, this.runtimeRoutes);
  }

  /** A device that starts afresh has every port up: tells it which of its links are down. */
  restoreLinks(d: DeviceConnection): void {
    for (const l of this.opts.topo.links) {
      if (!this.downLinks.has(l.id)) continue;
      if (l.a.node === d.node) d.send({ type: "link", port: l.a.port, up: false });
      if (l.b.node === d.node) d.send({ type: "link", port: l.b.port, up: false });
    }
  }

  /** Applies switch settings (a profile or explicit values) to every switch, or to some. */
  async configureSwitches(settings: SwitchSettings, only?: readonly string[]): Promise<void> {
    const layers = this.opts.settings;
    layers.push(switchChange(settings, only));
    for (const name of layers.switches) {
      if (only && !only.includes(name)) continue;
      // A device that is down (killed, crashed) gets the layered settings when it is restarted.
      if (this.devices.get(name)?.status !== "running") continue;
      const tunables: Partial<SwitchTunables> = layers.switchTunables(name);
      await this.command(name, { type: "configure", tunables });
      this.note(name, `${CONFIG_CHANGED}${JSON.stringify(settings)}`);
    }
  }

  async configureHosts(settings: NicSettings): Promise<void> {
    const layers = this.opts.settings;
    // A congestion control that puts a bigger INT block in data packets than the ports were sized for at
    // start would have every full-size data frame refused by the kernel: refuse the change instead.
    const after = new SettingsLayers(this.opts.topo, hostChange(layers.hostSettings()), hostChange(settings));
    const need = labIntBytes(this.opts.topo, this.opts.plan, after);
    if (need > this.opts.intRoomBytes)
      throw new Error(
        `the hosts' data packets would carry ${need} bytes of INT, but the lab's ports were given room for ${this.opts.intRoomBytes} when it came up (a live scenario run sizes them for its overrides and timeline; \`rocelab up --int-room\` sizes them for HPCC up front; docs/int.md)`,
      );
    layers.push(hostChange(settings));
    const configure = layers.hostConfigure([settings]);
    for (const [name, d] of this.devices) {
      if (d.kind !== "nic" || d.status !== "running") continue;
      await this.command(name, configure);
      this.note(name, `${CONFIG_CHANGED}${JSON.stringify(settings)}`);
    }
  }

  /** A switch's configuration as the lab gave it (a controller reads its hash settings from it). */
  switchConfig(node: string): unknown {
    const layers = this.opts.settings;
    if (!layers.switches.includes(node)) throw new Error(`${node} is not a switch`);
    return buildSwitchConfig(this.opts.topo, this.opts.plan, [], node, layers.switchTunables(node));
  }

  /**
   * The device's own capture of `node:eth<port>` for `seconds` real (it runs tcpdump in its namespace),
   * written to `file` (pcap), created new (safe-files.ts: never through a link; `force` replaces a file
   * there). What `rocelab capture` does for a device whose namespace is not here.
   */
  async capture(
    node: string,
    port: number,
    seconds: number,
    file: string,
    output: { force: boolean; mode: number } = { force: false, mode: PRIVATE_FILE_MODE },
  ): Promise<{ frames: number; bytes: number }> {
    if (!linkAt(this.opts.topo, node, port)) throw new Error(`${node}:eth${port} is not connected`);
    const d = this.get(node);
    const out = createWriteStream("", { fd: openNewFile(file, { ...output, flag: "-w" }) });
    try {
      return await d.capture(port, seconds, CAPTURE_SNAPLEN, (chunk) => out.write(chunk));
    } finally {
      await new Promise<void>((done) => out.end(done));
    }
  }

  /**
   * Starts (`on`) or stops recording the emulated time of every frame on `node:eth<port>`
   * (runtime/realtime/frame-times.ts); a stop returns them.
   */
  async frameTimes(node: string, port: number, on: boolean): Promise<FrameTimes | null> {
    if (!linkAt(this.opts.topo, node, port)) throw new Error(`${node}:eth${port} is not connected`);
    const r = (await this.get(node).request({ type: "frame-times", port, on })) as
      | ({ ok: true } & Partial<FrameTimes>)
      | { ok: false; error: string };
    if (!r.ok) throw new Error(`${node}: ${r.error}`);
    return on ? null : { frames: r.frames ?? [], truncated: r.truncated ?? false };
  }

  async flowReport(): Promise<FlowReport[]> {
    return this.traffic.report(await this.allStats());
  }

  /** An event of the lab's own, kept and pushed like the devices' events. */
  record(ev: LabEvent): void {
    this.events.push(ev);
    // The same bound as the devices' events: a long run of lab events must not grow without end.
    if (this.events.length > EVENT_RING) this.events.splice(0, this.events.length - EVENT_RING);
    this.opts.broadcast("events", [ev]);
  }

  /** An info event (settings changed, a device reconnected). */
  note(device: string, detail: string): void {
    this.record({ t: this.opts.clock.now(), device, kind: "info", detail });
  }

  recentEvents(limit = 200): LabEvent[] {
    return this.events.slice(-limit);
  }

  /** Pushes `snapshot()` to subscribed clients every SNAPSHOT_MS while `subscribed()` says anyone listens. */
  startSnapshots(
    subscribed: () => boolean,
    snapshot: (stats: Record<string, AnyDeviceStats>) => unknown,
  ): void {
    this.snapshotTimer = setInterval(() => {
      if (!subscribed()) return;
      void this.allStats().then((stats) => this.opts.broadcast("snapshot", snapshot(stats)));
    }, SNAPSHOT_MS);
  }

  /** Stops the snapshots and every device (what stopping means is the device's: a process, a connection). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.snapshotTimer) clearInterval(this.snapshotTimer);
    await Promise.all([...this.devices.values()].map((d) => d.stop()));
  }
}
