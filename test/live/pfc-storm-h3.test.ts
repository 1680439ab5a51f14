// A PFC storm on the live lab (issue 14), driven as an operator would: `rocelab inject pfc-storm h5` makes
// h5's NIC keep leaf2:eth3 paused on priority 3 while h1 writes to h5 and h2 to h6. Through `rocelab
// stats` (the control channel) the test watches the watchdog (sonic-mgmt's pfcwd assertions):
//   0. before the storm, the TUI's flow paths (the switches' counts) match `rocelab trace --flows`;
//   1. drop: the storm is detected no sooner than detectionTime after it began (emulated time, from the
//      lab's events), the stuck queue and what arrives for it are dropped, the neighbour port keeps
//      flowing, and PFC is restored once the storm stops;
//   2. forward (set at run time): the next storm is detected and the stuck traffic sent despite the pauses;
//   3. the third storm within the trigger window latches PFC off: no restoration after the storm stops,
//      until `rocelab pfc enable leaf2:eth3 3`;
//   4. H3C's semantics (set at run time): a storm that never stops is a deadlock, recovered after the
//      auto-recovery delay into the storm, deadlocked again, and the second deadlock (trigger limit 2)
//      latches until `rocelab pfc enable`.
// Lab name h3s (unique to this file); it is torn down, also when an assertion fails.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { LabEvent } from "../../src/lab/lab.js";
import { LiveLab } from "../../src/lab/live/live-lab.js";
import { switchChange } from "../../src/scenario/settings-layers.js";
import { qpFlows } from "../../src/tui/flow-paths.js";
import {
  labNamespaces,
  labProcesses,
  nicStatsOf,
  pollUntil,
  requireRoot,
  rl,
  statsOf,
  upLab,
} from "../helpers/live.js";

requireRoot(t);

const LAB = "h3s";
const DETECT_NS = 400_000;
const POLL_NS = 100_000;

const TOPOLOGY = `
name: storm
description: the default fabric with a fast PFC watchdog (drop, 400 µs detection and restoration)
defaults:
  link: { rate: 100G, delay: 1us }
  mtu: 4096
  switch:
    pfcWatchdog:
      { enabled: true, action: drop, detectionTime: 400us, restorationTime: 400us, pollInterval: 100us, triggerLimit: 3, triggerWindow: 1s }
nodes:
  spine1: { kind: switch }
  spine2: { kind: switch }
  leaf1: { kind: switch }
  leaf2: { kind: switch }
${[1, 2, 3, 4, 5, 6, 7, 8].map((h) => `  h${h}: { kind: host }`).join("\n")}
links:
  - ["leaf1:eth1", "spine1:eth1"]
  - ["leaf1:eth2", "spine2:eth1"]
  - ["leaf2:eth1", "spine1:eth2"]
  - ["leaf2:eth2", "spine2:eth2"]
${[1, 2, 3, 4, 5, 6, 7, 8].map((h) => `  - ["h${h}:eth1", "leaf${h <= 4 ? 1 : 2}:eth${((h - 1) % 4) + 3}"]`).join("\n")}
`;

t.teardown(async () => {
  await rl(["down", "--name", LAB]);
});

/** A PFC watchdog counter of leaf2's port and priority. */
async function wd(port: number, prio: number, name: string, node = "leaf2"): Promise<number> {
  const s = await statsOf(LAB, node);
  return s.ports.find((p) => p.port === port)?.counters[`pfcwd_prio${prio}_${name}`] ?? 0;
}

/** Polls `read` until `ok` holds (a bound on real time, not a pass/fail criterion: it fails only if never). */
async function until<T>(t: Test, what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const v = await pollUntil(read, ok, 60_000, 250);
  if (!ok(v)) t.fail(`${what}: never (last ${JSON.stringify(v)})`);
  return v;
}

async function delivered(host: string): Promise<number> {
  const s = await nicStatsOf(LAB, host);
  return s.detail.qps.reduce((a, q) => a + q.bytesDelivered, 0);
}

async function storm(on: boolean): Promise<void> {
  const r = await rl(["inject", "pfc-storm", "h5", ...(on ? [] : ["--stop"]), "--name", LAB]);
  if (r.exitCode !== 0) throw new Error(`inject pfc-storm: ${r.stderr}`);
}

t.test("live: a PFC storm detected, dropped, forwarded, latched and re-enabled", async (t) => {
  const file = join(t.testdir({}), "storm.yaml");
  writeFileSync(file, TOPOLOGY);
  await upLab(t, LAB, file);
  const lab = await LiveLab.connect(LAB);
  t.teardown(() => lab.close());
  const events: LabEvent[] = [];
  lab.onEvents((e) => events.push(...e));
  await lab.subscribe();
  // Events are pushed on the subscription; the counters are read by request: an event may come a moment
  // after the counter that announced it.
  const eventOf = async (t: Test, match: (e: LabEvent) => boolean): Promise<LabEvent | undefined> =>
    (await until(
      t,
      "the event arrives",
      async () => events.find(match),
      (e) => e !== undefined,
    )) ?? undefined;
  const write = (from: string, to: string) =>
    lab.apply({ kind: "incast", to, from: [from], bytes: 64_000_000 });

  // 1. drop.
  await write("h1", "h5");
  await write("h2", "h6");
  await until(
    t,
    "h5 receives",
    () => delivered("h5"),
    (b) => b > 0,
  );
  // The TUI's paths (what the switches counted) agree with the probes of `rocelab trace --flows`.
  const traced = await rl(["trace", "--flows", "--json", "--name", LAB]);
  t.equal(traced.exitCode, 0, traced.stderr);
  const probes = JSON.parse(traced.stdout) as { src: string; dst: string; qpn: number; switches: string[] }[];
  const counted = qpFlows(await lab.snapshot(), null, lab.topology);
  for (const [src, dst] of [
    ["h1", "h5"],
    ["h2", "h6"],
  ]) {
    const probe = probes.find((p) => p.src === src && p.dst === dst);
    const flow = probe && counted.get(`${src}/${probe.qpn}`);
    t.equal(flow?.routes.length, 1, `${src} -> ${dst}: one route (static ECMP)`);
    t.same(
      flow?.routes[0]?.hops.map((h) => h.node),
      probe?.switches,
      `${src} -> ${dst}: counted via ${probe?.switches.join(" > ")}, as the probes went`,
    );
    t.equal(flow?.routes[0]?.end, dst);
  }
  // The probes take real seconds: fresh 64 MB writes, so both flows still run through the storm.
  const h5Start = await delivered("h5");
  await write("h1", "h5");
  await write("h2", "h6");
  await until(
    t,
    "h5 receives the new write",
    () => delivered("h5"),
    (b) => b > h5Start + 1_000_000,
  );
  const before = (await nicStatsOf(LAB, "h5")).now;
  await storm(true);
  await until(
    t,
    "the storm is detected",
    () => wd(3, 3, "storm_detected"),
    (n) => n >= 1,
  );
  t.equal(await wd(3, 3, "state"), 1, "leaf2:eth3 priority 3 is stormed");
  const detected = await eventOf(t, (e) => e.kind === "pfc-storm" && e.device === "leaf2" && e.port === 3);
  t.ok(detected, "a pfc-storm event from leaf2:eth3");
  t.equal(detected?.priority, 3);
  t.equal(detected?.detail, "drop");
  t.ok(
    detected!.t - before >= DETECT_NS,
    `detected ${((detected!.t - before) / 1000).toFixed(0)} µs of emulated time after the inject command was issued (the storm began later; ≥ detection time ${DETECT_NS / 1000} µs; poll ${POLL_NS / 1000} µs)`,
  );
  const drops = await until(
    t,
    "the stuck traffic is dropped",
    () => wd(3, 3, "tx_drop"),
    (n) => n > 0,
  );
  t.ok(drops > 0, `${drops} packets for the stormed queue dropped`);
  const h6 = await delivered("h6");
  await until(
    t,
    "h6 keeps receiving during the storm",
    () => delivered("h6"),
    (b) => b > h6 + 1_000_000,
  );
  t.equal(await wd(3, 3, "state"), 1, "while eth3 is still stormed");
  for (const [node, port] of [
    ["leaf2", 4],
    ["leaf2", 1],
    ["leaf2", 2],
    ["leaf1", 3],
    ["spine1", 2],
  ] as const)
    t.equal(await wd(port, 3, "storm_detected", node), 0, `${node}:eth${port}: no storm (contained)`);
  await storm(false);
  await until(
    t,
    "PFC is restored",
    () => wd(3, 3, "storm_restored"),
    (n) => n >= 1,
  );
  t.equal(await wd(3, 3, "state"), 0, "monitoring again");
  t.ok(
    (await eventOf(t, (e) => e.kind === "pfc-storm-restored" && e.device === "leaf2" && e.port === 3)) !==
      undefined,
    "and a pfc-storm-restored event",
  );
  const h5 = await delivered("h5");
  await write("h1", "h5");
  await until(
    t,
    "h5 receives again",
    () => delivered("h5"),
    (b) => b > h5 + 1_000_000,
  );

  // 2. forward, set at run time through the control channel.
  await lab.apply({ kind: "set", change: switchChange({ pfcWatchdog: { action: "forward" } }) });
  const dropped = await wd(3, 3, "tx_drop");
  await storm(true);
  await until(
    t,
    "the second storm is detected",
    () => wd(3, 3, "storm_detected"),
    (n) => n >= 2,
  );
  const ok = await until(
    t,
    "the stuck queue is sent anyway",
    () => wd(3, 3, "tx_ok"),
    (n) => n > 0,
  );
  t.ok(ok > 0, `${ok} packets forwarded despite the pauses`);
  t.equal(await wd(3, 3, "tx_drop"), dropped, "and nothing more dropped");
  t.ok(
    (await eventOf(t, (e) => e.kind === "pfc-storm" && e.device === "leaf2" && e.detail === "forward")) !==
      undefined,
    "detected with the forward action",
  );
  t.equal(await wd(3, 3, "state"), 1, "stormed");
  await storm(false);
  await until(
    t,
    "restored again",
    () => wd(3, 3, "storm_restored"),
    (n) => n >= 2,
  );

  // 3. the third storm within the trigger window latches.
  await write("h1", "h5");
  await storm(true);
  await until(
    t,
    "the third storm latches",
    () => wd(3, 3, "state"),
    (s) => s === 2,
  );
  t.equal(await wd(3, 3, "storm_detected"), 3);
  t.ok(
    (await eventOf(t, (e) => e.kind === "pfc-storm" && e.detail === "forward, latched")) !== undefined,
    "the event says latched",
  );
  await storm(false);
  // Well past the restoration time in emulated time (the lab's clock), it stays latched.
  const stopped = (await statsOf(LAB, "leaf2")).now;
  await until(
    t,
    "emulated time passes",
    async () => (await statsOf(LAB, "leaf2")).now,
    (n) => n > stopped + 4 * DETECT_NS,
  );
  t.equal(await wd(3, 3, "state"), 2, "no restoration once latched");
  t.equal(await wd(3, 3, "storm_restored"), 2);
  const enable = await rl(["pfc", "enable", "leaf2:eth3", "3", "--name", LAB]);
  t.equal(enable.exitCode, 0, enable.stderr);
  t.match(enable.stdout, /leaf2:eth3 priority 3: PFC enabled/);
  t.equal(await wd(3, 3, "state"), 0, "the operator re-enabled it");
  t.equal(await wd(3, 3, "storm_restored"), 3, "counted as a restoration");
  const refused = await rl(["pfc", "enable", "h5:eth1", "3", "--name", LAB]);
  t.not(refused.exitCode, 0, "a host is refused");
  t.match(refused.stderr, /h5 is not a switch/);

  // 4. H3C's deadlock detection, set at run time: a continuous storm reaches the trigger limit.
  await lab.apply({
    kind: "set",
    change: switchChange({
      pfcWatchdog: {
        semantics: "h3c",
        interval: 400_000,
        autoRecoverDelay: 400_000,
        autoRecoverAction: "forward",
        triggerLimit: 2,
      },
    }),
  });
  const base = await wd(3, 3, "storm_detected");
  const restoredBase = await wd(3, 3, "storm_restored");
  await write("h1", "h5");
  await storm(true);
  await until(
    t,
    "h3c: the continuous storm latches",
    () => wd(3, 3, "state"),
    (s) => s === 2,
  );
  t.equal(await wd(3, 3, "storm_detected"), base + 2, "two deadlocks: the first recovered into the storm");
  t.equal(await wd(3, 3, "storm_restored"), restoredBase + 1, "after the auto-recovery delay");
  t.ok(
    (await eventOf(
      t,
      (e) => e.kind === "pfc-storm" && e.device === "leaf2" && e.detail === "deadlock, forward, latched",
    )) !== undefined,
    "the event says deadlock, latched",
  );
  await storm(false);
  const enabled = await rl(["pfc", "enable", "leaf2:eth3", "3", "--name", LAB]);
  t.equal(enabled.exitCode, 0, enabled.stderr);
  t.equal(await wd(3, 3, "state"), 0, "h3c: the operator restored the interface");

  await lab.close();
  const down = await rl(["down", "--name", LAB]);
  t.equal(down.exitCode, 0, down.stderr);
  t.same(await labNamespaces(LAB), [], "no namespace left");
  t.same(labProcesses(LAB), [], "no process left");
});
