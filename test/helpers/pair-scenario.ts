// The smallest fabric a transport test needs: two hosts on one switch, run in the simulator.

import { runScenarioSim } from "../../src/run/run-sim.js";
import type { SimEvent } from "../../src/runtime/sim/simulator.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";

export const PAIR_TOPOLOGY = {
  name: "pair",
  nodes: { sw: { kind: "switch" }, h1: { kind: "host" }, h2: { kind: "host" } },
  links: [
    ["h1:eth1", "sw:eth1"],
    ["h2:eth1", "sw:eth2"],
  ],
};

/** The scenario file's fields besides its name, seed (1) and topology (PAIR_TOPOLOGY). */
export interface PairScenario {
  duration: string;
  timeline: unknown[];
  overrides?: Record<string, unknown>;
}

/** Runs `body` on PAIR_TOPOLOGY in the simulator: its report and every event it emitted. */
export function runPair(name: string, body: PairScenario) {
  const events: SimEvent[] = [];
  const sc = resolveScenario(
    scenarioFile.parse({ name, seed: 1, topology: PAIR_TOPOLOGY, ...body }),
    name,
    null,
  );
  const { report } = runScenarioSim(sc, { onEvent: (e) => events.push(e) });
  return { report, events };
}
