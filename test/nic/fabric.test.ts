// DCQCN through the default fabric (2 spines, 2 leaves, h1..h8; 100 Gb/s, 1 µs links; switch defaults:
// ECN Kmin 150 KB / Kmax 1.5 MB / Pmax 20 % on the lossless queue), with the NVIDIA (ConnectX firmware
// default) profile: long WRITE flows into one host converge to a fair share of the bottleneck.
//
// Measurement: each flow's goodput at the receiver (payload bytes its responder accepted in order) over
// the last 10 ms of 100 ms emulated; the fair share is the flows' total goodput over that window divided by
// the number of flows. The bottleneck is leaf1's port to h5 (98.04 Gb/s of payload at 4096-byte MTU).
//
// Placement matters, and the report says so: with these parameters CNPs are sparse (~10 per ms per flow),
// R_AI is 5 Mb/s per 300 µs and RT moves only on rare clamps, so the restoring force towards fairness is
// weak and shares drift with the Poisson noise of the marks. Over seeds 1..10, two senders on one leaf
// stay within 3.1 % of the fair share and three within 5.7 % (7 of 10 seeds within 5 %); senders on
// different leaves drift further (up to 8.4 %). Seed 7, the fabric's usual seed, is used here.

import t from "tap";
import { dcqcnProfile } from "../../src/nic/cc/dcqcn-params.js";
import { nicFabric, writeFlow } from "./support/fabric.js";
import { qpStats } from "./support/pair.js";

const DURATION = 100_000_000;
const WINDOW = 10_000_000;
/** Payload goodput of a 100 Gb/s port at 4096-byte packets: 4096 of every 4178 wire bytes. */
const CAPACITY = (100e9 * 4096) / 4178;

function fairness(senders: readonly string[], dst: string) {
  const { f, nic } = nicFabric({ dcqcn: dcqcnProfile("nvidia"), seed: 7 });
  const events = new Map<string, number>();
  f.sim.onEvent((e) => {
    events.set(e.kind, (events.get(e.kind) ?? 0) + 1);
  });
  senders.forEach((s, i) => {
    writeFlow(f, nic, s, dst, i + 1, 0xffff_ffff);
  });
  const delivered = (at: number) => senders.map((_, i) => qpStats(nic(dst), i + 101, at).bytesDelivered);
  f.sim.run(DURATION - WINDOW);
  const before = delivered(DURATION - WINDOW);
  f.sim.run(DURATION);
  const after = delivered(DURATION);
  const rates = after.map((b, i) => ((b - before[i]!) * 8e9) / WINDOW);
  const total = rates.reduce((a, b) => a + b);
  const share = total / senders.length;
  const leaves = [...f.switches.values()].map((s) => s.stats(DURATION).counters);
  return { f, nic, rates, total, share, leaves, events };
}

const gbps = (x: number) => (x / 1e9).toFixed(2);

for (const senders of [
  ["h1", "h2"],
  ["h1", "h2", "h3"],
]) {
  t.test(`${senders.length} WRITE flows into h5 reach their fair share within 100 ms (nvidia)`, (t) => {
    const { rates, total, share, leaves, nic, events } = fairness(senders, "h5");
    const shares = rates.map((r, i) => `${senders[i]} ${gbps(r)}`).join(", ");
    t.ok(total > 0.97 * CAPACITY, `the bottleneck is used: ${gbps(total)} of ${gbps(CAPACITY)} Gb/s`);
    rates.forEach((r, i) => {
      const dev = (r / share - 1) * 100;
      t.ok(
        Math.abs(dev) <= 5,
        `${senders[i]}: ${gbps(r)} Gb/s, ${dev.toFixed(1)} % from the fair share ${gbps(share)} (${shares})`,
      );
    });
    t.equal(
      leaves.reduce((a, c) => a + c.dropped_lossless!, 0),
      0,
      "no lossless drop anywhere",
    );
    for (const [i, s] of senders.entries()) {
      const q = qpStats(nic(s), i + 1, DURATION);
      t.ok(
        q.cnpHandled > 100,
        `${s} reacted to ${q.cnpHandled} CNPs (rate ${gbps(q.rateBps)}, α ${q.alpha.toFixed(3)})`,
      );
      t.equal(q.retransmits, 0, `${s}: lossless, no retransmission`);
    }
    t.ok(
      (events.get("cnp-sent") ?? 0) > 0 && (events.get("rate-cut") ?? 0) > 0,
      "CNP and rate-cut telemetry",
    );
    const np = nic("h5").stats(DURATION).counters;
    t.ok(
      np.np_cnp_sent! > 0 && np.np_ecn_marked_roce_packets! >= np.np_cnp_sent!,
      "h5 is the notification point",
    );
    t.end();
  });
}
