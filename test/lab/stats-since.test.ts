// Counters since a run's time 0 (lab/stats-since.ts): a live report subtracts what each device had counted
// when the scenario started (the lab's bring-up), keeping levels (gauges) as read at the end. The
// simulator needs no baseline: nothing runs before its time 0, which the first test pins.

import t from "tap";
import type { Counters } from "../../src/device/contract.js";
import { levelKeys } from "../../src/device/counters.js";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import { statsSince } from "../../src/lab/stats-since.js";
import { nicLevelKeys } from "../../src/nic/nic-stats.js";
import { bringUpNs } from "../../src/run/bring-up.js";
import { buildSimRun } from "../../src/run/sim-run-setup.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { DROP_REASONS } from "../../src/switch/drops.js";

const SCENARIO = "docs/experiments/fidelity/incast-pfc.yaml";

/** Every "table.key" of a device's stats whose value is not 0. */
function nonZero(s: AnyDeviceStats): Map<string, number> {
  const out = new Map<string, number>();
  const add = (where: string, c: Counters): void => {
    for (const [k, v] of Object.entries(c)) if (v !== 0) out.set(`${where}.${k}`, v);
  };
  add("device", s.counters);
  for (const p of s.ports) {
    add(p.name, p.counters);
    for (const q of p.queues ?? []) add(`${p.name}.q${q.queue}`, q.counters);
  }
  return out;
}

t.test("the simulator brings the fabric up before its time 0, and reports count from 0", (t) => {
  const sc = loadScenario(SCENARIO);
  const { fabric, sim, nics, baselines } = buildSimRun(sc, {}, false);
  t.equal(sim.now, -bringUpNs(sc.topology), "the devices start before time 0");
  t.equal(bringUpNs(sc.topology), 100_000, "100 µs for 1 µs links");
  const arpAt: number[] = [];
  sim.onFrame((at, _from, _to, frame) => {
    if (frame[12] === 0x08 && frame[13] === 0x06) arpAt.push(at);
  });
  sim.run(0);
  t.ok(arpAt.length > 0, `the switches asked their neighbours' MACs (${arpAt.length} ARP frames)`);
  t.ok(Math.max(...arpAt) < -90_000, "as soon as they started, not at time 0 (ports idle since forever)");
  sim.run(30_000);
  for (const sw of fabric.switches.values()) {
    const whole = sw.stats(sim.now).counters;
    const since = baselines.since(sw.stats(sim.now), sw).counters;
    t.ok(whole.arp_sent! > 0, `${sw.name}: its tables hold the bring-up's ARP`);
    t.equal(since.arp_sent, 0, `${sw.name}: counted from time 0, none`);
    const levels = new Set(levelKeys(sw.counters, DROP_REASONS));
    const counted = [...nonZero(sw.stats(0)).keys()].filter((k) => !levels.has(k.split(".").at(-1)!));
    t.not(counted.length, 0, `${sw.name}: the whole tables are not empty`);
  }
  // High-water marks restart at time 0 (the bring-up's ARP went through control queue 7).
  const q7 = fabric.switches
    .get("leaf1")!
    .stats(sim.now)
    .ports[0]!.queues!.find((q) => q.queue === 7)!;
  t.equal(q7.counters.watermark_bytes, 0, "leaf1 eth1 queue 7: no control frame since time 0");
  for (const nic of nics.values()) {
    const since = baselines.since(nic.stats(sim.now), nic);
    t.equal(since.counters.arp_replies_sent ?? 0, 0, `${nic.name}: its ARP replies were before time 0`);
  }
  // A device restarted during the run starts its tables then: reported whole, as a live one is.
  fabric.restart("spine1");
  sim.run(40_000);
  const spine1 = fabric.switches.get("spine1")!;
  const whole = spine1.stats(sim.now);
  t.ok(whole.counters.arp_sent! > 0, "the restarted spine asked its neighbours again");
  t.same(baselines.since(whole, spine1), whole, "and is reported whole");
  t.end();
});

t.test("counters since a time: differences; levels as read at the end", (t) => {
  const { fabric, sim, nics } = buildSimRun(loadScenario(SCENARIO), {}, false);
  // A baseline mid-run (the incast is under way at 100 µs), the end at 300 µs.
  sim.run(100_000);
  const sw = fabric.switches.get("leaf2")!;
  const h8 = nics.get("h8")!;
  const base = { sw: sw.stats(sim.now), h8: h8.stats(sim.now) };
  sim.run(300_000);
  const end = { sw: sw.stats(sim.now), h8: h8.stats(sim.now) };
  const swLevels = levelKeys(sw.counters, DROP_REASONS);
  const since = statsSince(end.sw, { stats: base.sw, levels: swLevels });
  const port = (s: AnyDeviceStats, name: string) => s.ports.find((p) => p.name === name)!;
  const q3 = (s: AnyDeviceStats) => port(s, "eth6").queues!.find((q) => q.queue === 3)!.counters;
  t.ok(port(base.sw, "eth6").counters.tx_packets! > 0, "the bottleneck port had sent before the baseline");
  t.equal(
    port(since, "eth6").counters.tx_packets,
    port(end.sw, "eth6").counters.tx_packets! - port(base.sw, "eth6").counters.tx_packets!,
    "a counter: what was sent after the baseline",
  );
  t.equal(q3(since).tx_bytes, q3(end.sw).tx_bytes! - q3(base.sw).tx_bytes!, "per queue too");
  t.ok(
    swLevels.includes("watermark_bytes") && swLevels.includes("headroom_bytes"),
    "watermark, headroom: levels",
  );
  t.equal(q3(since).watermark_bytes, q3(end.sw).watermark_bytes, "a level: as read at the end");
  t.equal(
    port(since, "eth6").counters.headroom_bytes,
    port(end.sw, "eth6").counters.headroom_bytes,
    "headroom",
  );
  t.equal(since.counters.buffer_shared_pool_bytes, end.sw.counters.buffer_shared_pool_bytes, "shared pool");
  // The receiving NIC: a counter, and its receive buffer's peak (a level its port table carries undeclared).
  const nic = statsSince(end.h8, { stats: base.h8, levels: nicLevelKeys(h8.counters) });
  t.equal(
    port(nic, "eth1").counters.rx_bytes,
    port(end.h8, "eth1").counters.rx_bytes! - port(base.h8, "eth1").counters.rx_bytes!,
    "the NIC's bytes received since the baseline",
  );
  t.equal(
    port(nic, "eth1").counters.rx_buffer_peak_bytes,
    port(end.h8, "eth1").counters.rx_buffer_peak_bytes,
    "its receive buffer's peak as read at the end",
  );
  t.end();
});
