// Same scenario, same seed: the same run, bit for bit. A different seed changes the random choices.
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";

function scenario(seed: number) {
  const parsed = scenarioFile.parse({
    name: "determinism",
    seed,
    duration: "400us",
    sample: "5us",
    overrides: { hosts: { dcqcn: "nvidia" } },
    timeline: [
      { at: "5us", start: { type: "incast", to: "h8", from: 6, size: "300KB", qps: 2 } },
      {
        at: "50us",
        start: { type: "mix", hosts: ["h1", "h2", "h5"], load: "30%", sizes: "websearch", duration: "200us" },
      },
      { at: "150us", link: { down: "leaf1:eth1" } },
    ],
  });
  return resolveScenario(parsed, "determinism.yaml", null);
}

t.test("two runs with one seed give identical reports and event logs", (t) => {
  const a = runScenarioSim(scenario(5));
  const b = runScenarioSim(scenario(5));
  const strip = (r: typeof a.report) => JSON.stringify({ ...r, wallClockMs: 0 });
  t.ok(a.report.summary.flowsTotal > 6, `flows ran (${a.report.summary.flowsTotal})`);
  t.ok(a.report.summary.ecnMarked > 0, "the run was congested enough to exercise WRED's random draws");
  t.equal(strip(a.report), strip(b.report), "identical reports");
  t.equal(a.fabric.sim.eventsProcessed, b.fabric.sim.eventsProcessed, "identical event counts");
  t.end();
});

t.test("another seed gives another run", (t) => {
  const a = runScenarioSim(scenario(5));
  const c = runScenarioSim(scenario(6));
  t.not(JSON.stringify(a.report.flows), JSON.stringify(c.report.flows), "the mix workload draws differently");
  t.end();
});
