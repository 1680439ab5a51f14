// Waiting for a workload: done only when every one of its flows has a completion, not when it was posted.
import t from "tap";
import type { FlowReport } from "../../src/lab/flow-report.js";
import { waitForWorkload, workloadProgress } from "../../src/lab/workload-wait.js";

function flow(id: number, workload: string, endNs: number | null): FlowReport {
  return {
    id,
    workload,
    src: `h${id}`,
    dst: "h8",
    op: "write",
    qp: 100 + id,
    bytes: 1000,
    startNs: 0,
    endNs,
    fctNs: endNs,
    goodputBps: endNs === null ? null : 8e12 / endNs,
    retransmits: 0,
    outcome: endNs === null ? "unfinished" : "completed",
    error: null,
  };
}

t.test("progress counts only the named workload's flows", async (t) => {
  const report = [flow(1, "incast-1", 10), flow(2, "incast-1", null), flow(3, "other", null)];
  const p = workloadProgress(report, "incast-1");
  t.equal(p.flows.length, 2);
  t.equal(p.completed, 1);
  t.equal(p.done, false);
  t.equal(workloadProgress([flow(1, "incast-1", 10)], "incast-1").done, true);
  t.equal(workloadProgress(report, "nothing").done, false, "a workload the lab does not know is never done");
  const failed: FlowReport = {
    ...flow(2, "incast-1", 20),
    fctNs: null,
    outcome: "failed",
    error: "retry_exceeded",
  };
  const ended = workloadProgress([flow(1, "incast-1", 10), failed], "incast-1");
  t.same([ended.completed, ended.failed, ended.done], [1, 1, true], "a failed flow has ended too");
});

/** A clock that only sleeping advances. */
function fakeTime() {
  const time = {
    now: 0,
    sleep: async (ms: number) => {
      time.now += ms;
    },
    clock: () => time.now,
  };
  return time;
}

t.test("waits until the last flow completed, reading the report between sleeps", async (t) => {
  let reads = 0;
  const time = fakeTime();
  const p = await waitForWorkload(
    async () => {
      reads++;
      return [flow(1, "w", 5), flow(2, "w", reads >= 3 ? 9 : null)];
    },
    "w",
    { timeoutMs: 10_000, pollMs: 100, sleep: time.sleep, clock: time.clock },
  );
  t.equal(p.done, true);
  t.equal(reads, 3, "two sleeps, three reads");
  t.equal(time.now, 200);
});

t.test("gives up at the limit with the last reading", async (t) => {
  const time = fakeTime();
  const p = await waitForWorkload(async () => [flow(1, "w", null), flow(2, "w", 4)], "w", {
    timeoutMs: 1000,
    pollMs: 300,
    sleep: time.sleep,
    clock: time.clock,
  });
  t.equal(p.done, false);
  t.equal(p.completed, 1);
  t.equal(time.now, 1000, "the last sleep is cut to the deadline");
});
