import t from "tap";
import { SimFabric } from "../../src/lab/sim/sim-fabric.js";
import { hostAddress } from "../../src/scenario/address-plan.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { udpFrame } from "../helpers/frames.js";
import { RawHost } from "../helpers/raw-host.js";

// A real fabric resolves its neighbours at link-up, long before the first workload: traffic that starts
// at t = 0 must not lose lossless packets to ARP, even towards a host that does not answer ARP yet (the lab
// knows the address plan and hands each switch its peers' MACs).
t.test("a lossless burst at t = 0 crosses the fabric without one ARP drop", (t) => {
  const topo = defaultTopology();
  const f = new SimFabric(topo, (name, address, link, env) => new RawHost(name, address, link.rateBps, env), {
    seed: 7,
  });
  const src = hostAddress(f.plan, "h1");
  const dst = hostAddress(f.plan, "h5");
  const frames = Array.from({ length: 200 }, (_, i) =>
    udpFrame({
      srcMac: src.mac,
      dstMac: src.peerMac,
      srcIp: src.ip,
      dstIp: dst.ip,
      srcPort: 0xc001,
      dstPort: 4791,
      payloadLength: 1000 + (i % 2),
      dscp: 26,
    }),
  );
  // h5 is not answering ARP yet (in a live lab: its NIC process came up after the leaf's ARP retries).
  (f.hosts.get("h5") as RawHost).answerArp = false;
  f.sim.at(0, (now) => (f.hosts.get("h1") as RawHost).command({ send: frames }, now));
  f.sim.run(500_000);
  let arpDrops = 0;
  let lossless = 0;
  for (const sw of f.switches.values()) {
    const c = sw.stats(f.sim.now).counters;
    arpDrops += c.drop_arp_unresolved ?? 0;
    lossless += c.dropped_lossless ?? 0;
  }
  t.equal(arpDrops, 0, "no drop_arp_unresolved");
  t.equal(lossless, 0, "no lossless drop");
  const got = (f.hosts.get("h5") as RawHost).received.filter((r) => r.frame[23] === 17).length;
  t.equal(got, 200, "h5 received every packet");
  t.end();
});
