import t from "tap";
import { SimFabric } from "../../src/lab/sim/sim-fabric.js";
import { hostAddress, portKey } from "../../src/scenario/address-plan.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { internetChecksum, ipToString, readMac } from "../../src/wire/bytes.js";
import { IcmpType, parseIcmp } from "../../src/wire/icmp.js";
import { parseIpv4 } from "../../src/wire/ipv4.js";
import { buildPauseFrame } from "../../src/wire/pfc.js";
import { udpFrame } from "../helpers/frames.js";
import { RawHost } from "../helpers/raw-host.js";

function fabric() {
  const topo = defaultTopology();
  const f = new SimFabric(topo, (name, address, link, env) => new RawHost(name, address, link.rateBps, env), {
    seed: 7,
  });
  return { f, host: (name: string) => f.hosts.get(name) as RawHost };
}

function sendUdp(
  f: SimFabric,
  from: string,
  to: string,
  opts: { ttl?: number; sport?: number; at?: number },
) {
  const src = hostAddress(f.plan, from);
  const dst = hostAddress(f.plan, to);
  const frame = udpFrame({
    srcMac: src.mac,
    dstMac: src.peerMac,
    srcIp: src.ip,
    dstIp: dst.ip,
    srcPort: opts.sport ?? 0xc001,
    dstPort: 4791,
    payloadLength: 200,
    ttl: opts.ttl ?? 64,
    dscp: 26,
  });
  f.sim.at(opts.at ?? 50_000, (now) => (f.hosts.get(from) as RawHost).command({ send: [frame] }, now));
  return frame;
}

t.test("a packet crosses leaf, spine and leaf with TTL and MACs rewritten", (t) => {
  const { f, host } = fabric();
  sendUdp(f, "h1", "h5", { ttl: 64 });
  f.sim.run(200_000);
  const got = host("h5").received.filter((r) => r.frame[12] === 0x08 && r.frame[13] === 0x00);
  t.equal(got.length, 1, "h5 received the packet");
  const frame = got[0]!.frame;
  const ip = parseIpv4(frame, 14);
  t.ok(ip.ok, "IPv4 header valid, checksum included");
  if (!ip.ok) return t.end();
  t.equal(ip.value.ttl, 61, "three routers each took one from the TTL");
  t.equal(ip.value.dscp, 26, "DSCP unchanged");
  const h5 = hostAddress(f.plan, "h5");
  t.equal(readMac(frame, 0), h5.mac, "destination MAC is h5's");
  t.equal(readMac(frame, 6), h5.peerMac, "source MAC is leaf2's port towards h5");
  t.ok(
    frame.subarray(42, 242).every((b) => b === 0xab),
    "payload untouched",
  );
  t.equal(ipToString(ip.value.src), ipToString(hostAddress(f.plan, "h1").ip));
  t.end();
});

t.test("TTL runs out at the spine: ICMP time exceeded from the spine's port", (t) => {
  const { f, host } = fabric();
  const sent = sendUdp(f, "h1", "h5", { ttl: 2 });
  f.sim.run(200_000);
  t.equal(host("h5").received.length, 0, "nothing reaches h5");
  const icmp = host("h1").received.filter((r) => r.frame[23] === 1);
  t.equal(icmp.length, 1, "h1 got one ICMP message");
  const frame = icmp[0]!.frame;
  const ip = parseIpv4(frame, 14);
  t.ok(ip.ok);
  if (!ip.ok) return t.end();
  t.equal(ip.value.dscp, 48, "switch-originated ICMP uses DSCP 48");
  const msg = parseIcmp(frame, 34, 14 + ip.value.totalLength);
  t.ok(msg.ok);
  if (!msg.ok) return t.end();
  t.equal(msg.value.type, IcmpType.TimeExceeded);
  // The source is a spine port facing leaf1 (which spine depends on the ECMP hash).
  const spinePorts = [portKey("spine1", 1), portKey("spine2", 1)].map((k) => f.plan.ports.get(k)!.ip);
  t.ok(spinePorts.includes(ip.value.src), `from a spine port (${ipToString(ip.value.src)})`);
  // The quote is the original IP header (as the spine saw it: TTL 1) plus 8 bytes of UDP.
  const quoted = frame.subarray(msg.value.dataOffset, msg.value.dataOffset + msg.value.dataLength);
  t.equal(quoted.length, 28, "IP header + 8 bytes quoted");
  t.same([...quoted.subarray(12, 20)], [...sent.subarray(26, 34)], "quoted addresses are the probe's");
  t.equal(quoted[8], 1, "quoted TTL is what arrived at the spine");
  t.equal(internetChecksum(frame, 34, 14 + ip.value.totalLength - 34), 0, "ICMP checksum valid");
  t.end();
});

t.test("TTL 1 expires at the first leaf", (t) => {
  const { f, host } = fabric();
  sendUdp(f, "h1", "h5", { ttl: 1 });
  f.sim.run(200_000);
  const icmp = host("h1").received.filter((r) => r.frame[23] === 1);
  t.equal(icmp.length, 1);
  const ip = parseIpv4(icmp[0]!.frame, 14);
  t.ok(ip.ok);
  if (ip.ok) t.equal(ip.value.src, hostAddress(f.plan, "h1").peerIp, "from leaf1's port facing h1");
  const leaf1 = f.switches.get("leaf1")!.stats(f.sim.now);
  t.equal(leaf1.counters.drop_ttl_expired, 1);
  t.equal(leaf1.counters.icmp_time_exceeded_sent, 1);
  t.end();
});

/** Data packets each spine sends towards leaf2 while `send` runs (ARP at start excluded). */
function spineShares(send: (f: SimFabric) => void): [number, number] {
  const { f } = fabric();
  f.sim.run(40_000);
  const toLeaf2 = (spine: string) =>
    f.switches
      .get(spine)!
      .stats(f.sim.now)
      .ports.find((p) => p.port === 2)!.counters.tx_packets!;
  const before = [toLeaf2("spine1"), toLeaf2("spine2")];
  send(f);
  f.sim.run(500_000);
  return [toLeaf2("spine1") - before[0]!, toLeaf2("spine2") - before[1]!];
}

t.test("one 5-tuple always takes one spine", (t) => {
  const [a, b] = spineShares((f) => {
    for (let i = 0; i < 20; i++) sendUdp(f, "h1", "h5", { sport: 0xc0de, at: 50_000 + i * 1000 });
  });
  t.ok((a === 20 && b === 0) || (a === 0 && b === 20), `all 20 packets on one spine (${a} / ${b})`);
  t.end();
});

t.test("different source ports spread over both spines", (t) => {
  const [a, b] = spineShares((f) => {
    for (let i = 0; i < 20; i++) sendUdp(f, "h1", "h5", { sport: 0xc000 + i * 7, at: 50_000 + i * 1000 });
  });
  t.equal(a + b, 20, "all arrived");
  t.ok(a >= 4 && b >= 4, `both spines carry flows (${a} / ${b})`);
  t.end();
});

t.test("a switch keeps asking for a silent /31 peer until it answers, then stops", (t) => {
  const { f, host } = fabric();
  const h5 = host("h5");
  h5.answerArp = false;
  const arpRequests = () => h5.arpRequests;
  f.sim.run(350_000);
  const unanswered = arpRequests();
  t.ok(unanswered >= 3, `leaf2 asked ${unanswered} times in 350 µs while h5 was silent`);
  h5.answerArp = true;
  f.sim.run(600_000);
  const answered = arpRequests();
  t.ok(answered > unanswered, "and asked again once h5 listened");
  f.sim.run(1_000_000);
  t.equal(arpRequests(), answered, "no more requests once the peer is resolved");
  sendUdp(f, "h1", "h5", { at: 1_000_000 });
  f.sim.run(1_200_000);
  t.equal(
    h5.received.filter((r) => r.frame[12] === 0x08 && r.frame[13] === 0x00).length,
    1,
    "h5 got the packet",
  );
  const leaf2 = f.switches.get("leaf2")!.stats(f.sim.now).counters;
  t.equal(leaf2.drop_arp_unresolved ?? 0, 0, "nothing waited on ARP");
  t.end();
});

t.test("802.3x link PAUSE is counted and not obeyed: the ports run PFC", (t) => {
  const { f, host } = fabric();
  const h5 = hostAddress(f.plan, "h5");
  const pause = buildPauseFrame({ src: h5.mac, quanta: 0xffff });
  f.sim.at(40_000, (now) => host("h5").command({ send: [pause] }, now));
  sendUdp(f, "h1", "h5", { at: 50_000 });
  f.sim.run(200_000);
  const leaf2 = f.switches.get("leaf2")!.stats(f.sim.now).counters;
  t.equal(leaf2.rx_link_pause_ignored, 1, "counted");
  t.equal(
    host("h5").received.filter((r) => r.frame[12] === 0x08 && r.frame[13] === 0x00).length,
    1,
    "leaf2 still sends to h5",
  );
  t.end();
});
