// The one timeline runner. A scenario's timeline is a list of steps, each a lab action at an emulated time
// (scenario/action.ts); both runtimes play it through here and carry each action out with their own
// handler. What differs is only time: the simulator turns every step into an event of its virtual-time
// queue up front (synchronously, before it runs), the live lab waits in real time for each step and awaits
// it.

import { ACTION_KINDS, type LabAction, type Step } from "../scenario/action.js";

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

/** Carries out one step's action at its time (`atNs`, scenario time). */
export type ApplyStep<R extends void | Promise<void>> = (action: LabAction, atNs: number) => R;

/** The random stream of a workload's flows (the same in both runtimes). */
export function workloadStream(name: string): string {
  return `workload:${name}`;
}

/** Throws, naming the step, if a timeline holds an action this runner does not know. */
function checkTimeline(timeline: readonly Step[]): void {
  for (const [i, step] of timeline.entries()) {
    if (!ACTION_KINDS.includes(step.action.kind)) {
      throw new Error(
        `timeline step ${i} (at ${step.atNs} ns) has unknown kind "${String(step.action.kind)}" (known: ${ACTION_KINDS.join(", ")})`,
      );
    }
  }
}

/**
 * Walks a timeline in order. With a ScheduleClock (virtual time) every step is scheduled before this
 * returns; with a WaitClock (real time) each step is awaited in turn, and the walk ends early when the
 * clock reports an interruption. A timeline with an unknown action fails before any step runs.
 */
export function runTimeline(timeline: readonly Step[], apply: ApplyStep<void>, clock: ScheduleClock): void;
export function runTimeline(
  timeline: readonly Step[],
  apply: ApplyStep<Promise<void>>,
  clock: WaitClock,
): Promise<void>;
export function runTimeline(
  timeline: readonly Step[],
  apply: ApplyStep<void> | ApplyStep<Promise<void>>,
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
      const went = at(step.atNs, () => apply(step.action, step.atNs), step.action.kind === "start");
      if (went instanceof Promise) return went.then((ok) => (ok ? walk(i + 1) : undefined));
    }
  };
  return walk(0);
}
