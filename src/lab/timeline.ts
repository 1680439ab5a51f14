// The one timeline runner. A scenario's timeline is a list of steps (start a workload, change settings, take
// a link down or up, stop workloads) at emulated times; both runtimes play it through the same dispatch
// below. What differs is only time: the simulator turns every step into an event of its virtual-time queue
// up front (synchronously, before it runs), the live lab waits in real time for each step and awaits it.

import type { WorkloadSpec } from "../nic/workloads.js";
import type { Step } from "../scenario/scenario.js";
import type { SettingsChange } from "../scenario/settings-layers.js";

/** What a lab does for the steps of a timeline; `R` is `void` in virtual time, `Promise<void>` live. */
export interface TimelineLab<R extends void | Promise<void>> {
  /** Posts a workload's flows; `stream` names its random stream, so both runtimes post the same flows. */
  startWorkload(atNs: number, spec: WorkloadSpec, stream: string): R;
  /** Puts a settings change on top of the lab's layers and reconfigures the devices it touches. */
  applySettings(atNs: number, change: SettingsChange): R;
  /** Takes the link at node:port down or brings it up. */
  setLink(atNs: number, node: string, port: number, up: boolean): R;
  /** Stops posting new messages of the named workloads (or of all). */
  stopWorkloads(atNs: number, workloads: "all" | readonly string[]): R;
  /** A host's NIC starts a PFC storm on `priority` (null: stops it). */
  pfcStorm(atNs: number, host: string, priority: number | null, intervalNs: number | undefined): R;
  /** Kills a device as a crash would (running false) or restarts it with fresh state (running true). */
  setDevice(atNs: number, node: string, running: boolean): R;
  /** Adds (via ethN) or withdraws (via null) a static route on a switch. */
  staticRoute(atNs: number, node: string, to: string, via: string | null): R;
}

/** Virtual time: `at` schedules `run` at emulated `atNs` and returns at once. */
export interface ScheduleClock {
  at(atNs: number, run: () => void): void;
}

/**
 * Real time: `at` waits until emulated `atNs`, runs and awaits `run`; false when the run was interrupted.
 * `ahead` says the step may be handed to the lab before its time, because the devices carry it out at
 * `atNs` themselves (a workload start: the NICs post each flow at its own emulated time).
 */
export interface WaitClock {
  at(atNs: number, run: () => Promise<void>, ahead: boolean): Promise<boolean>;
}

/** The random stream of a workload's flows (the same in both runtimes). */
function workloadStream(spec: WorkloadSpec): string {
  return `workload:${spec.name}`;
}

type Handlers<R extends void | Promise<void>> = {
  readonly [K in Step["kind"]]: (lab: TimelineLab<R>, step: Extract<Step, { kind: K }>) => R;
};

function handlers<R extends void | Promise<void>>(): Handlers<R> {
  return {
    start: (lab, s) => lab.startWorkload(s.atNs, s.workload, workloadStream(s.workload)),
    set: (lab, s) => lab.applySettings(s.atNs, s.change),
    link: (lab, s) => lab.setLink(s.atNs, s.node, s.port, s.up),
    stop: (lab, s) => lab.stopWorkloads(s.atNs, s.workloads),
    "pfc-storm": (lab, s) => lab.pfcStorm(s.atNs, s.host, s.priority, s.intervalNs),
    route: (lab, s) => lab.staticRoute(s.atNs, s.node, s.to, s.via),
    device: (lab, s) => lab.setDevice(s.atNs, s.node, s.running),
  };
}

const STEP_KINDS: readonly string[] = Object.keys(handlers());

function unknownKind(step: Step, index: number | null): Error {
  const which = index === null ? "timeline step" : `timeline step ${index}`;
  return new Error(
    `${which} (at ${step.atNs} ns) has unknown kind "${String(step.kind)}" (known: ${STEP_KINDS.join(", ")})`,
  );
}

/** Hands one step to the lab. */
function runStep<R extends void | Promise<void>>(lab: TimelineLab<R>, step: Step): R {
  const run = handlers<R>()[step.kind] as ((lab: TimelineLab<R>, step: Step) => R) | undefined;
  if (run === undefined) throw unknownKind(step, null);
  return run(lab, step);
}

/** Throws, naming the step, if a timeline holds a step this runner does not know. */
function checkTimeline(timeline: readonly Step[]): void {
  for (const [i, step] of timeline.entries()) if (!STEP_KINDS.includes(step.kind)) throw unknownKind(step, i);
}

/**
 * Walks a timeline in order over a lab. With a ScheduleClock (virtual time) every step is scheduled before
 * this returns; with a WaitClock (real time) each step is awaited in turn, and the walk ends early when the
 * clock reports an interruption. A timeline with an unknown step kind fails before any step runs.
 */
export function runTimeline(timeline: readonly Step[], lab: TimelineLab<void>, clock: ScheduleClock): void;
export function runTimeline(
  timeline: readonly Step[],
  lab: TimelineLab<Promise<void>>,
  clock: WaitClock,
): Promise<void>;
export function runTimeline(
  timeline: readonly Step[],
  lab: TimelineLab<void> | TimelineLab<Promise<void>>,
  clock: ScheduleClock | WaitClock,
): void | Promise<void> {
  checkTimeline(timeline);
  const at = clock.at.bind(clock) as (
    atNs: number,
    run: () => void | Promise<void>,
    ahead: boolean,
  ) => Promise<boolean> | undefined;
  const walk = (from: number): void | Promise<void> => {
    for (let i = from; i < timeline.length; i++) {
      const step = timeline[i]!;
      const went = at(step.atNs, () => runStep<void | Promise<void>>(lab, step), step.kind === "start");
      if (went instanceof Promise) return went.then((ok) => (ok ? walk(i + 1) : undefined));
    }
  };
  return walk(0);
}
