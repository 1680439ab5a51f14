// A workload's own QP attributes (`transport` in a workload): over the hosts' settings for its QPs only,
// which it keeps to itself; both ends of its QP pairs take them (the requester's timeout and retries, the
// responder's receive queue and RNR timer). Bad values are refused naming the file, the path and the range.

import { join } from "node:path";
import t from "tap";
import { ConfigError } from "../../src/scenario/config-error.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { runPair } from "../helpers/pair-scenario.js";

function run(hosts: Record<string, unknown>, timeline: unknown[], duration = "2ms") {
  return runPair("attrs", { duration, overrides: { hosts }, timeline }).report.flows;
}

t.test("timeout and retries: the impatient workload fails, the host's settings carry the other", (t) => {
  const flow = { type: "flow", from: "h1", to: "h2", size: "1MB" };
  const flows = run({ transport: { rto: "200us", retryCnt: 7 } }, [
    { at: "0ns", start: { ...flow, name: "patient" } },
    { at: "0ns", start: { ...flow, name: "impatient", transport: { rto: "50us", retryCnt: 1 } } },
    { at: "5us", link: { down: "h2:eth1" } },
    { at: "300us", link: { up: "h2:eth1" } },
  ]);
  const by = Object.fromEntries(flows.map((f) => [f.workload, f]));
  const patient = by.patient!;
  const impatient = by.impatient!;
  t.not(patient.qp, impatient.qp, "a QP pair of its own");
  t.equal(impatient.outcome, "failed");
  t.equal(impatient.error, "retry_exceeded");
  t.ok(
    impatient.endNs! >= 100_000 && impatient.endNs! < 200_000,
    `failed at its 2nd 50 us timeout (${impatient.endNs} ns), before the host's 200 us`,
  );
  t.equal(patient.outcome, "completed", "the host's rto 200us x retryCnt 7 outlasts the outage");
  t.end();
});

t.test("receive queue and rnrRetry on both ends: the workload's SENDs meet no receive", (t) => {
  const send = { type: "flow", op: "send", from: "h1", to: "h2", size: "64KB" };
  const flows = run({}, [
    { at: "0ns", start: { ...send, name: "plain" } },
    {
      at: "0ns",
      start: { ...send, name: "starved", transport: { recvDepth: 0, rnrRetry: 2, minRnrTimer: 1 } },
    },
  ]);
  const by = Object.fromEntries(flows.map((f) => [f.workload, f]));
  t.equal(by.plain!.outcome, "completed", "the host's default: a receive is always posted");
  t.equal(by.starved!.outcome, "failed");
  t.equal(
    by.starved!.error,
    "rnr_retry_exceeded",
    "h2's QP had no receive, h1's QP gave up after 2 RNR retries",
  );
  t.ok(by.starved!.endNs! < 100_000, `after 3 RNR NAKs of 10 us each (${by.starved!.endNs} ns)`);
  t.end();
});

t.test("invalid workload QP attributes: file, line, path and what is allowed", (t) => {
  const step = (transport: string) =>
    `duration: 5ms\ntimeline:\n  - at: 0us\n    start: { type: flow, from: h1, to: h8, size: 1MB, transport: ${transport} }\n`;
  const dir = t.testdir({
    "retry.yaml": step("{ retryCnt: 9 }"),
    "timer.yaml": step("{ minRnrTimer: -1 }"),
    "key.yaml": step("{ ackReqEvery: 4 }"),
  });
  const message = (file: string) => {
    try {
      loadScenario(join(dir, file));
    } catch (e) {
      if (e instanceof ConfigError) return e.message;
      throw e;
    }
    return "(no error)";
  };
  t.match(message("retry.yaml"), /retry\.yaml:4:\d+: timeline\[0\]\.start\.transport\.retryCnt: .*7/);
  t.match(message("timer.yaml"), /timer\.yaml:4:\d+: timeline\[0\]\.start\.transport\.minRnrTimer: .*0/);
  t.match(message("key.yaml"), /key\.yaml:4:\d+: timeline\[0\]\.start\.transport.*ackReqEvery/);
  t.end();
});
