// A routing loop made while the fabric runs (issue 14): a static route added by a scenario step (what
// `rocelab inject route` does on a running lab) turns the healthy ring4 into a PFC deadlock; the same run
// without it, or with the route withdrawn again before traffic, delivers. Bad routes are refused with the
// file, the path and what is wrong.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import type { Step } from "../../src/scenario/action.js";
import { loadScenario, type Scenario } from "../../src/scenario/scenario.js";

const SCENARIO = "docs/experiments/pfc-deadlock/loop-stale-route.yaml";

function queue3(sc: ReturnType<typeof runScenarioSim>, node: string, port: string) {
  const sw = sc.fabric.switches.get(node)!;
  const p = sw.stats(sc.fabric.sim.now).ports.find((x) => x.name === port)!;
  return { q: p.queues![3]!, xoff: p.counters.pg3_xoff };
}

t.test("a stale route injected at 50 us deadlocks s3 and s4", (t) => {
  const run = runScenarioSim(loadScenario(SCENARIO));
  t.equal(run.report.summary.flowsCompleted, 0, "h1 -> h3 never completes");
  t.equal(run.report.summary.drops.lossless, 0, "nothing is dropped: stuck, not lost");
  const s3 = queue3(run, "s3", "eth1");
  const s4 = queue3(run, "s4", "eth2");
  t.ok(
    s3.q.counters.packets! > 0 && s3.q.paused,
    `s3 eth1 (to s4) holds ${s3.q.counters.packets} packets, paused`,
  );
  t.ok(
    s4.q.counters.packets! > 0 && s4.q.paused,
    `s4 eth2 (to s3) holds ${s4.q.counters.packets} packets, paused`,
  );
  t.end();
});

t.test("without the route, or with it withdrawn before traffic, the flow completes", (t) => {
  const sc = loadScenario(SCENARIO);
  const healthy: Scenario = { ...sc, timeline: sc.timeline.filter((s) => s.action.kind !== "route") };
  t.equal(runScenarioSim(healthy).report.summary.flowsCompleted, 1, "no route: delivered");
  const withdrawn: Step[] = [
    { atNs: 1_000, action: { kind: "route", node: "s3", to: "h3", via: "eth1" } },
    { atNs: 2_000, action: { kind: "route", node: "s3", to: "h3", via: null } },
    ...sc.timeline.filter((s) => s.action.kind !== "route"),
  ];
  t.equal(
    runScenarioSim({ ...sc, timeline: withdrawn }).report.summary.flowsCompleted,
    1,
    "withdrawn: delivered",
  );
  t.end();
});

t.test("the fabric refuses a route it cannot take, and a withdrawal of nothing", (t) => {
  const { fabric } = runScenarioSim(loadScenario(SCENARIO));
  t.throws(() => fabric.setStaticRoute("h1", "h3", "eth1"), /h1 is a host: static routes go on switches/);
  t.throws(
    () => fabric.setStaticRoute("s3", "h3", "eth7"),
    /s3 has no link on eth7 \(it has eth1, eth2, eth3\)/,
  );
  t.throws(() => fabric.setStaticRoute("s3", "h9", "eth1"), /"h9" is not a host of topology ring4/);
  t.throws(() => fabric.setStaticRoute("s3", "10.1.0.0/40", "eth1"), /not a prefix/);
  t.throws(() => fabric.setStaticRoute("s1", "h3", null), /s1 has no added route to h3/);
  t.end();
});

t.test("a scenario's bad route step names the file and the path", (t) => {
  const dir = t.testdir({});
  const file = join(dir, "bad.yaml");
  writeFileSync(
    file,
    [
      "name: bad",
      `topology: ${join(process.cwd(), "docs/examples/ring4.yaml")}`,
      "duration: 1ms",
      "timeline:",
      "  - at: 5us",
      "    inject: { route: { node: s3, to: h3, via: eth9 } }",
      "  - at: 6us",
      "    inject: { withdrawRoute: { node: h1, to: h3 } }",
      "",
    ].join("\n"),
  );
  let message = "";
  try {
    loadScenario(file);
  } catch (e) {
    message = (e as Error).message;
  }
  t.match(message, /bad\.yaml/);
  t.match(message, /bad\.yaml:6:\d+: timeline\[0\]\.inject\.route: s3 has no link on eth9/);
  t.match(message, /bad\.yaml:8:\d+: timeline\[1\]\.inject\.withdrawRoute: h1 is a host/);
  t.end();
});
