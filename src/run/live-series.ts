// A live run's time series on the simulator's grid: every device reads what the series need at the
// scenario's sample times (runtime/realtime/grid-reads.ts), the run collects the reads while it plays and
// records them at the end in the simulator's order (each sample time: the switches, then the hosts, in
// the topology's order), so the CSV files of both runtimes can be compared row for row.

import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { FlowReport } from "../lab/flow-report.js";
import type { LiveLab } from "../lab/live/live-lab.js";
import type { NicStats, QpStats } from "../nic/stats-types.js";
import type { SeriesRecorder } from "../report/series-recorder.js";
import type { GridRead } from "../runtime/realtime/grid-reads.js";
import { hostAddress, planAddresses } from "../scenario/address-plan.js";
import type { Scenario } from "../scenario/scenario.js";
import { NodeKind } from "../scenario/topology.js";

export class LiveSeries {
  private readonly reads = new Map<string, GridRead[]>();
  private readonly count: number;

  constructor(
    private readonly lab: LiveLab,
    private readonly sc: Scenario,
    private readonly t0: number,
  ) {
    this.count = Math.floor(sc.durationNs / sc.sampleNs) + 1;
  }

  /** Asks every device to read on the grid; false when the lab's devices cannot (the caller samples itself). */
  async arm(): Promise<boolean> {
    try {
      await this.lab.request("series", { at: this.t0, every: this.sc.sampleNs, count: this.count });
      return true;
    } catch {
      return false;
    }
  }

  /** Takes the reads the devices made since the last call. */
  async collect(): Promise<void> {
    let taken: Record<string, GridRead[]>;
    try {
      taken = await this.lab.request<Record<string, GridRead[]>>("series", {});
    } catch {
      return; // The lab busy with a restart, say: the reads wait on the devices for the next collection.
    }
    for (const [node, list] of Object.entries(taken)) {
      const mine = this.reads.get(node);
      if (mine === undefined) this.reads.set(node, [...list]);
      else for (const r of list) mine.push(r);
    }
  }

  /** Collects until every device has read grid time `t` (scenario time) or `waitMs` real ms have passed. */
  async collectUntil(t: number, waitMs: number): Promise<void> {
    const until = Date.now() + waitMs;
    for (;;) {
      await this.collect();
      const done = [...this.reads.values()].every((l) => (l.at(-1)?.t ?? -1) >= this.t0 + t);
      if (done || Date.now() >= until) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Records every read up to scenario time `ranNs`. A QP is in a sample from its pair's first flow's start
   * on, as in the simulator, which creates the pair then (a live lab creates it ahead, with the posts).
   */
  record(recorder: SeriesRecorder, flows: readonly FlowReport[], ranNs: number): void {
    const nodes = this.sc.topology.nodes;
    const order = [
      ...nodes.filter((n) => n.kind === NodeKind.Switch),
      ...nodes.filter((n) => n.kind === NodeKind.Host),
    ].map((n) => n.name);
    const from = qpStarts(this.sc, flows);
    const byTime = new Map<number, AnyDeviceStats[]>();
    for (const node of order) {
      for (const r of this.reads.get(node) ?? []) {
        const t = r.t - this.t0;
        if (t > ranNs) continue;
        const s = r.stats as AnyDeviceStats;
        const list = byTime.get(t) ?? [];
        list.push(s.kind === "nic" ? visibleQps(s, t, from) : s);
        byTime.set(t, list);
      }
    }
    for (const t of [...byTime.keys()].sort((a, b) => a - b)) recorder.sample(t, byTime.get(t)!);
  }
}

/** When the simulator creates a QP of the run: its pair's first flow's start (undefined: no flow of the run). */
type QpStart = (host: string, qp: QpStats) => number | undefined;

function qpStarts(sc: Scenario, flows: readonly FlowReport[]): QpStart {
  const plan = planAddresses(sc.topology);
  const hostOf = new Map<number, string>();
  for (const n of sc.topology.nodes)
    if (n.kind === NodeKind.Host) hostOf.set(hostAddress(plan, n.name).ip, n.name);
  const first = new Map<string, number>();
  for (const f of flows) {
    const key = `${f.src}/${f.qp}`;
    first.set(key, Math.min(first.get(key) ?? Number.POSITIVE_INFINITY, f.startNs));
  }
  // A requester's QP by its own number; a responder's by its remote end, the requester's.
  return (host, qp) =>
    first.get(`${host}/${qp.qpn}`) ?? first.get(`${hostOf.get(qp.remoteIp)}/${qp.remoteQpn}`);
}

/** The NIC's QPs that exist in the simulator at `t`. */
function visibleQps(s: NicStats, t: number, startOf: QpStart): NicStats {
  const qps = s.detail.qps.filter((q) => {
    const start = startOf(s.name, q);
    return start === undefined || start <= t;
  });
  return { ...s, detail: { ...s.detail, qps } };
}
