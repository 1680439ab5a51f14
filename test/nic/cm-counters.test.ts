// The CM agent's counters (src/nic/cm-counters.ts) in a simulated run with `connect: on-demand`: every
// message kind counted where it was sent and where it was received, one connection per burst on the active
// side, and the set-up time equal to the time from each `cm REQ` event to its `cm connected` event.
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import type { SimEvent } from "../../src/runtime/sim/simulator.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";

const BURSTS = 3;

const scenario = (connect: "pre" | "on-demand") =>
  resolveScenario(
    scenarioFile.parse({
      name: `cm-counters-${connect}`,
      duration: "500us",
      timeline: [
        {
          at: "5us",
          start: {
            type: "incast",
            to: "h5",
            from: ["h1", "h2"],
            size: "32KB",
            repeat: BURSTS,
            interval: "100us",
            connect,
          },
        },
      ],
    }),
    "cm-counters.yaml",
    null,
  );

t.test("CM messages, connections and set-up time are counted", (t) => {
  const events: SimEvent[] = [];
  const { report } = runScenarioSim(scenario("on-demand"), { onEvent: (e) => events.push(e) });
  t.equal(report.summary.flowsCompleted, 2 * BURSTS);
  const c = (d: string, n: string) => report.devices[d]!.counters[n];
  for (const h of ["h1", "h2"]) {
    for (const k of ["req", "rtu", "dreq"]) {
      t.equal(c(h, `cm_tx_msgs_${k}`), BURSTS, `${h} sent ${k}`);
      t.equal(c(h, `cm_rx_msgs_${k}`), 0, `${h} received no ${k}`);
    }
    for (const k of ["rep", "drep"]) t.equal(c(h, `cm_rx_msgs_${k}`), BURSTS, `${h} received ${k}`);
    t.equal(c(h, "cm_connects"), BURSTS, `${h}: one connection per burst`);
    // The active side's REQ → connected, from its own events.
    let req = 0;
    const times: number[] = [];
    for (const e of events) {
      if (e.device !== h || e.kind !== "info") continue;
      if (e.detail?.startsWith("cm REQ")) req = e.t;
      if (e.detail?.startsWith("cm connected")) times.push(e.t - req);
    }
    t.equal(times.length, BURSTS);
    t.equal(
      c(h, "cm_connect_time_ns_total"),
      times.reduce((a, b) => a + b, 0),
      `${h}: set-up time summed`,
    );
    t.equal(c(h, "cm_connect_time_max_ns"), Math.max(...times), `${h}: longest set-up`);
    t.ok(Math.min(...times) > 0);
  }
  for (const k of ["rep", "drep"]) t.equal(c("h5", `cm_tx_msgs_${k}`), 2 * BURSTS, `h5 sent ${k}`);
  for (const k of ["req", "rtu", "dreq"]) t.equal(c("h5", `cm_rx_msgs_${k}`), 2 * BURSTS, `h5 received ${k}`);
  t.equal(c("h5", "cm_connects"), 0, "the passive side sets up none");

  const pre = runScenarioSim(scenario("pre"), {}).report;
  t.equal(pre.devices.h1!.counters.cm_tx_msgs_req, 0, "pre-connected QPs send no CM message");
  t.equal(pre.devices.h1!.counters.cm_connects, 0);
  t.end();
});
