// The one timeline runner, against a fake lab: steps' actions reach the lab in timeline order with their times,
// in virtual time all are scheduled before the run starts, in real time each is awaited before the next
// wait, an interruption ends the walk, and an unknown step kind fails before any step runs.
import t from "tap";
import { type ApplyStep, runTimeline, type ScheduleClock, type WaitClock } from "../../src/lab/timeline.js";
import type { WorkloadSpec } from "../../src/nic/workloads.js";
import type { LabAction, Step } from "../../src/scenario/action.js";
import { NO_CHANGE, switchChange } from "../../src/scenario/settings-layers.js";

function flow(name: string): WorkloadSpec {
  return {
    name,
    type: "flow",
    op: "write",
    qps: 1,
    repeat: 1,
    intervalNs: 0,
    from: "h1",
    to: "h2",
    bytes: 1000,
  };
}

const change = switchChange({ buffer: { reserve: 4096 } }, ["leaf1"]);
const TIMELINE: readonly Step[] = [
  { atNs: 0, action: { kind: "start", workload: flow("a") } },
  { atNs: 0, action: { kind: "set", change } },
  { atNs: 5_000, action: { kind: "link", node: "leaf1", port: 1, up: false } },
  { atNs: 7_000, action: { kind: "start", workload: flow("b") } },
  { atNs: 9_000, action: { kind: "stop", workloads: ["a"] } },
  { atNs: 9_000, action: { kind: "link", node: "leaf1", port: 1, up: true } },
  { atNs: 10_000, action: { kind: "route", node: "spine1", to: "h5", via: "eth1" } },
  { atNs: 11_000, action: { kind: "route", node: "spine1", to: "h5", via: null } },
  { atNs: 11_000, action: { kind: "device", node: "spine2", running: false } },
  { atNs: 11_500, action: { kind: "device", node: "spine2", running: true } },
  { atNs: 12_000, action: { kind: "stop", workloads: "all" } },
];

const EXPECTED = [
  "0 start a",
  "0 set leaf1",
  "5000 link leaf1:1 down",
  "7000 start b",
  "9000 stop a",
  "9000 link leaf1:1 up",
  "10000 route spine1 h5 eth1",
  "11000 route spine1 h5 withdrawn",
  "11000 device spine2 kill",
  "11500 device spine2 restart",
  "12000 stop all",
];

/** One line per action, as the fake lab writes it down. */
function line(a: LabAction, at: number): string {
  switch (a.kind) {
    case "start":
      return `${at} start ${a.workload.name}`;
    case "set":
      return `${at} set ${Object.keys(a.change.nodes).join(",")}${a.change.switches.length ? "all" : ""}`;
    case "link":
      return `${at} link ${a.node}:${a.port} ${a.up ? "up" : "down"}`;
    case "stop":
      return `${at} stop ${a.workloads === "all" ? "all" : a.workloads.join(",")}`;
    case "device":
      return `${at} device ${a.node} ${a.running ? "restart" : "kill"}`;
    case "route":
      return `${at} route ${a.node} ${a.to} ${a.via ?? "withdrawn"}`;
    default:
      return `${at} ${a.kind}`;
  }
}

/** A lab that writes down what it was asked; `wrap` makes its answers sync or async. */
function fakeLab<R extends void | Promise<void>>(wrap: (line: string) => R): ApplyStep<R> {
  return (a, at) => wrap(line(a, at));
}

t.test("virtual time: every step is scheduled at its time, in order, before anything runs", (t) => {
  const log: string[] = [];
  const lab = fakeLab<void>((line) => {
    log.push(line);
  });
  const scheduled: { at: number; run: () => void }[] = [];
  const clock: ScheduleClock = { at: (at, run) => scheduled.push({ at, run }) };
  runTimeline(TIMELINE, lab, clock);
  t.same(
    scheduled.map((s) => s.at),
    [0, 0, 5_000, 7_000, 9_000, 9_000, 10_000, 11_000, 11_000, 11_500, 12_000],
    "one event per step, at the step's time",
  );
  t.same(log, [], "nothing ran while scheduling");
  for (const s of scheduled) s.run();
  t.same(log, EXPECTED, "each step reached the lab with its arguments");
  t.end();
});

t.test("real time: waits for a step, awaits it, then waits for the next", async (t) => {
  const log: string[] = [];
  const lab = fakeLab<Promise<void>>(async (line) => {
    log.push(`begin ${line}`);
    await new Promise((r) => setTimeout(r, 1));
    log.push(`end ${line}`);
  });
  const clock: WaitClock = {
    at: async (at, run) => {
      log.push(`wait ${at}`);
      await run();
      return true;
    },
  };
  await runTimeline(TIMELINE, lab, clock);
  const expected = EXPECTED.flatMap((line) => [`wait ${line.split(" ")[0]}`, `begin ${line}`, `end ${line}`]);
  t.same(log, expected, "strictly one step after the other");
});

t.test("real time: an interruption ends the walk at the step it waited for", async (t) => {
  const log: string[] = [];
  const lab = fakeLab<Promise<void>>(async (line) => {
    log.push(line);
  });
  const asked: number[] = [];
  const clock: WaitClock = {
    at: async (at, run) => {
      asked.push(at);
      if (at >= 7_000) return false;
      await run();
      return true;
    },
  };
  await runTimeline(TIMELINE, lab, clock);
  t.same(log, EXPECTED.slice(0, 3), "the steps before 7 µs ran, none after");
  t.same(asked, [0, 0, 5_000, 7_000], "no wait after the interrupted one");
});

t.test("an unknown step kind fails with its index, time and the known kinds, before any step", async (t) => {
  const bad = [
    ...TIMELINE.slice(0, 2),
    { atNs: 6_000, action: { kind: "explode" } } as unknown as Step,
    ...TIMELINE.slice(2),
  ];
  const message =
    /timeline step 2 \(at 6000 ns\) has unknown kind "explode" \(known: start, incast, udp, stop, link, device, pfc-storm, pfc-enable, set, route, dilation, clear-counters\)/;
  const log: string[] = [];
  const scheduled: number[] = [];
  t.throws(
    () =>
      runTimeline(
        bad,
        fakeLab<void>((line) => {
          log.push(line);
        }),
        { at: (at) => scheduled.push(at) },
      ),
    message,
  );
  t.same(scheduled, [], "virtual time: nothing scheduled");
  const waited: number[] = [];
  await t.rejects(
    async () =>
      runTimeline(
        bad,
        fakeLab<Promise<void>>(async (line) => {
          log.push(line);
        }),
        {
          at: async (at, run) => {
            waited.push(at);
            await run();
            return true;
          },
        },
      ),
    message,
  );
  t.same(waited, [], "real time: nothing waited for");
  t.same(log, [], "the lab was asked nothing");
});

t.test(
  "an empty change still reaches the lab (the simulator reconfigures the switches on every set)",
  (t) => {
    const log: string[] = [];
    const scheduled: (() => void)[] = [];
    runTimeline(
      [{ atNs: 3, action: { kind: "set", change: NO_CHANGE } }],
      fakeLab<void>((line) => {
        log.push(line);
      }),
      { at: (_at, run) => scheduled.push(run) },
    );
    for (const run of scheduled) run();
    t.same(log, ["3 set "]);
    t.end();
  },
);

t.test("real time: only workload starts may be handed to the lab ahead of their time", async (t) => {
  const lab = fakeLab<Promise<void>>(async () => {});
  const asked: string[] = [];
  const clock: WaitClock = {
    at: async (at, run, ahead) => {
      asked.push(`${at}${ahead ? " ahead" : ""}`);
      await run();
      return true;
    },
  };
  await runTimeline(TIMELINE, lab, clock);
  t.same(
    asked,
    TIMELINE.map((s) => `${s.atNs}${s.action.kind === "start" ? " ahead" : ""}`),
    "the NICs start a workload's flows at their times themselves; every other step waits for its time",
  );
});
