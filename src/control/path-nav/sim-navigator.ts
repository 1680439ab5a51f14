// Path navigation in the simulator: the controller of plan.ts run against a SimFabric. It reads the
// switches' LLDP tables and the workloads' traffic matrix, plans when a workload starts (after its QPs
// exist, before their first packet) and whenever the LLDP view of the fabric changes (it looks every
// `intervalNs`), and applies the plan through the devices' commands — path-table entries (network mode)
// or NIC source ports (host mode) — as an SDN controller would.

import type { FlowDriver } from "../../lab/flow-driver.js";
import type { SimFabric } from "../../lab/sim/sim-fabric.js";
import type { Nic } from "../../nic/nic.js";
import { hostAddress } from "../../scenario/address-plan.js";
import type { SwitchConfig } from "../../switch/config.js";
import type { LldpTable } from "../../switch/control/lldp.js";
import { FabricGraph, type LagView } from "./fabric-graph.js";
import { type Demand, type NavPlan, type PathNavMode, pathText, planPaths } from "./plan.js";

export interface PlanRecord {
  readonly atNs: number;
  readonly reason: "workload" | "topology";
  readonly links: number;
  readonly maxLoad: number;
  readonly meanLoad: number;
  readonly unplanned: number;
  readonly entries: number;
  /** Entries the switches refused because their tables were full (those flows go by ECMP). */
  readonly refused: number;
  readonly sourcePortChanges: number;
}

export interface PathNavReport {
  readonly mode: PathNavMode;
  readonly intervalNs: number;
  readonly plans: readonly PlanRecord[];
  /** The last plan's path per QP. */
  readonly flows: readonly {
    readonly src: string;
    readonly dst: string;
    readonly qpn: number;
    readonly udpSrcPort: number;
    readonly path: string;
  }[];
}

export class SimPathNavigator {
  private readonly plans: PlanRecord[] = [];
  private last: NavPlan | null = null;

  constructor(
    readonly mode: PathNavMode,
    readonly intervalNs: number,
    private readonly fabric: SimFabric,
    private readonly nics: ReadonlyMap<string, Nic>,
    private readonly driver: FlowDriver,
  ) {}

  /** Looks at the fabric every interval until `endNs`. */
  schedule(endNs: number): void {
    for (let t = this.intervalNs; t <= endNs; t += this.intervalNs)
      this.fabric.sim.at(t, (now) => this.poll(now));
  }

  /** A workload's QPs were just created: plan them before they send. */
  workloadStarted(now: number): void {
    this.replan(now, "workload");
  }

  private poll(now: number): void {
    if (this.last === null) {
      if (this.driver.qpPairs > 0) this.replan(now, "workload");
      return;
    }
    const { tables, lags } = this.tables(now);
    if (new FabricGraph(tables, lags).signature() !== this.last.signature) this.replan(now, "topology");
  }

  /** What the controller reads of each switch: its LLDP table and its aggregation groups. */
  private tables(now: number): { tables: Map<string, LldpTable>; lags: Map<string, readonly LagView[]> } {
    const tables = new Map<string, LldpTable>();
    const lags = new Map<string, readonly LagView[]>();
    for (const [name, sw] of this.fabric.switches) {
      const detail = sw.stats(now).detail;
      if (detail?.lldp !== undefined) tables.set(name, detail.lldp);
      if (detail?.lag !== undefined) lags.set(name, detail.lag);
    }
    return { tables, lags };
  }

  private demands(now: number): Demand[] {
    const qps = new Map<string, { udpSrcPort: number }>();
    for (const [host, nic] of this.nics)
      for (const q of nic.stats(now).detail.qps) qps.set(`${host}#${q.qpn}`, q);
    const plan = this.fabric.plan;
    return this.driver.trafficMatrix().map((p) => ({
      src: p.src,
      dst: p.dst,
      srcIp: hostAddress(plan, p.src).ip,
      dstIp: hostAddress(plan, p.dst).ip,
      qpn: p.srcQpn,
      remoteQpn: p.dstQpn,
      udpSrcPort: qps.get(`${p.src}#${p.srcQpn}`)?.udpSrcPort ?? 0,
      weight: p.bytes,
    }));
  }

  private replan(now: number, reason: PlanRecord["reason"]): void {
    const { tables, lags } = this.tables(now);
    if (tables.size === 0) return; // LLDP has not been heard yet: the next poll plans
    const configs = new Map<string, SwitchConfig>();
    for (const [name, sw] of this.fabric.switches) configs.set(name, sw.config);
    const plan = planPaths({ mode: this.mode, tables, lags, configs, demands: this.demands(now) });
    let entries = 0;
    let refused = 0;
    for (const [sw, list] of plan.entries) {
      entries += list.length;
      const device = this.fabric.switches.get(sw)!;
      const reply = device.command({ type: "path-entries", entries: list }, now);
      if (!reply.ok) throw new Error(`${sw}: ${reply.error}`);
      refused += device.stats(now).detail?.pathTableState?.refused ?? 0;
    }
    for (const c of plan.sourcePorts) {
      const reply = this.nics
        .get(c.host)!
        .command({ type: "set-source-port", qpn: c.qpn, udpSrcPort: c.udpSrcPort }, now);
      if (!reply.ok) throw new Error(`${c.host}: ${reply.error}`);
    }
    this.last = plan;
    this.plans.push({
      atNs: now,
      reason,
      links: plan.links,
      maxLoad: plan.maxLoad,
      meanLoad: plan.meanLoad,
      unplanned: plan.unplanned,
      entries,
      refused,
      sourcePortChanges: plan.sourcePorts.length,
    });
  }

  report(): PathNavReport {
    return {
      mode: this.mode,
      intervalNs: this.intervalNs,
      plans: this.plans,
      flows: (this.last?.flows ?? []).map((f) => ({
        src: f.demand.src,
        dst: f.demand.dst,
        qpn: f.demand.qpn,
        udpSrcPort: f.udpSrcPort,
        path: pathText(f.path),
      })),
    };
  }
}
