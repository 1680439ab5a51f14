// Seeded chaos in the live lab: the chaos scenario of run/chaos.ts (mixed lossless traffic, link flaps,
// settings changes) run by runScenarioLive, plus what only a live lab has: device processes killed with
// SIGKILL from outside (as the OOM killer or a crash would), mid-run, and restarted later. The checks:
// the supervisor reports each death clearly (status `crashed`, an event naming SIGKILL) and each restart;
// no lossless drop except at a failed link; every message whose endpoints survived completes; nothing
// left queued or paused; and `down` leaves no namespace, process or state directory behind.

import { existsSync } from "node:fs";
import { type ChaosOptions, chaosScenario, judgeChaos, type KillPlan, planKills } from "./chaos.js";

export { type KillPlan, planKills } from "./chaos.js";

import type { LabEvent } from "../lab/lab.js";
import type { LiveLab } from "../lab/live/live-lab.js";
import { labDir } from "../lab/live/names.js";
import { findLabProcesses, listNamespaces } from "../lab/live/provision.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import type { Report } from "../report/report.js";
import { resolveScenario } from "../scenario/scenario.js";
import type { Topology } from "../scenario/topology.js";
import { type LiveAction, type LiveRunOptions, runScenarioLive } from "./run-live.js";

export interface LiveChaosOptions extends ChaosOptions {
  /** Device processes SIGKILLed during the traffic (spines first, then hosts), one at a time. */
  readonly kills: number;
  /** Restart each killed device later in the run (default true). */
  readonly restart?: boolean;
  /**
   * The run lasts this many times the traffic time (default 20; the simulator's chaos: 10): a message
   * that crossed a killed switch waits for retransmission timeouts after the restart.
   */
  readonly drainFactor?: number;
}

export interface KillRecord extends KillPlan {
  readonly pid: number;
  /** The status the supervisor reported after the kill, and the event that said why. */
  readonly reported: string;
  readonly event: string | null;
  /** After the restart: the status and restart count the supervisor reported. */
  readonly restarted: { readonly status: string; readonly restarts: number } | null;
}

export interface LiveChaosResult {
  readonly report: Report;
  readonly kills: readonly KillRecord[];
  /** What `down` left behind (all empty on a clean teardown). */
  readonly leftovers: {
    readonly namespaces: string[];
    readonly processes: number[];
    readonly stateDir: boolean;
  };
  readonly problems: readonly string[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls the supervisor until `node` is `want` (or gives up after `ms`); returns what it last said. */
async function waitStatus(lab: LiveLab, node: string, want: string, ms: number) {
  const until = Date.now() + ms;
  for (;;) {
    const d = (await lab.request<LabStatus>("status")).devices.find((x) => x.node === node)!;
    if (d.status === want || Date.now() > until) return d;
    await sleep(100);
  }
}

export async function runLiveChaos(
  topology: Topology,
  topologyRef: string,
  opts: LiveChaosOptions,
  live: LiveRunOptions & { readonly lab: string },
): Promise<LiveChaosResult> {
  const file = chaosScenario(topology, topologyRef, opts);
  const resolved = resolveScenario(file, topologyRef === "default" ? "chaos.yaml" : topologyRef, null);
  const sc = { ...resolved, durationNs: Math.round(opts.trafficNs * (opts.drainFactor ?? 20)) };
  const plans = planKills(topology, opts);
  const records: KillRecord[] = [];
  const actions: LiveAction[] = [];
  for (const p of plans) {
    const rec: { pid: number; reported: string; event: string | null; restarted: KillRecord["restarted"] } = {
      pid: 0,
      reported: "",
      event: null,
      restarted: null,
    };
    actions.push({
      atNs: p.atNs,
      async run(lab) {
        const d = (await lab.request<LabStatus>("status")).devices.find((x) => x.node === p.node)!;
        if (d.pid === null) throw new Error(`${p.node} has no process to kill (${d.status})`);
        rec.pid = d.pid;
        live.onProgress?.(`  chaos: SIGKILL ${p.node} (pid ${d.pid})`);
        process.kill(d.pid, "SIGKILL");
        rec.reported = (await waitStatus(lab, p.node, "crashed", 10_000)).status;
        const events = await lab.request<LabEvent[]>("events", { limit: 10_000 });
        rec.event =
          events.filter((e) => e.device === p.node && /process/.test(e.detail ?? "")).at(-1)?.detail ?? null;
        records.push({ ...p, ...rec });
      },
    });
    if (p.restartAtNs !== null)
      actions.push({
        atNs: p.restartAtNs,
        async run(lab) {
          live.onProgress?.(`  chaos: restart ${p.node}`);
          try {
            await lab.apply({ kind: "device", node: p.node, running: true });
            const d = await waitStatus(lab, p.node, "running", 10_000);
            rec.restarted = { status: d.status, restarts: d.restarts };
          } catch (e) {
            rec.restarted = { status: `restart failed: ${(e as Error).message}`, restarts: 0 };
          }
          const i = records.findIndex((r) => r.node === p.node);
          if (i >= 0) records[i] = { ...records[i]!, restarted: rec.restarted };
        },
      });
  }
  const report = await runScenarioLive(sc, { ...live, actions });
  const leftovers = {
    namespaces: (await listNamespaces(live.lab)).filter((ns) => ns.startsWith(`rl-${live.lab}-`)),
    processes: findLabProcesses(live.lab).map((p) => p.pid),
    stateDir: existsSync(labDir(live.lab)),
  };
  const deadHosts = new Set(plans.filter((p) => p.kind === "nic").map((p) => p.node));
  return {
    report,
    kills: records,
    leftovers,
    problems: judgeLiveChaos(report, plans, records, leftovers, deadHosts),
  };
}

/** The checks of a live chaos run. */
export function judgeLiveChaos(
  report: Report,
  plans: readonly KillPlan[],
  kills: readonly KillRecord[],
  leftovers: LiveChaosResult["leftovers"],
  deadHosts: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  for (const p of plans) {
    const k = kills.find((x) => x.node === p.node);
    if (!k) {
      problems.push(`${p.node} was not killed`);
      continue;
    }
    if (k.reported !== "crashed")
      problems.push(`${p.node}: the supervisor reported ${k.reported || "nothing"} after SIGKILL`);
    if (!/signal SIGKILL/.test(k.event ?? ""))
      problems.push(`${p.node}: no event named the SIGKILL (${k.event})`);
    if (p.restartAtNs !== null && (k.restarted?.status !== "running" || k.restarted.restarts < 1))
      problems.push(`${p.node}: not running again after the restart (${JSON.stringify(k.restarted)})`);
  }
  // Messages: every one whose endpoints survived must complete; the judge of the simulator's chaos does the rest.
  const survivors = report.flows.filter((f) => !deadHosts.has(f.src) && !deadHosts.has(f.dst));
  const unfinished = survivors.filter((f) => f.outcome !== "completed");
  if (unfinished.length > 0)
    problems.push(
      `${unfinished.length} of ${survivors.length} messages between surviving hosts did not complete`,
    );
  const rest = judgeChaos({ ...report, summary: { ...report.summary, flowsCompleted: 0, flowsTotal: 0 } });
  problems.push(...rest.problems);
  if (leftovers.namespaces.length > 0)
    problems.push(`down left namespaces: ${leftovers.namespaces.join(", ")}`);
  if (leftovers.processes.length > 0) problems.push(`down left processes: ${leftovers.processes.join(", ")}`);
  if (leftovers.stateDir) problems.push("down left the state directory");
  return problems;
}
