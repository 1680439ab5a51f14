// `qpPerMessage`: two messages between the same hosts share the pair's QP (and the second waits for the
// first) unless each gets a QP pair of its own, as HPCC's ns-3 runs every flow.
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { PAIR_TOPOLOGY } from "../helpers/pair-scenario.js";

function twoMessages(qpPerMessage: boolean | undefined) {
  const flow = {
    type: "flow",
    from: "h1",
    to: "h2",
    size: "200KB",
    ...(qpPerMessage === undefined ? {} : { qpPerMessage }),
  };
  const sc = resolveScenario(
    scenarioFile.parse({
      name: "two-messages",
      seed: 1,
      duration: "200us",
      topology: PAIR_TOPOLOGY,
      timeline: [
        { at: "0ns", start: { ...flow, name: "a" } },
        { at: "0ns", start: { ...flow, name: "b" } },
      ],
    }),
    "two-messages",
    null,
  );
  return runScenarioSim(sc).report.flows;
}

t.test("shared by default: one QP, the second message after the first", (t) => {
  const [a, b] = twoMessages(undefined);
  t.equal(a!.qp, b!.qp, "the pair's QP");
  t.ok(b!.fctNs! > 1.5 * a!.fctNs!, `b waited for a: ${a!.fctNs} then ${b!.fctNs} ns`);
  t.end();
});

t.test("qpPerMessage: a QP pair each, the two sharing the link side by side", (t) => {
  const [a, b] = twoMessages(true);
  t.not(a!.qp, b!.qp, "two QPs");
  t.ok(
    Math.abs(a!.fctNs! - b!.fctNs!) < 0.1 * a!.fctNs!,
    `both finish together: ${a!.fctNs} and ${b!.fctNs} ns`,
  );
  t.end();
});
