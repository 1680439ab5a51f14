// How the flows of a lab ended so far, from the NICs' completion records in the latest snapshot: each
// flow's last work completion (completed, or failed with its error: retry_exceeded, rnr_retry_exceeded,
// remote_access, invalid_request, flushed, stopped, ...) and the messages still outstanding per QP
// (unfinished). The flows view's summary line and its status mode (`v`) read them.

import type { LabSnapshot } from "../lab/lab.js";
import type { CompletionRecord } from "../nic/stats-types.js";

export interface FlowOutcomeRow {
  readonly host: string;
  readonly record: CompletionRecord;
}

export interface UnfinishedRow {
  readonly host: string;
  readonly qpn: number;
  /** Messages posted on the QP and not completed yet. */
  readonly messages: number;
}

export interface FlowOutcomes {
  /** Each flow's last completion, failed ones first, then by flow id. */
  readonly ended: readonly FlowOutcomeRow[];
  readonly completed: number;
  readonly failed: number;
  /** Failed flows by error, in order of first appearance. */
  readonly failedBy: ReadonlyMap<string, number>;
  /** QPs with messages outstanding, and how many. */
  readonly unfinished: readonly UnfinishedRow[];
  readonly unfinishedMessages: number;
}

const byId = (a: FlowOutcomeRow, b: FlowOutcomeRow) =>
  Number(a.record.flowId) - Number(b.record.flowId) || a.record.flowId.localeCompare(b.record.flowId);

export function flowOutcomes(snapshot: LabSnapshot | null): FlowOutcomes {
  const last = new Map<string, FlowOutcomeRow>();
  const unfinished: UnfinishedRow[] = [];
  for (const [host, stats] of Object.entries(snapshot?.stats ?? {})) {
    if (stats.kind !== "nic") continue;
    // A message posted again after a failure (onError: reconnect) has several records: the last one counts.
    for (const record of stats.detail.flows) last.set(`${host}/${record.flowId}`, { host, record });
    for (const q of stats.detail.qps)
      if (q.pendingMessages > 0) unfinished.push({ host, qpn: q.qpn, messages: q.pendingMessages });
  }
  const rows = [...last.values()];
  const failed = rows.filter((r) => r.record.status !== "success").sort(byId);
  const completed = rows.filter((r) => r.record.status === "success").sort(byId);
  const failedBy = new Map<string, number>();
  for (const r of failed) failedBy.set(r.record.status, (failedBy.get(r.record.status) ?? 0) + 1);
  return {
    ended: [...failed, ...completed],
    completed: completed.length,
    failed: failed.length,
    failedBy,
    unfinished,
    unfinishedMessages: unfinished.reduce((a, u) => a + u.messages, 0),
  };
}

/** "12 completed, 2 failed (retry_exceeded 1, flushed 1), 3 unfinished". */
export function outcomesText(o: FlowOutcomes): string {
  const by = [...o.failedBy].map(([k, n]) => `${k} ${n}`).join(", ");
  const failed = o.failed > 0 ? `, ${o.failed} failed (${by})` : "";
  const unfinished = o.unfinishedMessages > 0 ? `, ${o.unfinishedMessages} unfinished` : "";
  return `${o.completed} completed${failed}${unfinished}`;
}

const byFlow = new WeakMap<LabSnapshot, Map<string, CompletionRecord>>();

/**
 * The latest completion record of `host`'s flow `flowId` in the snapshot (undefined until the NIC's counters
 * that carry it arrive, a moment after its `flow-done` event). Indexed once per snapshot.
 */
export function completionOf(
  snapshot: LabSnapshot | null,
  host: string,
  flowId: string,
): CompletionRecord | undefined {
  if (snapshot === null) return undefined;
  let index = byFlow.get(snapshot);
  if (index === undefined) {
    index = new Map();
    for (const [name, stats] of Object.entries(snapshot.stats))
      if (stats.kind === "nic") for (const r of stats.detail.flows) index.set(`${name}/${r.flowId}`, r);
    byFlow.set(snapshot, index);
  }
  return index.get(`${host}/${flowId}`);
}

const byQp = new WeakMap<LabSnapshot, Map<string, CompletionRecord>>();

/**
 * The last flow `host`'s QP `qpn` ended (completed or failed) in the snapshot: the flows view's FCT column.
 * Undefined while none has; a receiving QP has none (the requester keeps the records).
 */
export function lastCompletionOnQp(
  snapshot: LabSnapshot | null,
  host: string,
  qpn: number,
): CompletionRecord | undefined {
  // Before the first snapshot (the store starts with none).
  if (!snapshot) return undefined;
  let index = byQp.get(snapshot);
  if (index === undefined) {
    index = new Map();
    for (const [name, stats] of Object.entries(snapshot.stats))
      if (stats.kind === "nic")
        for (const r of stats.detail.flows) {
          const key = `${name}/${r.qpn}`;
          const had = index.get(key);
          if (had === undefined || r.completedAt >= had.completedAt) index.set(key, r);
        }
    byQp.set(snapshot, index);
  }
  return index.get(`${host}/${qpn}`);
}
