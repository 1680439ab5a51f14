// The PFC deadlock on the live lab (issue 14): the same scenarios as the simulator's
// (docs/experiments/pfc-deadlock/), one process per device in network namespaces. Without the watchdog
// the routing loop freezes the ring; with it the deadlock is detected, broken and the victim completes.
// Lab name h14x (unique to this file).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import t, { type Test } from "tap";
import { runScenarioLive } from "../../src/lab/live/run-live.js";
import { loadScenario } from "../../src/lab/scenario.js";
import { labNamespaces, requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "h14x";
const RING = ["s1", "s2", "s3", "s4"] as const;

async function run(t: Test, name: string) {
  await rl(["--help"]); // builds dist/ for the device processes
  const out = join(t.testdir({}), "out");
  const report = await runScenarioLive(loadScenario(`docs/experiments/pfc-deadlock/${name}.yaml`), {
    outDir: out,
    dilation: 1000,
    lab: LAB,
  });
  t.same(await labNamespaces(LAB), [], "the lab is gone");
  const events = readFileSync(join(out, "events.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { kind: string; device: string; port?: number });
  return { report, events };
}

t.test("live: the routing loop deadlocks the ring without the watchdog", async (t) => {
  const { report } = await run(t, "loop-no-watchdog");
  t.equal(report.summary.flowsCompleted, 0, "neither flow completes");
  for (const n of RING) {
    const ports = report.devices[n]!.ports;
    const q3 = ports.eth1!.queues!["3"]!;
    t.ok(q3.packets! > 0, `${n} eth1 queue 3 still holds packets at the end (${q3.packets})`);
    t.equal(ports.eth2!.pg3_xoff, 1, `${n} still holds the previous switch in XOFF`);
  }
});

t.test("live: the watchdog (drop) breaks the deadlock and the victim completes", async (t) => {
  const { report, events } = await run(t, "loop-watchdog-drop");
  const stormed = new Set(events.filter((e) => e.kind === "pfc-storm").map((e) => e.device));
  t.ok(stormed.size >= 2, `storms declared on the ring (${[...stormed].join(", ")})`);
  t.ok(
    events.some((e) => e.kind === "pfc-storm-restored"),
    "and PFC restored",
  );
  const victim = report.flows.find((f) => f.workload === "victim")!;
  t.ok(victim.fctNs !== null && victim.fctNs !== undefined, `the victim completed (${victim.fctNs} ns)`);
});
