// One tuner trial: the scenario in the simulator with a candidate's settings on top of its overrides.

import { loadScenario } from "../../scenario/scenario.js";
import { runScenarioSim } from "../run-sim.js";
import { type Candidate, type TuneResult, withCandidate } from "./search.js";

export interface Trial {
  readonly scenarioFile: string;
  readonly candidate: Candidate;
  /** Run only this long (emulated ns); default: the scenario's duration. */
  readonly durationNs?: number;
  /** Override the scenario's seed. */
  readonly seed?: number;
}

export function evaluate(trial: Trial): TuneResult {
  const base = loadScenario(trial.scenarioFile);
  const sc = {
    ...base,
    overrides: withCandidate(base.overrides, trial.candidate),
    ...(trial.durationNs !== undefined ? { durationNs: trial.durationNs } : {}),
    ...(trial.seed !== undefined ? { seed: trial.seed } : {}),
  };
  const s = runScenarioSim(sc).report.summary;
  return {
    candidate: trial.candidate,
    goodputBps: s.goodputBps,
    deliveredBytes: s.deliveredBytes,
    // No flow at all: no FCT; 0 is never ranked, as such a trial completed nothing (rankingBasis).
    p99FctNs: s.fctNs?.p99 ?? 0,
    p99AtLeast: s.fctNs?.atLeast.p99 ?? false,
    pauseFrames: s.pauseFramesTx,
    cnpSent: s.cnpSent,
    losslessDrops: s.drops.lossless,
    flowsCompleted: s.flowsCompleted,
    // The flows due within the trial: a later round past a shortened --duration is no unfinished flow.
    flowsTotal: s.flowsCompleted + s.flowsUnfinished,
  };
}
