// The PFC deadlock on the live lab (issue 14): the same scenarios as the simulator's
// (docs/experiments/pfc-deadlock/), one process per device in network namespaces. Without the watchdog
// the routing loop freezes the ring; with it the deadlock is detected, broken and the victim completes;
// with port-group prevention (DSCP remap) no deadlock forms.
// Lab name h14x (unique to this file).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t, { type Test } from "tap";
import { runScenarioLive } from "../../src/run/run-live.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { guardLab, labNamespaces, requireRoot, rl, statsOf, upLab } from "../helpers/live.js";

requireRoot(t);

const LAB = "h14x";
const RING = ["s1", "s2", "s3", "s4"] as const;

async function run(t: Test, name: string) {
  await rl(["--help"]); // builds dist/ for the device processes
  guardLab(LAB);
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

t.test("live: with port-group prevention the loop never deadlocks and the victim keeps moving", async (t) => {
  const { report, events } = await run(t, "loop-prevention");
  const victim = report.flows.find((f) => f.workload === "victim")!;
  t.ok(victim.fctNs !== null && victim.fctNs !== undefined, `the victim completed (${victim.fctNs} ns)`);
  t.equal(report.summary.drops.lossless, 0, "no lossless drops");
  t.notOk(
    events.some((e) => e.kind === "pfc-storm"),
    "the watchdog never had a deadlock to break",
  );
  let toLossless = 0;
  let toLossy = 0;
  for (const n of RING) {
    const ports = report.devices[n]!.ports;
    t.equal(ports.eth2!.pg3_xoff, 0, `${n} holds no XOFF on priority 3 at the end`);
    t.equal(ports.eth2!.pg4_xoff, 0, `${n} holds no XOFF on priority 4 at the end`);
    const q = ports.eth1!.queues ?? {};
    toLossless += q["4"]?.deadlock_remapped ?? 0;
    toLossy += q["1"]?.deadlock_remapped ?? 0;
  }
  t.ok(toLossless > 0, `bounced packets were moved to lossless queue 4 (${toLossless})`);
  t.ok(toLossy > 0, `and bounced-again ones to lossy queue 1 (${toLossy})`);
});

t.test(
  "live: rocelab inject route makes a stale route on a running ring, --withdraw takes it back",
  async (t) => {
    const lab = "h14r";
    t.teardown(async () => {
      await rl(["down", "--name", lab]);
    });
    await upLab(t, lab, "docs/examples/ring4.yaml");
    const ping = () =>
      execa("ip", ["netns", "exec", `rl-${lab}-h1`, "ping", "-c", "2", "-W", "3", "10.1.0.5"], {
        reject: false,
      });
    t.equal((await ping()).exitCode, 0, "h1 pings h3 round the ring");

    const bad = await rl(["inject", "route", "s3", "h3", "eth9", "--name", lab]);
    t.not(bad.exitCode, 0, "a port s3 does not have is refused");
    t.match(bad.stderr, /s3 has no link on eth9 \(it has eth1, eth2, eth3\)/);
    t.match((await rl(["inject", "route", "h1", "h3", "eth1", "--name", lab])).stderr, /h1 is a host/);

    const add = await rl(["inject", "route", "s3", "h3", "eth1", "--name", lab]);
    t.equal(add.exitCode, 0, add.stderr);
    t.match(add.stdout, /s3: h3 via eth1/);
    const looped = await ping();
    t.not(looped.exitCode, 0, "with s3 sending h3's traffic to s4 and s4 sending it back, no reply comes");
    let expired = 0;
    for (const n of ["s3", "s4"]) {
      const st = await statsOf(lab, n);
      if (st.kind === "switch") expired += st.counters.drop_ttl_expired ?? 0;
    }
    t.ok(
      expired > 0,
      `the echo requests bounce between s3 and s4 until their TTL runs out (${expired} expired)`,
    );

    const back = await rl(["inject", "route", "s3", "h3", "--withdraw", "--name", lab]);
    t.equal(back.exitCode, 0, back.stderr);
    t.match(back.stdout, /s3: route to h3 withdrawn/);
    t.equal((await ping()).exitCode, 0, "withdrawn: the computed route is back and h1 reaches h3 again");
    t.match(
      (await rl(["inject", "route", "s3", "h3", "--withdraw", "--name", lab])).stderr,
      /s3 has no added route to h3/,
      "withdrawing twice says there is nothing to withdraw",
    );
  },
);
