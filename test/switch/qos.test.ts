import t from "tap";
import { SimFabric } from "../../src/lab/sim/sim-fabric.js";
import { hostAddress } from "../../src/scenario/address-plan.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { ipv4Dscp } from "../../src/wire/ipv4.js";
import { udpFrame } from "../helpers/frames.js";
import { RawHost } from "../helpers/raw-host.js";

t.test("strict priority: CNP-class packets cross a congested port without waiting behind bulk", (t) => {
  const f = new SimFabric(
    defaultTopology(),
    (name, address, link, env) => new RawHost(name, address, link.rateBps, env),
    {
      seed: 3,
    },
  );
  const send = (from: string, dscp: number, count: number, bytes: number, at: number) => {
    const src = hostAddress(f.plan, from);
    const dst = hostAddress(f.plan, "h4");
    const frames: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      frames.push(
        udpFrame({
          srcMac: src.mac,
          dstMac: src.peerMac,
          srcIp: src.ip,
          dstIp: dst.ip,
          srcPort: 0xc000 + i,
          dstPort: 4791,
          payloadLength: bytes,
          dscp,
        }),
      );
    }
    f.sim.at(at, (now) => (f.hosts.get(from) as RawHost).command({ send: frames }, now));
  };
  // h1 and h2 (same leaf as h4) each blast 400 × 4 KB of best-effort traffic at line rate: 2:1 into h4.
  send("h1", 0, 400, 4000, 20_000);
  send("h2", 0, 400, 4000, 20_000);
  // h3 sends 20 small DSCP 48 packets in the middle of the congestion.
  send("h3", 48, 20, 100, 80_000);
  f.sim.run(400_000);
  const h4 = f.hosts.get("h4") as RawHost;
  const urgent = h4.received.filter((r) => r.frame.length > 34 && ipv4Dscp(r.frame, 14) === 48);
  const bulk = h4.received.filter((r) => r.frame.length > 34 && ipv4Dscp(r.frame, 14) === 0);
  t.equal(urgent.length, 20, "all urgent packets arrived");
  t.ok(bulk.length > 300, `bulk arrived too (${bulk.length})`);
  // Sent back to back from 80 µs: 20 × ~150 B at 100 Gb/s ≈ 0.25 µs, plus two links and a switch.
  const lastUrgent = Math.max(...urgent.map((r) => r.t));
  t.ok(lastUrgent < 80_000 + 5_000, `urgent packets done by ${lastUrgent} ns (bulk queue was deep)`);
  const leaf1 = f.switches.get("leaf1")!.stats(f.sim.now);
  const toH4 = leaf1.ports.find((p) => p.port === 6)!;
  t.ok(
    toH4.queues![0]!.counters.watermark_bytes! > 100_000,
    `best-effort queue built up (${toH4.queues![0]!.counters.watermark_bytes} B)`,
  );
  // At most the urgent burst itself waits (behind one 4 KB frame already on the wire): 20 × 142 B.
  const strictPeak = toH4.queues![6]!.counters.watermark_bytes!;
  t.ok(strictPeak <= 20 * 142, `the strict queue never held more than the burst (${strictPeak} B)`);
  t.end();
});
