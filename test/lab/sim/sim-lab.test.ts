// The in-process lab the TUI drives with --runtime sim: the same controls as a live lab.
import t from "tap";
import type { LabEvent } from "../../../src/lab/lab.js";
import { SimLab } from "../../../src/lab/sim/sim-lab.js";
import { hostAddress } from "../../../src/scenario/address-plan.js";
import { switchChange } from "../../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../../src/scenario/topology.js";

function portCounter(lab: SimLab, node: string, port: string, name: string): number {
  const s = lab.snapshotNow().stats[node]!;
  return s.ports.find((p) => p.name === port)!.counters[name] ?? 0;
}

t.test("incast moves pause and ECN counters; events reach listeners", async (t) => {
  const lab = new SimLab({ topology: defaultTopology(), seed: 3 });
  const events: LabEvent[] = [];
  lab.onEvents((e) => events.push(...e));
  const { workload } = await lab.apply({ kind: "incast", to: "h5", from: 4, bytes: 2_000_000 });
  t.equal(workload, "incast-1");
  lab.step(600_000);
  (lab as unknown as { publish(): void }).publish();
  const snap = lab.snapshotNow();
  t.equal(snap.runtime, "sim");
  t.ok(snap.now >= 600_000);
  const leaf2 = snap.stats.leaf2!;
  const toH5 = leaf2.ports.find((p) => p.name === "eth3")!;
  t.ok(toH5.queues![3]!.counters.watermark_bytes! > 100_000, "the queue towards h5 built up");
  t.ok((toH5.queues![3]!.counters.ecn_marked ?? 0) > 0, "and marked CE");
  t.ok(
    events.some((e) => e.kind === "ecn-mark"),
    "ECN events were published",
  );
  t.ok(
    events.some((e) => e.kind === "cnp-sent"),
    "CNP events were published",
  );
  await lab.close();
  t.end();
});

t.test("kernel UDP crosses the fabric through the NICs; ARP is answered by the host stacks", async (t) => {
  const lab = new SimLab({ topology: defaultTopology(), seed: 3 });
  await lab.apply({ kind: "udp", from: "h1", to: "h6", rateBps: 10e9, size: 1000, durationNs: 100_000 });
  lab.step(300_000);
  const tx = lab.kernel("h1")!.stats(0).counters;
  const rx = lab.kernel("h6")!.stats(0).counters;
  t.ok(tx.udp_tx_packets! > 100, `h1 sent ${tx.udp_tx_packets} datagrams`);
  t.equal(rx.udp_rx_packets, tx.udp_tx_packets, "every datagram arrived (no congestion)");
  t.ok(portCounter(lab, "h1", "eth1", "host_tx_frames") >= tx.udp_tx_packets!, "they left through h1's NIC");
  await lab.close();
  t.end();
});

t.test("kill blackholes a switch until restart; link down moves traffic to the other spine", async (t) => {
  const lab = new SimLab({ topology: defaultTopology(), seed: 3 });
  await lab.apply({ kind: "device", node: "spine1", running: false });
  t.equal(lab.snapshotNow().devices.find((d) => d.node === "spine1")!.status, "killed");
  await t.rejects(lab.apply({ kind: "device", node: "spine1", running: false }), /killed/);
  await lab.apply({ kind: "device", node: "spine1", running: true });
  t.equal(lab.snapshotNow().devices.find((d) => d.node === "spine1")!.restarts, 1);
  await lab.apply({ kind: "link", node: "leaf1", port: 1, up: false });
  t.equal(lab.snapshotNow().links.find((l) => l.a === "leaf1:eth1")!.up, false);
  await lab.apply({ kind: "udp", from: "h1", to: "h6", rateBps: 10e9, durationNs: 50_000 });
  lab.step(200_000);
  t.equal(portCounter(lab, "leaf1", "eth1", "tx_packets"), 0, "nothing left on the dead uplink");
  const sent = lab.kernel("h1")!.stats(0).counters.udp_tx_packets!;
  t.ok(
    sent > 50 && portCounter(lab, "leaf1", "eth2", "tx_packets") >= sent,
    `all ${sent} datagrams took spine2`,
  );
  t.equal(
    lab.kernel("h6")!.stats(0).counters.udp_rx_packets,
    lab.kernel("h1")!.stats(0).counters.udp_tx_packets,
  );
  await lab.close();
  t.end();
});

t.test("presets reconfigure every switch", async (t) => {
  const lab = new SimLab({ topology: defaultTopology() });
  await lab.apply({ kind: "set", change: switchChange({ profile: "aggressive" }) });
  for (const sw of lab.fabric.switches.values()) {
    t.same(sw.config.ecn.queues[3], {
      kmin: 50_000,
      kmax: 200_000,
      pmax: sw.config.ecn.queues[3]!.pmax,
    });
    t.equal(sw.config.pfc.xoff, 100_000);
  }
  await lab.close();
  t.end();
});

t.test("pause freezes virtual time, resume continues it, setDilation changes the pace", async (t) => {
  const lab = new SimLab({ topology: defaultTopology(), dilation: 10_000, tickMs: 5, snapshotMs: 10 });
  const statuses: string[] = [];
  lab.onSnapshot((s) => statuses.push(s.status));
  lab.start();
  await new Promise((r) => setTimeout(r, 100));
  lab.pause();
  t.ok(lab.paused);
  t.equal(lab.snapshotNow().status, "paused");
  const frozen = lab.snapshotNow().now;
  t.ok(frozen > 0, `virtual time ran while started (${frozen} ns)`);
  await new Promise((r) => setTimeout(r, 100));
  t.equal(lab.snapshotNow().now, frozen, "nothing moves while paused");
  t.equal(statuses.at(-1), "paused", "snapshots keep flowing and say paused");
  t.throws(() => lab.setDilation(0.5), /dilation must be >= 1/);
  lab.setDilation(1000);
  t.equal(lab.dilation, 1000);
  t.equal(lab.snapshotNow().now, frozen, "a new pace does not jump the clock");
  lab.resume();
  t.notOk(lab.paused);
  await new Promise((r) => setTimeout(r, 100));
  t.ok(lab.snapshotNow().now > frozen, "time moves again after resume");
  t.equal(lab.snapshotNow().status, "running");
  t.equal(lab.snapshotNow().dilation, 1000);
  await lab.close();
  t.end();
});

t.test("the topology view carries each host's address and none for switches", async (t) => {
  const lab = new SimLab({ topology: defaultTopology() });
  const h1 = lab.topology.nodes.find((n) => n.name === "h1")!;
  const leaf1 = lab.topology.nodes.find((n) => n.name === "leaf1")!;
  t.equal(h1.ip, hostAddress(lab.fabric.plan, "h1").ip);
  t.equal(leaf1.ip, undefined);
  await lab.close();
  t.end();
});
