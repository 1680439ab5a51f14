// Builds a whole fabric inside the simulator from a topology: one switch core per switch node, one device
// per host (made by the caller's factory: the RDMA NIC in scenarios, simpler devices in unit tests), and a
// link per topology link. Keeps the routing in step with link failures, as a routing protocol would.

import type { Device, DeviceEnv } from "../../device/contract.js";
import type { NicStats } from "../../nic/stats-types.js";
import { type SimLink, Simulator } from "../../runtime/sim/simulator.js";
import { type AddressPlan, type PortAddress, planAddresses, portKey } from "../../scenario/address-plan.js";
import { computeRoutes } from "../../scenario/routing.js";
import { type SettingsChange, SettingsLayers } from "../../scenario/settings-layers.js";
import { RuntimeRoutes } from "../../scenario/static-routes.js";
import { buildSwitchConfig } from "../../scenario/switch-config.js";
import { NodeKind, type TopoLink, type Topology } from "../../scenario/topology.js";
import type { Route } from "../../switch/config.js";
import { Switch } from "../../switch/switch.js";
import { GhostDevice } from "./ghost-device.js";

/** A host device: a NIC (or anything that reports as one). */
export type HostDevice = Device<unknown, unknown, NicStats>;
export type HostFactory = (host: string, address: PortAddress, link: TopoLink, env: DeviceEnv) => HostDevice;

export interface SimFabricOptions {
  readonly seed?: number | string;
  /** The lab's settings layers above the topology (scenario overrides and later changes); none by default. */
  readonly settings?: SettingsLayers;
  /** Emulated time the fabric takes to converge after a link change before new routes are installed. */
  readonly convergenceNs?: number;
  /** When the devices start (Simulator's `startNs`): before 0 for a scenario's bring-up; 0 by default. */
  readonly startNs?: number;
  /**
   * A partition of a parallel run (run/sim-partition-run.ts): the devices it simulates. The others are
   * built as GhostDevice stand-ins (in `switches` and `hosts` under their names, taking commands only).
   * Default: every device.
   */
  readonly owns?: (device: string) => boolean;
}

export class SimFabric {
  readonly sim: Simulator;
  readonly plan: AddressPlan;
  readonly switches = new Map<string, Switch>();
  readonly hosts = new Map<string, HostDevice>();
  /** The settings layers the switches are built with, and rebuilt with on restart. */
  readonly settings: SettingsLayers;
  private readonly simLinks = new Map<number, SimLink>();
  private readonly down = new Set<number>();
  private readonly convergenceNs: number;
  /** Static routes added while it runs (a scenario's `inject: { route }`, the lab's `staticRoute`). */
  private readonly runtimeRoutes: RuntimeRoutes;
  private readonly owns: (device: string) => boolean;

  constructor(
    readonly topo: Topology,
    private readonly hostFactory: HostFactory,
    opts: SimFabricOptions = {},
  ) {
    this.sim = new Simulator({ seed: opts.seed ?? 1, startNs: opts.startNs ?? 0 });
    this.plan = planAddresses(topo);
    this.convergenceNs = opts.convergenceNs ?? 0;
    this.settings = opts.settings ?? new SettingsLayers(topo);
    this.runtimeRoutes = new RuntimeRoutes(topo);
    this.owns = opts.owns ?? (() => true);
    const routes = computeRoutes(topo, this.plan);
    for (const node of topo.nodes) {
      if (node.kind === NodeKind.Switch)
        this.switches.set(
          node.name,
          this.sim.addDevice(
            node.name,
            this.switchMaker(node.name, () => routes),
          ),
        );
      else this.hosts.set(node.name, this.sim.addDevice(node.name, this.hostMaker(node.name)));
    }
    for (const link of topo.links) {
      this.simLinks.set(
        link.id,
        this.sim.connect({
          a: { device: link.a.node, port: link.a.port },
          b: { device: link.b.node, port: link.b.port },
          delayNs: link.delayNs,
          lossRate: link.lossRate,
        }),
      );
    }
  }

  /** The topology link at node:port. */
  linkId(node: string, port: number): number {
    const link = this.topo.links.find(
      (l) => (l.a.node === node && l.a.port === port) || (l.b.node === node && l.b.port === port),
    );
    if (!link) throw new Error(`no link at ${node}:eth${port}`);
    return link.id;
  }

  simLink(id: number): SimLink {
    return this.simLinks.get(id)!;
  }

  /** Takes a link down or up now; the routes follow after the convergence delay. */
  setLinkUp(id: number, up: boolean): void {
    if (up) this.down.delete(id);
    else this.down.add(id);
    this.sim.setLinkUp(this.simLinks.get(id)!, up);
    this.sim.at(this.sim.now + this.convergenceNs, (now) => this.installRoutes(now));
  }

  /**
   * Adds (via: ethN) or withdraws (via: null) a static route on a switch; it applies at once, as an
   * operator's static route does (no convergence delay). Throws, saying why, for a route the topology
   * cannot take.
   */
  setStaticRoute(node: string, to: string, via: string | null): void {
    if (via === null) {
      if (!this.runtimeRoutes.withdraw(node, to)) throw new Error(`${node} has no added route to ${to}`);
    } else this.runtimeRoutes.add(node, { to, via });
    this.installRoutes(this.sim.now);
  }

  private currentRoutes(): Map<string, Route[]> {
    return computeRoutes(this.topo, this.plan, this.down, this.runtimeRoutes);
  }

  private installRoutes(now: number): void {
    const routes = this.currentRoutes();
    for (const [name, sw] of this.switches)
      sw.command({ type: "set-routes", routes: routes.get(name) ?? [] }, now);
  }

  isDown(id: number): boolean {
    return this.down.has(id);
  }

  /** Puts `change` on top of the settings layers and reconfigures every switch with what results. */
  configureSwitches(change: SettingsChange): void {
    this.settings.push(change);
    const now = this.sim.now;
    for (const [name, sw] of this.switches)
      sw.command({ type: "configure", tunables: this.settings.switchTunables(name) }, now);
  }

  /** Kills a node as a crashed process would die: its links stay up, it just stops answering. */
  kill(name: string): void {
    this.sim.killDevice(name);
  }

  /** Restarts a node with fresh state (and the current routes and settings). */
  restart(name: string): void {
    const node = this.topo.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name}`);
    if (node.kind === NodeKind.Switch)
      this.switches.set(
        name,
        this.sim.restartDevice(
          name,
          this.switchMaker(name, () => this.currentRoutes()),
        ),
      );
    else this.hosts.set(name, this.sim.restartDevice(name, this.hostMaker(name)));
  }

  /**
   * What builds switch `name` with the fabric's `routes` (asked for only when it is built): the switch
   * core, or in a partition that does not simulate it, its stand-in (typed as a switch: a partition's run
   * only gives it commands, sim-run-setup.ts).
   */
  private switchMaker(name: string, routes: () => ReadonlyMap<string, Route[]>): (env: DeviceEnv) => Switch {
    if (!this.owns(name)) return () => new GhostDevice(name) as unknown as Switch;
    const cfg = buildSwitchConfig(
      this.topo,
      this.plan,
      routes().get(name) ?? [],
      name,
      this.settings.switchTunables(name),
    );
    return (env) => new Switch(cfg, env);
  }

  /** What builds host `name`: the caller's device, or its stand-in (see switchMaker). */
  private hostMaker(name: string): (env: DeviceEnv) => HostDevice {
    if (!this.owns(name)) return () => new GhostDevice(name) as unknown as HostDevice;
    const address = this.plan.ports.get(portKey(name, 1))!;
    const link = this.topo.links.find(
      (l) => (l.a.node === name && l.a.port === 1) || (l.b.node === name && l.b.port === 1),
    )!;
    return (env) => this.hostFactory(name, address, link, env);
  }
}
