// `onError: reconnect`: after a failed completion the workload connects again as an application would —
// a new QP pair (counted as qp_reconnects, a qp-reconnect event), every message that failed on the old
// pair posted again from its start, in posting order — and the report counts one flow per message from its
// first post; `stop` (the default) leaves the flow failed; a stopped workload is not retried; a message
// that keeps failing stops being retried after RECONNECT_LIMIT reconnects.

import t from "tap";
import { RECONNECT_LIMIT } from "../../src/lab/flow-driver.js";
import { runPair } from "../helpers/pair-scenario.js";

/** h1 -> h2 messages of `size` (rto 50 us, retryCnt 1: a QP fails ~100 us into an outage). */
function run(workload: Record<string, unknown>, timeline: unknown[], duration = "2ms") {
  return runPair("reconnect", {
    duration,
    overrides: { hosts: { transport: { rto: "50us", retryCnt: 1 } } },
    timeline: [
      {
        at: "0ns",
        start: { type: "flow", name: "app", from: "h1", to: "h2", size: "256KB", ...workload },
      },
      ...timeline,
    ],
  });
}

const OUTAGE = [
  { at: "5us", link: { down: "h2:eth1" } },
  { at: "400us", link: { up: "h2:eth1" } },
];

t.test("stop (the default): the flow fails retry_exceeded and stays failed", (t) => {
  const { report } = run({}, OUTAGE);
  const f = report.flows[0]!;
  t.equal(f.outcome, "failed");
  t.equal(f.error, "retry_exceeded");
  t.equal(f.reconnects, undefined, "no reconnect field");
  t.equal(report.devices.h1!.counters.qp_reconnects, 0);
  t.end();
});

t.test("reconnect: new QP pairs until the link is back, then the message completes from its start", (t) => {
  const { report, events } = run({ onError: "reconnect" }, OUTAGE);
  const f = report.flows[0]!;
  t.equal(f.outcome, "completed", "completed on a later QP pair");
  t.equal(f.error, null);
  const n = f.reconnects ?? 0;
  t.ok(n >= 2 && n <= 4, `a reconnect every ~100 us of the 395 us outage (${n})`);
  t.equal(report.devices.h1!.counters.qp_reconnects, n, "h1 counts each reconnect");
  t.equal(report.devices.h2!.counters.qp_reconnects, n, "and so does h2, the other end");
  t.equal(report.devices.h1!.counters.qp_errors, n, "each replaced QP had failed");
  const reconnects = events.filter((e) => e.kind === "qp-reconnect" && e.device === "h1");
  t.equal(reconnects.length, n, "a qp-reconnect event each");
  t.equal(reconnects[0]!.detail, "replaces 256", "naming the QP it replaces (h1's first, 0x100)");
  t.equal(f.qp, reconnects.at(-1)!.qp, "the flow reports the QP it completed on");
  t.equal(f.startNs, 0, "from its first post");
  t.ok(f.endNs! > 400_000, `after the link came back (${f.endNs} ns)`);
  t.equal(f.fctNs, f.endNs! - f.startNs, "the FCT spans every attempt");
  // From its start: the last attempt sent the whole message again.
  const failures = events.filter((e) => e.kind === "flow-failed");
  t.equal(failures.length, n, "one failure per attempt but the last");
  t.equal(report.summary.flowsFailed, 0);
  t.end();
});

t.test("several messages on the failed pair: one reconnect, all posted again in their order", (t) => {
  const { report, events } = run({ onError: "reconnect", repeat: 3 }, [
    // The first pair fails at its 2nd timeout (100 us); the link is back 20 us into the second.
    { at: "5us", link: { down: "h2:eth1" } },
    { at: "120us", link: { up: "h2:eth1" } },
  ]);
  t.same(
    report.flows.map((f) => [f.outcome, f.reconnects]),
    [
      ["completed", 1],
      ["completed", 1],
      ["completed", 1],
    ],
  );
  t.equal(report.devices.h1!.counters.qp_reconnects, 1, "one new QP pair for the three");
  const done = events.filter((e) => e.kind === "flow-done").map((e) => e.detail);
  t.same(
    done,
    report.flows.map((f) => String(f.id)),
    "completed in posting order",
  );
  t.end();
});

t.test("a message that keeps failing is retried RECONNECT_LIMIT times, then stays failed", (t) => {
  const { report } = run({ onError: "reconnect" }, [{ at: "5us", link: { down: "h2:eth1" } }], "5ms");
  const f = report.flows[0]!;
  t.equal(f.reconnects, RECONNECT_LIMIT);
  t.equal(f.outcome, "failed");
  t.equal(f.error, "retry_exceeded");
  t.equal(report.summary.flowsFailed, 1);
  t.end();
});

t.test("a workload stopped by the lab is not reconnected", (t) => {
  const { report } = run({ onError: "reconnect" }, [
    { at: "5us", link: { down: "h2:eth1" } },
    { at: "50us", stop: "all" },
  ]);
  const f = report.flows[0]!;
  t.equal(f.error, "stopped");
  t.equal(f.reconnects, undefined);
  t.equal(report.devices.h1!.counters.qp_reconnects, 0);
  t.end();
});
