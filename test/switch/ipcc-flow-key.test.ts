// IPCC's flow table as H3C's document describes it: keyed (source IP, destination IP, Dest QP), learned
// from RDMA CM connection set-up (REQ/REP matched by communication ID, giving both QPs before any data),
// from first data packets and from ACKs; entries counted by what they were learned from.
import t from "tap";
import { buildCmFrame, CmAttr, cmMessage } from "../../src/wire/cm-mad.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { AethSyndrome, buildRoceV2Frame, Opcode, parseBth } from "../../src/wire/roce.js";
import { peerIp, peerMac, portMac, SwitchHarness } from "./harness.js";

const ACTIVE_QP = 0x11;
const PASSIVE_QP = 0x22;
const SPORT = 0xc123;
const PAYLOAD = new Uint8Array(1024);
const curve = { minDepth: 10_000, highOccupancy: 0.01 };

/** A WRITE from the peer of port 1 to the peer of port 2's QP `destQp`. */
function data(psn: number, destQp = PASSIVE_QP, sport = SPORT): Uint8Array {
  return buildRoceV2Frame({
    srcMac: peerMac(1),
    dstMac: portMac(1),
    srcIp: peerIp(1),
    dstIp: peerIp(2),
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: sport,
    opcode: Opcode.RdmaWriteMiddle,
    destQp,
    psn,
    payload: PAYLOAD,
  });
}

function ack(destQp: number, sport = SPORT): Uint8Array {
  return buildRoceV2Frame({
    srcMac: peerMac(2),
    dstMac: portMac(2),
    srcIp: peerIp(2),
    dstIp: peerIp(1),
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: sport,
    opcode: Opcode.Acknowledge,
    destQp,
    psn: 0,
    aeth: { syndrome: AethSyndrome.AckUnlimited, msn: 0 },
  });
}

/** A CM message between the peers of ports 1 (active side) and 2 (passive side). */
function cm(from: 1 | 2, attr: CmAttr, fields: Parameters<typeof cmMessage>[0]): Uint8Array {
  const to = from === 1 ? 2 : 1;
  return buildCmFrame({
    srcMac: peerMac(from),
    dstMac: portMac(from),
    srcIp: peerIp(from),
    dstIp: peerIp(to),
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: SPORT,
    message: cmMessage({ ...fields, attr }),
  });
}

const req = (commId: number) => cm(1, CmAttr.Req, { attr: CmAttr.Req, localCommId: commId, qpn: ACTIVE_QP });
const rep = (remoteCommId: number) =>
  cm(2, CmAttr.Rep, { attr: CmAttr.Rep, localCommId: 9, remoteCommId, qpn: PASSIVE_QP });

const harness = () =>
  new SwitchHarness({
    settings: { ipcc: { enabled: true, curve }, pfcWatchdog: { enabled: false } },
  }).start();

/** CNPs the switch sent back on port 1, with their Dest QP. */
function cnpQps(h: SwitchHarness): number[] {
  return h
    .data(1)
    .filter((s) => s.frame[42] === Opcode.Cnp)
    .map((s) => {
      const b = parseBth(s.frame, 42);
      return b.ok ? b.value.destQp : -1;
    });
}

t.test("two QPs between the same hosts on one UDP source port are two flows", (t) => {
  const h = harness();
  for (let i = 0; i < 3; i++) h.deliver(1, data(i, 0x22));
  for (let i = 0; i < 3; i++) h.deliver(1, data(i, 0x23));
  h.run(h.now + 5_000);
  t.equal(h.counter("ipcc_flow_entries"), 2, "keyed by Dest QP, not by the UDP source port");
  t.equal(h.counter("ipcc_flows_learned_data"), 2, "both learned from their first data packet");
  t.equal(h.counter("ipcc_flows_learned_ack"), 0);
  h.deliver(2, ack(ACTIVE_QP));
  h.run(h.now + 5_000);
  t.equal(h.counter("ipcc_flows_learned_ack"), 1, "the ACK direction learned from the ACK");
  t.equal(h.counter("ipcc_flows_learned"), 3, "the total counts every source");
  t.end();
});

t.test("a REQ/REP exchange gives the sender's QP before any ACK: the first CNP reaches it", (t) => {
  const h = harness();
  h.deliver(1, req(7));
  h.deliver(2, rep(7));
  h.run(h.now + 5_000);
  t.equal(h.counter("ipcc_flows_learned_cm"), 2, "both directions entered from the REP");
  t.equal(h.counter("ipcc_flow_entries"), 2);
  t.equal(h.data(2).length, 1, "the REQ was forwarded");
  t.equal(h.data(1).length, 1, "the REP was forwarded");
  // The receiver pauses the switch; data piles up with no ACK coming back.
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 40; i++) h.deliver(1, data(i, PASSIVE_QP, 0xd000));
  h.run(h.now + 45_000);
  const qps = cnpQps(h);
  t.ok(qps.length >= 1, `CNPs sent (${qps.length})`);
  t.same([...new Set(qps)], [ACTIVE_QP], "to the active side's QP, known from the REQ");
  t.equal(h.queueCounter(2, 3, "ipcc_cnp_no_qp"), 0, "no CNP owed without a QP");
  t.equal(h.counter("ipcc_flows_learned_data"), 0, "the data found its entry (the CM one)");
  t.end();
});

t.test("a DREQ removes both directions of its connection at once, counted; others stay", (t) => {
  const h = harness();
  h.deliver(1, req(7));
  h.deliver(2, rep(7));
  // Another connection between the same hosts, learned from data and ACKs (QPs 0x33 / 0x44).
  h.deliver(1, data(0, 0x33, 0xd001));
  h.deliver(2, ack(0x44, 0xd001));
  h.run(h.now + 5_000);
  t.equal(h.counter("ipcc_flow_entries"), 4, "two connections, two directions each");
  const dreq = (qpn: number) =>
    cm(1, CmAttr.Dreq, { attr: CmAttr.Dreq, localCommId: 7, remoteCommId: 9, qpn });
  h.deliver(1, dreq(0x99));
  h.run(h.now + 5_000);
  t.equal(h.counter("ipcc_flows_removed_cm"), 0, "a DREQ for a QP the table does not hold removes nothing");
  h.deliver(1, dreq(PASSIVE_QP));
  h.run(h.now + 5_000);
  t.equal(h.counter("ipcc_flows_removed_cm"), 2, "the DREQ's connection: both directions");
  t.equal(h.counter("ipcc_flow_entries"), 2, "the other connection stays");
  t.equal(h.counter("ipcc_flows_aged"), 0, "removed, not aged");
  h.deliver(2, cm(2, CmAttr.Drep, { attr: CmAttr.Drep, localCommId: 9, remoteCommId: 7 }));
  h.deliver(1, dreq(PASSIVE_QP));
  h.run(h.now + 5_000);
  t.equal(h.counter("ipcc_flows_removed_cm"), 2, "the DREP and a repeated DREQ change nothing");
  t.equal(h.data(2).length + h.data(1).length >= 7, true, "CM messages are forwarded as before");
  t.end();
});

t.test("without CM or ACK there is no QP; a REP for another communication ID teaches nothing", (t) => {
  const h = harness();
  h.deliver(1, req(7));
  h.deliver(2, rep(8));
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 40; i++) h.deliver(1, data(i));
  h.run(h.now + 45_000);
  t.equal(h.counter("ipcc_flows_learned_cm"), 0, "REP matched no REQ");
  t.equal(cnpQps(h).length, 0, "no CNP");
  t.ok(h.queueCounter(2, 3, "ipcc_cnp_no_qp") > 0, "owed, counted");
  t.end();
});

t.test("an ACK that arrives before the data still pairs the two directions", (t) => {
  const h = harness();
  h.deliver(2, ack(ACTIVE_QP));
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 40; i++) h.deliver(1, data(i));
  h.run(h.now + 45_000);
  t.same([...new Set(cnpQps(h))], [ACTIVE_QP]);
  t.end();
});

t.test("a full table refuses and counts; entries age out", (t) => {
  const h = new SwitchHarness({
    settings: { ipcc: { enabled: true, flows: 2, aging: 200_000 }, pfcWatchdog: { enabled: false } },
  }).start();
  for (let q = 0; q < 3; q++) h.deliver(1, data(0, 0x30 + q));
  h.run(h.now + 5_000);
  t.equal(h.counter("ipcc_flow_entries"), 2);
  t.equal(h.counter("ipcc_flows_full"), 1, "the third Dest QP refused");
  h.run(h.now + 1_500_000);
  t.equal(h.counter("ipcc_flow_entries"), 0);
  t.equal(h.counter("ipcc_flows_aged"), 2);
  t.end();
});
