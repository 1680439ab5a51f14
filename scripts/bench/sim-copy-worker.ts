// A worker thread of `sim-parallel --contention`: runs one whole single-threaded simulation of the scenario it
// is given and posts its wall time (ms, from the scenario's build to its report).

import { parentPort, workerData } from "node:worker_threads";
import { runScenarioSim } from "../../src/run/run-sim.js";
import type { Scenario } from "../../src/scenario/scenario.js";

const { sc } = workerData as { sc: Scenario };
const t0 = performance.now();
runScenarioSim(sc);
parentPort!.postMessage(performance.now() - t0);
