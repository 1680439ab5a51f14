// IPCC on a switch alone: the flow table learns a RoCE exchange (data one way, ACKs the other) with the
// right ports and QPs and ages it out; the CNP count follows H3C's four cases; the CNPs the switch
// sends are real RoCEv2 CNPs to the sender's QP, out of the port the flow came in on.
import t from "tap";
import { IpccCase, ipccCase, ipccCnpCount } from "../../src/switch/features/ipcc-curve.js";
import { readMac } from "../../src/wire/bytes.js";
import { verifyIcrcV2 } from "../../src/wire/icrc.js";
import { Ecn, ipv4Dscp, ipv4Dst, ipv4Ecn, ipv4Src } from "../../src/wire/ipv4.js";
import { AethSyndrome, buildRoceV2Frame, Opcode, parseBth } from "../../src/wire/roce.js";
import { peerIp, peerMac, portIp, portMac, SwitchHarness } from "./harness.js";

const SENDER_QP = 0x11;
const RECEIVER_QP = 0x22;
const SPORT = 0xc123;
const PAYLOAD = new Uint8Array(1024);

/** A WRITE packet from the peer of port 1 to the peer of port 2 (priority 3, DSCP 26). */
function data(psn: number): Uint8Array {
  return buildRoceV2Frame({
    srcMac: peerMac(1),
    dstMac: portMac(1),
    srcIp: peerIp(1),
    dstIp: peerIp(2),
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: SPORT,
    opcode: Opcode.RdmaWriteMiddle,
    destQp: RECEIVER_QP,
    psn,
    payload: PAYLOAD,
  });
}

/** The receiver's ACK back to the sender's QP. */
function ack(psn: number): Uint8Array {
  return buildRoceV2Frame({
    srcMac: peerMac(2),
    dstMac: portMac(2),
    srcIp: peerIp(2),
    dstIp: peerIp(1),
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: SPORT,
    opcode: Opcode.Acknowledge,
    destQp: SENDER_QP,
    psn,
    aeth: { syndrome: AethSyndrome.AckUnlimited, msn: 0 },
  });
}

const curve = { minDepth: 10_000, highOccupancy: 0.01 };

t.test("the flow table learns both directions of a RoCE exchange and ages them out", (t) => {
  // The PFC watchdog (on by default) polls on its own timer: off here, so only IPCC's timers count.
  const h = new SwitchHarness({
    settings: { ipcc: { enabled: true, aging: 200_000 }, pfcWatchdog: { enabled: false } },
  }).start();
  for (let i = 0; i < 4; i++) h.deliver(1, data(i));
  h.deliver(2, ack(3));
  h.run(h.now + 20_000);
  t.equal(h.counter("ipcc_flow_entries"), 2, "data direction and ACK direction");
  t.equal(h.counter("ipcc_flows_learned"), 2);
  t.equal(h.data(2).length, 4, "data forwarded to port 2");
  t.equal(h.data(1).length, 1, "the ACK forwarded to port 1");
  h.run(h.now + 1_500_000);
  t.equal(h.counter("ipcc_flow_entries"), 0, "aged out after 200 µs without traffic");
  t.equal(h.counter("ipcc_flows_aged"), 2);
  t.equal(h.env.timers.size, 0, "an empty table leaves no timer running");
  t.end();
});

t.test("the CNP count follows H3C's four cases", (t) => {
  const c = {
    risingLow: 0.25,
    risingHigh: 1,
    fallingLow: 0,
    fallingHigh: 0.25,
    highOccupancy: 0.1,
    minDepth: 1000,
    trendBytes: 100,
  };
  const pool = 1_000_000;
  t.equal(ipccCase(500, 0, pool, c), IpccCase.Idle, "below minDepth: not congested");
  t.equal(ipccCase(50_000, 10_000, pool, c), IpccCase.RisingLow);
  t.equal(ipccCase(500_000, 400_000, pool, c), IpccCase.RisingHigh);
  t.equal(ipccCase(50_000, 60_000, pool, c), IpccCase.FallingLow);
  t.equal(ipccCase(500_000, 600_000, pool, c), IpccCase.FallingHigh);
  t.equal(ipccCase(50_000, 49_950, pool, c), IpccCase.FallingLow, "a flat queue is not rising");
  const n = (k: IpccCase) => ipccCnpCount(k, 16, c);
  t.same(
    [n(IpccCase.RisingLow), n(IpccCase.RisingHigh), n(IpccCase.FallingLow), n(IpccCase.FallingHigh)],
    [4, 16, 0, 4],
    "a few, many, none, a few (of 16 flows)",
  );
  t.ok(n(IpccCase.RisingHigh) > n(IpccCase.RisingLow) && n(IpccCase.FallingHigh) > n(IpccCase.FallingLow));
  t.equal(ipccCnpCount(IpccCase.RisingLow, 1, c), 1, "a non-zero share notifies at least one flow");
  t.equal(ipccCnpCount(IpccCase.Idle, 16, c), 0);
  t.end();
});

/** Builds a queue on port 2 queue 3 (paused by its peer), with the ACK direction learned. */
function congested(h: SwitchHarness, packets: number): void {
  h.deliver(2, ack(0));
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < packets; i++) h.deliver(1, data(i));
}

t.test("a congested queue makes the switch send a real CNP to the sender's QP on the ingress port", (t) => {
  const h = new SwitchHarness({ settings: { ipcc: { enabled: true, curve } } }).start();
  congested(h, 40);
  h.run(h.now + 45_000);
  const cnps = h.data(1).filter((s) => parseBth(s.frame, 42).ok && s.frame[42] === Opcode.Cnp);
  t.ok(cnps.length >= 1, `CNPs on the ingress port (${cnps.length})`);
  const f = cnps[0]!.frame;
  const bth = parseBth(f, 42);
  t.ok(bth.ok && bth.value.destQp === SENDER_QP && bth.value.becn, "to the sender's QP, BECN set");
  t.equal(ipv4Dst(f, 14), peerIp(1), "to the sender's address");
  t.equal(ipv4Src(f, 14), portIp(1), "from the congestion point");
  t.equal(readMac(f, 0), peerMac(1), "to the previous hop's MAC");
  t.equal(ipv4Dscp(f, 14), 48, "DSCP 48");
  t.equal(ipv4Ecn(f, 14), Ecn.NotEct);
  t.ok(verifyIcrcV2(f, 14, f.length), "ICRC valid");
  t.equal(h.queueCounter(2, 3, "ipcc_cnp_sent"), cnps.length, "counted on the congested queue");
  t.ok(h.env.events.some((e) => e.kind === "cnp-sent" && e.qp === SENDER_QP && e.port === 2));
  t.equal(h.data(2).length, 0, "the data is still held by the pause");
  t.end();
});

t.test("no CNP below minDepth, nor while IPCC is off, nor without the sender's QP", (t) => {
  const idle = new SwitchHarness({ settings: { ipcc: { enabled: true, curve } } }).start();
  congested(idle, 5);
  idle.run(idle.now + 100_000);
  t.equal(idle.queueCounter(2, 3, "ipcc_cnp_sent"), 0, "5 KB queued: not congested");

  const off = new SwitchHarness({ settings: { ipcc: { enabled: false, curve } } }).start();
  congested(off, 40);
  off.run(off.now + 100_000);
  t.equal(off.queueCounter(2, 3, "ipcc_cnp_sent"), 0, "off");
  t.equal(off.counter("ipcc_flow_entries"), 0, "off learns nothing");

  const noAck = new SwitchHarness({ settings: { ipcc: { enabled: true, curve } } }).start();
  noAck.deliver(2, noAck.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 40; i++) noAck.deliver(1, data(i));
  noAck.run(noAck.now + 45_000);
  t.equal(noAck.queueCounter(2, 3, "ipcc_cnp_sent"), 0, "no reverse traffic: no QP to notify");
  t.ok(noAck.queueCounter(2, 3, "ipcc_cnp_no_qp") > 0, "counted as owed without a QP");
  t.end();
});

t.test("IPCC watches only the ports it is enabled on", (t) => {
  const other = new SwitchHarness({ settings: { ipcc: { enabled: true, ports: ["eth3"], curve } } }).start();
  congested(other, 40);
  other.run(other.now + 45_000);
  t.equal(other.queueCounter(2, 3, "ipcc_cnp_sent"), 0, "eth2 not watched: no CNP");
  const on = new SwitchHarness({ settings: { ipcc: { enabled: true, ports: ["eth2"], curve } } }).start();
  congested(on, 40);
  on.run(on.now + 45_000);
  t.ok(on.queueCounter(2, 3, "ipcc_cnp_sent") > 0, "eth2 watched: CNPs");
  t.end();
});

t.test("a falling queue at low occupancy gets no CNPs, a rising one does", (t) => {
  const h = new SwitchHarness({ settings: { ipcc: { enabled: true, period: 10_000, curve } } }).start();
  congested(h, 20);
  h.run(h.now + 10_500);
  const rising = h.queueCounter(2, 3, "ipcc_cnp_sent");
  t.ok(rising >= 1, "rising from empty: notified");
  h.run(h.now + 50_000);
  t.equal(h.queueCounter(2, 3, "ipcc_cnp_sent"), rising, "flat and low afterwards: no more CNPs");
  t.end();
});
