// Drives workloads on the NICs, whichever runtime they run in: pairs queue pairs between hosts (as RDMA
// CM would, out of band), posts each flow when its time comes, posts dependent flows (ring all-reduce
// steps) when their predecessors complete, reconnects after a failed completion when the workload says
// so, stops workloads, and turns NIC completion records into the report's flow list.
//
// `onError: reconnect` does what an application does when a work completion comes back with an error:
// the failed QP is in the error state for good, so it connects again — a new QP pair on both hosts (new
// QP numbers, PSNs from 0, as a fresh RDMA CM connection; the create-qp command says which QP it replaces,
// which the NIC counts as `qp_reconnects` and reports as a `qp-reconnect` event) — and posts every
// message that failed on the old pair again, from its start (an RDMA WRITE or SEND is not resumable: the
// requester does not know which bytes the responder placed), in their posting order, at the time of the
// failure (connection set-up takes no emulated time, like QP creation). At most RECONNECT_LIMIT times per
// message; a message stopped by the lab (`stopped`) is not retried.

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

/** How often one message is posted again after failures (`onError: reconnect`) before it stays failed. */
export const RECONNECT_LIMIT = 16;

/** What a runtime's event loop feeds the driver (FlowDriver, or a runtime's wrapper of it). */
export interface FlowEventSink {
  onFlowDone(flowId: number, now: number): void;
  onFlowFailed(flowId: number, status: string, now: number): void;
}

/** A NIC event that moves flows on: `flow-done` and `flow-failed` (detail "<flow id> <status>"). */
export function feedFlowEvent(sink: FlowEventSink, e: { kind: string; detail?: string; t: number }): void {
  if (e.detail === undefined) return;
  if (e.kind === "flow-done") sink.onFlowDone(Number(e.detail), e.t);
  else if (e.kind === "flow-failed") {
    const [id, status] = e.detail.split(" ");
    sink.onFlowFailed(Number(id), status ?? "", e.t);
  }
}

interface QpPair {
  readonly srcQpn: number;
  readonly dstQpn: number;
}

export class FlowDriver {
  private readonly pairs = new Map<string, QpPair>();
  /** The two hosts of each pair (its key holds them too, but a flow id or workload name may follow). */
  private readonly pairHosts = new WeakMap<QpPair, { readonly src: string; readonly dst: string }>();
  private readonly nextQpn = new Map<string, number>();
  private readonly flows = new Map<number, FlowSpec>();
  private readonly postedAt = new Map<number, number>();
  private readonly remaining = new Map<number, number>();
  private readonly dependents = new Map<number, number[]>();
  private readonly completed = new Set<number>();
  private readonly stopped = new Set<string>();
  /** The QP pair each posted flow's latest post went to. */
  private readonly postedOn = new Map<number, QpPair>();
  /** Flows posted again after a failure, and how often. */
  private readonly reposts = new Map<number, number>();
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
   * A NIC reported a failed flow: with `onError: reconnect`, a new QP pair replaces the failed one (once,
   * for all the messages that failed on it) and the message is posted again from its start.
   */
  onFlowFailed(flowId: number, status: string, now: number): void {
    const f = this.flows.get(flowId);
    if (f?.reconnect !== true || status === "stopped" || this.stopped.has(f.workload)) return;
    const n = this.reposts.get(flowId) ?? 0;
    if (n >= RECONNECT_LIMIT) return;
    // Not from inside the NIC's flush (a simulated NIC reports failures while it flushes its QP).
    this.runtime.schedule(now, () => {
      if (this.stopped.has(f.workload)) return;
      this.reposts.set(flowId, n + 1);
      const key = pairKey(f);
      const failed = this.postedOn.get(flowId);
      let pair = this.pairs.get(key);
      if (pair === undefined || pair === failed) pair = this.createPair(f, key, failed);
      // Posted on arrival (no start time: in a live lab it would count as a late post).
      this.send(f, pair, undefined);
    });
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

  /**
   * Report rows for every flow, completed or not, from the requesters' completion records. A message posted
   * again after a failure is one flow: from its first post to its last completion (none yet: unfinished),
   * with the retransmissions of every attempt and `reconnects`.
   */
  report(records: ReadonlyMap<string, readonly CompletionRecord[]>): FlowReport[] {
    const byId = new Map<number, CompletionRecord>();
    const firstPost = new Map<number, number>();
    const retransmits = new Map<number, number>();
    const attempts = new Map<number, number>();
    for (const list of records.values())
      for (const r of list) {
        const id = Number(r.flowId);
        byId.set(id, r);
        if (!firstPost.has(id)) firstPost.set(id, r.postedAt);
        retransmits.set(id, (retransmits.get(id) ?? 0) + r.retransmits);
        attempts.set(id, (attempts.get(id) ?? 0) + 1);
      }
    const out: FlowReport[] = [];
    for (const f of [...this.flows.values()].sort((a, b) => a.id - b.id)) {
      const reconnects = this.reposts.get(f.id) ?? 0;
      // Posted again and not completed since: the last attempt is still running.
      const r = (attempts.get(f.id) ?? 0) > reconnects ? byId.get(f.id) : undefined;
      const posted = this.postedAt.get(f.id);
      const start = firstPost.get(f.id) ?? posted ?? f.atNs;
      const ok = r !== undefined && r.status === "success";
      const fctNs = ok ? (reconnects > 0 ? r.completedAt - start : r.fctNs) : null;
      const error = r === undefined || r.status === "success" ? null : r.status;
      out.push({
        id: f.id,
        workload: f.workload,
        src: f.src,
        dst: f.dst,
        op: f.op,
        qp: (this.postedOn.get(f.id) ?? this.pairFor(f)).srcQpn,
        bytes: f.bytes,
        startNs: reconnects > 0 ? start : (r?.postedAt ?? posted ?? f.atNs),
        endNs: r?.completedAt ?? null,
        fctNs,
        goodputBps: fctNs !== null && fctNs > 0 ? (f.bytes * 8e9) / fctNs : null,
        retransmits: retransmits.get(f.id) ?? 0,
        outcome: r === undefined ? "unfinished" : ok ? "completed" : "failed",
        error,
        ...(reconnects > 0 ? { reconnects } : {}),
      });
    }
    return out;
  }

  private post(f: FlowSpec, at: number): void {
    if (this.stopped.has(f.workload) || this.postedAt.has(f.id)) return;
    this.postedAt.set(f.id, at);
    this.send(f, this.pairFor(f), at);
  }

  private send(f: FlowSpec, pair: QpPair, at: number | undefined): void {
    if (this.stopped.has(f.workload)) return;
    this.postedOn.set(f.id, pair);
    this.runtime.command(f.src, {
      type: "post",
      qpn: pair.srcQpn,
      op: f.op,
      bytes: f.bytes,
      flowId: String(f.id),
      ...(at !== undefined ? { at } : {}),
    });
  }

  /** The QP pair of a flow, created on both NICs the first time it is needed. */
  private pairFor(f: FlowSpec): QpPair {
    const key = pairKey(f);
    return this.pairs.get(key) ?? this.createPair(f, key, undefined);
  }

  /** A new QP pair for `key` on both NICs; `replaces`: the failed pair it takes over from (a reconnect). */
  private createPair(f: FlowSpec, key: string, replaces: QpPair | undefined): QpPair {
    const pair = { srcQpn: this.allocate(f.src), dstQpn: this.allocate(f.dst) };
    this.pairs.set(key, pair);
    this.pairHosts.set(pair, { src: f.src, dst: f.dst });
    const srcIp = hostAddress(this.plan, f.src).ip;
    const dstIp = hostAddress(this.plan, f.dst).ip;
    const transport = f.transport !== undefined ? { transport: f.transport } : {};
    this.runtime.command(f.src, {
      type: "create-qp",
      qpn: pair.srcQpn,
      remoteQpn: pair.dstQpn,
      remoteIp: dstIp,
      ...transport,
      ...(replaces !== undefined ? { replaces: replaces.srcQpn } : {}),
      ...(f.onDemand === true ? { cm: "active" as const } : {}),
    });
    this.runtime.command(f.dst, {
      type: "create-qp",
      qpn: pair.dstQpn,
      remoteQpn: pair.srcQpn,
      remoteIp: srcIp,
      ...transport,
      ...(replaces !== undefined ? { replaces: replaces.dstQpn } : {}),
      ...(f.onDemand === true ? { cm: "passive" as const } : {}),
    });
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
    return [...this.pairs.values()].map((pair) => {
      const hosts = this.pairHosts.get(pair);
      if (hosts === undefined) throw new Error("FlowDriver: a QP pair without its hosts");
      return { src: hosts.src, dst: hosts.dst, ...pair, bytes: bytes.get(pair) ?? 0 };
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

/**
 * Which QP pair a flow uses: the host pair's QP `qpIndex`, or one of its own (`ownQp`). A workload with QP
 * attributes or `onError: reconnect` keeps its QPs to itself: another workload's would have other
 * attributes, or would be reconnected (or not) by an application that is not its own.
 */
function pairKey(f: FlowSpec): string {
  if (f.ownQp === true) return `${f.src}>${f.dst}@${f.id}`;
  const own =
    f.transport !== undefined || f.reconnect === true || f.onDemand === true ? `/${f.workload}` : "";
  return `${f.src}>${f.dst}#${f.qpIndex}${own}`;
}
