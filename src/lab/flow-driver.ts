// Drives workloads on the NICs, whichever runtime they run in: pairs queue pairs between hosts (as RDMA
// CM would, out of band), posts each flow when its time comes, posts dependent flows (ring all-reduce
// steps) when their predecessors complete, stops workloads, and turns NIC completion records into the
// report's flow list.

import type { NicCommand } from "../nic/commands.js";
import type { CompletionRecord } from "../nic/stats-types.js";
import type { FlowSpec } from "../nic/workloads.js";
import { type AddressPlan, hostAddress } from "../scenario/address-plan.js";
import type { FlowReport } from "./flow-report.js";

/** What the driver needs from a runtime. */
export interface FlowRuntime {
  /** Send a command to a host's NIC (fire and forget; errors are the runtime's to report). */
  command(host: string, cmd: NicCommand): void;
  /**
   * Calls `fn(t)` for emulated time `at`: at that time with `t` = now (virtual time), or ahead of it with
   * `t` = `at` (a live lab, whose NICs then post at `at` on their own clocks), or late with the time
   * asked for. The post carries `t`; a NIC whose clock is past it posts at once.
   */
  schedule(at: number, fn: (t: number) => void): void;
}

/** First QP number a NIC hands out (low numbers are reserved in InfiniBand: QP0, QP1). */
const FIRST_QPN = 0x100;

interface QpPair {
  readonly srcQpn: number;
  readonly dstQpn: number;
}

export class FlowDriver {
  private readonly pairs = new Map<string, QpPair>();
  private readonly nextQpn = new Map<string, number>();
  private readonly flows = new Map<number, FlowSpec>();
  private readonly postedAt = new Map<number, number>();
  private readonly remaining = new Map<number, number>();
  private readonly dependents = new Map<number, number[]>();
  private readonly completed = new Set<number>();
  private readonly stopped = new Set<string>();
  private nextFlowId = 1;

  constructor(
    private readonly plan: AddressPlan,
    private readonly runtime: FlowRuntime,
  ) {}

  /** A fresh flow id (workload generators number their flows with it). */
  readonly newId = (): number => this.nextFlowId++;

  /** Registers flows and schedules the ones without predecessors. */
  add(flows: readonly FlowSpec[]): void {
    for (const f of flows) {
      this.flows.set(f.id, f);
      this.pairFor(f);
      const deps = f.after.filter((d) => !this.completed.has(d));
      if (deps.length === 0) {
        this.runtime.schedule(f.atNs, (now) => this.post(f, now));
        continue;
      }
      this.remaining.set(f.id, deps.length);
      for (const d of deps) this.dependents.set(d, [...(this.dependents.get(d) ?? []), f.id]);
    }
  }

  /** A NIC reported a completed flow. */
  onFlowDone(flowId: number, now: number): void {
    if (this.completed.has(flowId)) return;
    this.completed.add(flowId);
    for (const id of this.dependents.get(flowId) ?? []) {
      const left = (this.remaining.get(id) ?? 1) - 1;
      this.remaining.set(id, left);
      if (left === 0) {
        const f = this.flows.get(id)!;
        this.runtime.schedule(Math.max(f.atNs, now), (t) => this.post(f, t));
      }
    }
  }

  /**
   * Stops workloads (by name, or all so far): nothing more of them is posted; "all" also stops the NICs,
   * whose QPs with work flush it as `stopped` and stay in the error state, so workloads added later get new
   * QP pairs (as an application reconnects after destroying its QPs).
   */
  stop(workloads: "all" | readonly string[]): void {
    if (workloads === "all") {
      for (const f of this.flows.values()) this.stopped.add(f.workload);
      const hosts = new Set<string>();
      for (const f of this.postedAt.keys()) hosts.add(this.flows.get(f)!.src);
      for (const h of hosts) this.runtime.command(h, { type: "stop" });
      this.pairs.clear();
      return;
    }
    for (const w of workloads) this.stopped.add(w);
  }

  get flowCount(): number {
    return this.flows.size;
  }

  /** Report rows for every flow, completed or not, from the requesters' completion records. */
  report(records: ReadonlyMap<string, readonly CompletionRecord[]>): FlowReport[] {
    const byId = new Map<number, CompletionRecord>();
    for (const list of records.values()) for (const r of list) byId.set(Number(r.flowId), r);
    const out: FlowReport[] = [];
    for (const f of [...this.flows.values()].sort((a, b) => a.id - b.id)) {
      const r = byId.get(f.id);
      const posted = this.postedAt.get(f.id);
      const ok = r !== undefined && r.status === "success";
      const error = r === undefined || r.status === "success" ? null : r.status;
      out.push({
        id: f.id,
        workload: f.workload,
        src: f.src,
        dst: f.dst,
        op: f.op,
        qp: this.pairFor(f).srcQpn,
        bytes: f.bytes,
        startNs: r?.postedAt ?? posted ?? f.atNs,
        endNs: r?.completedAt ?? null,
        fctNs: ok ? r.fctNs : null,
        goodputBps: ok && r.fctNs > 0 ? (f.bytes * 8e9) / r.fctNs : null,
        retransmits: r?.retransmits ?? 0,
        outcome: r === undefined ? "unfinished" : ok ? "completed" : "failed",
        error,
      });
    }
    return out;
  }

  private post(f: FlowSpec, at: number): void {
    if (this.stopped.has(f.workload) || this.postedAt.has(f.id)) return;
    this.postedAt.set(f.id, at);
    const pair = this.pairFor(f);
    this.runtime.command(f.src, {
      type: "post",
      qpn: pair.srcQpn,
      op: f.op,
      bytes: f.bytes,
      flowId: String(f.id),
      at,
    });
  }

  /** The QP pair of a flow, created on both NICs the first time it is needed. */
  private pairFor(f: FlowSpec): QpPair {
    // A workload with QP attributes of its own keeps its QPs to itself (another's would have other ones).
    const own = f.transport === undefined ? "" : `/${f.workload}`;
    const key = f.ownQp === true ? `${f.src}>${f.dst}@${f.id}` : `${f.src}>${f.dst}#${f.qpIndex}${own}`;
    let pair = this.pairs.get(key);
    if (pair === undefined) {
      pair = { srcQpn: this.allocate(f.src), dstQpn: this.allocate(f.dst) };
      this.pairs.set(key, pair);
      const srcIp = hostAddress(this.plan, f.src).ip;
      const dstIp = hostAddress(this.plan, f.dst).ip;
      this.runtime.command(f.src, {
        type: "create-qp",
        qpn: pair.srcQpn,
        remoteQpn: pair.dstQpn,
        remoteIp: dstIp,
        ...(f.transport !== undefined ? { transport: f.transport } : {}),
      });
      this.runtime.command(f.dst, {
        type: "create-qp",
        qpn: pair.dstQpn,
        remoteQpn: pair.srcQpn,
        remoteIp: srcIp,
        ...(f.transport !== undefined ? { transport: f.transport } : {}),
      });
    }
    return pair;
  }

  /**
   * The workloads' traffic matrix: every QP pair created so far, with the bytes its flows carry (what a
   * collective library tells a path-navigation controller).
   */
  trafficMatrix(): { src: string; dst: string; srcQpn: number; dstQpn: number; bytes: number }[] {
    const bytes = new Map<QpPair, number>();
    for (const f of this.flows.values()) {
      const pair = this.pairFor(f);
      bytes.set(pair, (bytes.get(pair) ?? 0) + f.bytes);
    }
    return [...this.pairs].map(([key, pair]) => {
      const [src, rest] = key.split(">") as [string, string];
      return { src, dst: rest.slice(0, rest.lastIndexOf("#")), ...pair, bytes: bytes.get(pair) ?? 0 };
    });
  }

  /** QP pairs created so far. */
  get qpPairs(): number {
    return this.pairs.size;
  }

  private allocate(host: string): number {
    const qpn = this.nextQpn.get(host) ?? FIRST_QPN;
    this.nextQpn.set(host, qpn + 1);
    return qpn;
  }
}
