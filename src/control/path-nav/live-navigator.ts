// Path navigation on a live lab: the controller of plan.ts talking to the supervisor's control socket as
// an SDN controller talks to a fabric — it switches LLDP on, reads every switch's LLDP table from its
// stats, the traffic matrix from the workloads' flows and the NICs' QPs, plans, and applies the plan with
// device commands (path-table entries or NIC source ports). `watch` re-plans whenever the LLDP view of the
// fabric changes (a link failed or came back).

import type { AnyDeviceStats } from "../../lab/device-stats.js";
import type { FlowReport } from "../../lab/flow-report.js";
import type { LabAction } from "../../scenario/action.js";
import { type AddressPlan, hostAddress } from "../../scenario/address-plan.js";
import { switchChange } from "../../scenario/settings-layers.js";
import type { SwitchConfig } from "../../switch/config.js";
import type { LldpTable } from "../../switch/control/lldp.js";
import { FabricGraph, type LagView } from "./fabric-graph.js";
import { type Demand, type NavPlan, type PathNavMode, planPaths } from "./plan.js";

/** What the navigator needs of a lab: requests to its supervisor (LiveLab has this). */
export interface NavLab {
  request<T>(op: string, args?: unknown, timeoutMs?: number): Promise<T>;
  apply(action: LabAction): Promise<unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class LiveNavigator {
  private last: NavPlan | null = null;
  /** The lab's emulated time by which every switch has sent its LLDPDUs at least twice (0: not enabled). */
  private heardBy = 0;

  constructor(
    private readonly lab: NavLab,
    readonly mode: PathNavMode,
    private readonly plan: AddressPlan,
    private readonly switches: readonly string[],
  ) {}

  /** Turns LLDP on in every switch (an LLDPDU every `txIntervalNs` of emulated time). */
  async enableLldp(txIntervalNs: number): Promise<void> {
    await this.lab.apply({
      kind: "set",
      change: switchChange({ lldp: { enabled: true, txInterval: txIntervalNs } }),
    });
    // Stable tables over real time prove nothing on a busy machine, where emulated time may hardly move:
    // wait for the emulated time in which every switch has sent on every port (once at enable, once more).
    this.heardBy = (await this.lab.request<{ now: number }>("status")).now + 2 * txIntervalNs;
  }

  /** What the controller reads of each switch: its LLDP table and its aggregation groups. */
  async tables(): Promise<{ tables: Map<string, LldpTable>; lags: Map<string, readonly LagView[]> }> {
    const tables = new Map<string, LldpTable>();
    const lags = new Map<string, readonly LagView[]>();
    for (const sw of this.switches) {
      const r = await this.lab.request<{ stats: AnyDeviceStats }>("stats", { node: sw });
      const detail = r.stats.kind === "switch" ? r.stats.detail : undefined;
      if (detail?.lldp !== undefined) tables.set(sw, detail.lldp);
      if (detail?.lag !== undefined) lags.set(sw, detail.lag);
    }
    return { tables, lags };
  }

  /** Waits until every switch has a table and two reads in a row show the same fabric; its link count. */
  async waitForTables(timeoutMs: number, pollMs = 500): Promise<number> {
    const end = Date.now() + timeoutMs;
    let previous = "";
    for (;;) {
      const { tables, lags } = await this.tables();
      const graph = new FabricGraph(tables, lags);
      const sig = graph.signature();
      const now = (await this.lab.request<{ now: number }>("status")).now;
      if (
        now >= this.heardBy &&
        tables.size === this.switches.length &&
        graph.linkCount > 0 &&
        sig === previous
      )
        return graph.linkCount;
      previous = sig;
      if (Date.now() > end) throw new Error("the switches' LLDP tables did not settle (is LLDP running?)");
      await sleep(pollMs);
    }
  }

  private async demands(): Promise<Demand[]> {
    const flows = await this.lab.request<FlowReport[]>("flows");
    const pairs = new Map<string, { src: string; dst: string; qpn: number; bytes: number }>();
    for (const f of flows) {
      const key = `${f.src}#${f.qp}`;
      const p = pairs.get(key) ?? { src: f.src, dst: f.dst, qpn: f.qp, bytes: 0 };
      p.bytes += f.bytes;
      pairs.set(key, p);
    }
    const qps = new Map<string, { remoteQpn: number; udpSrcPort: number }>();
    for (const host of new Set([...pairs.values()].map((p) => p.src))) {
      const r = await this.lab.request<{ stats: AnyDeviceStats }>("stats", { node: host });
      if (r.stats.kind === "nic") for (const q of r.stats.detail.qps) qps.set(`${host}#${q.qpn}`, q);
    }
    const out: Demand[] = [];
    for (const [key, p] of pairs) {
      const q = qps.get(key);
      if (q === undefined) continue;
      out.push({
        src: p.src,
        dst: p.dst,
        srcIp: hostAddress(this.plan, p.src).ip,
        dstIp: hostAddress(this.plan, p.dst).ip,
        qpn: p.qpn,
        remoteQpn: q.remoteQpn,
        udpSrcPort: q.udpSrcPort,
        weight: p.bytes,
      });
    }
    return out;
  }

  /** Plans the workloads' QPs over the fabric LLDP shows now, and applies the plan. */
  async replan(): Promise<NavPlan> {
    const { tables, lags } = await this.tables();
    const configs = new Map<string, SwitchConfig>();
    for (const sw of this.switches)
      configs.set(sw, await this.lab.request<SwitchConfig>("switch-config", { node: sw }));
    const plan = planPaths({ mode: this.mode, tables, lags, configs, demands: await this.demands() });
    for (const [sw, entries] of plan.entries) {
      const r = await this.lab.request<{ ok: boolean; error?: string }>("command", {
        node: sw,
        command: { type: "path-entries", entries },
      });
      if (!r.ok) throw new Error(`${sw}: ${r.error}`);
    }
    for (const c of plan.sourcePorts) {
      const r = await this.lab.request<{ ok: boolean; error?: string }>("command", {
        node: c.host,
        command: { type: "set-source-port", qpn: c.qpn, udpSrcPort: c.udpSrcPort },
      });
      if (!r.ok) throw new Error(`${c.host}: ${r.error}`);
    }
    this.last = plan;
    return plan;
  }

  /** Re-plans when the LLDP view changed since the last plan (or there was none); the new plan or null. */
  async poll(): Promise<NavPlan | null> {
    if (this.last !== null) {
      const { tables, lags } = await this.tables();
      if (new FabricGraph(tables, lags).signature() === this.last.signature) return null;
    }
    return this.replan();
  }
}
