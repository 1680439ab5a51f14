// The responder's receive-order seam: go-back-N's decision (in order, duplicate, out of order with one
// NAK per gap), and the responder acting on whatever the seam decides.

import t from "tap";
import { CounterSet } from "../../src/device/counters.js";
import { declareNicCounters } from "../../src/nic/counters.js";
import { nicConfig } from "../../src/nic/resolve-config.js";
import { FrameBuilder, IntEcho } from "../../src/nic/transport/frames.js";
import { Access } from "../../src/nic/transport/memory-region.js";
import { Arrival, GoBackN, type ReceiveOrder } from "../../src/nic/transport/receive-order.js";
import { RequestResult, Responder } from "../../src/nic/transport/responder.js";
import { KIND_WRITE, type QpLink, type TransportSettings } from "../../src/nic/transport/transport.js";
import { parseIp } from "../../src/wire/bytes.js";
import { AethSyndrome, Opcode, PSN_MASK, parseRoce } from "../../src/wire/roce.js";

const QPN = 7;
const LEN = 256;

function link(nakRetryGuard = true): QpLink {
  const cfg = nicConfig({
    name: "b",
    port: { mac: 0x02_00_00_00_0b_01, ip: parseIp("10.0.0.2")!, rateBps: 100e9 },
    gatewayMac: 0x02_00_00_00_0a_01,
  });
  const settings: TransportSettings = {
    mtu: cfg.mtu,
    ackReqEvery: 1,
    rtoNs: 4_000_000,
    maxInflightPackets: 64,
    nakRetryGuard,
    retryCnt: 7,
    rnrRetry: 7,
    minRnrTimer: 12,
    recvDepth: null,
    recvRepostNs: 0,
  };
  return {
    qpn: QPN,
    remoteQpn: 1,
    remoteIp: parseIp("10.0.0.1")!,
    udpSrcPort: 0xc000,
    builder: new FrameBuilder(cfg),
    counters: declareNicCounters(new CounterSet({})),
    settings,
    echo: new IntEcho(),
    ackReqEvery() {
      return this.settings.ackReqEvery;
    },
    inflightLimit() {
      return this.settings.maxInflightPackets;
    },
    qpError: () => {},
  };
}

/** A one-packet WRITE with PSN `psn` and AckReq set. */
function write(r: Responder, psn: number): RequestResult {
  return r.onRequest(KIND_WRITE, Opcode.RdmaWriteOnly, psn, true, LEN, LEN, Access.Granted, 0);
}

/** The PSN and syndrome of the ACK/NAK the responder owes, or null. */
function owed(r: Responder): { psn: number; nak: boolean } | null {
  const frame = r.takeAckFrame();
  if (frame === null) return null;
  // Ethernet 14 + IPv4 20 + UDP 8: the BTH.
  const h = parseRoce(frame, 42, frame.length);
  if (!h.ok || h.value.aeth === null) throw new Error("not an ACK");
  return { psn: h.value.bth.psn, nak: h.value.aeth.syndrome === AethSyndrome.NakPsnSequenceError };
}

t.test("go-back-N: in order, duplicate, one NAK per gap", async (t) => {
  const order = new GoBackN({ nakRetryGuard: true });
  t.equal(order.arrive(5, 5), Arrival.InOrder, "the expected PSN");
  t.equal(order.arrive(4, 5), Arrival.Duplicate, "one behind");
  t.equal(order.arrive(0, 5), Arrival.Duplicate, "far behind");
  t.equal(order.arrive(6, 5), Arrival.OutOfOrderNak, "the first packet beyond a gap is NAKed");
  t.equal(order.arrive(7, 5), Arrival.OutOfOrder, "the same gap: silent");
  t.equal(order.arrive(9, 5), Arrival.OutOfOrder, "still the same gap");
  t.equal(order.arrive(4, 5), Arrival.Duplicate, "a duplicate inside a gap is still a duplicate");
  t.equal(order.arrive(5, 5), Arrival.InOrder, "the missing packet");
  order.advanced();
  t.equal(order.arrive(8, 6), Arrival.OutOfOrderNak, "a new gap after progress is NAKed again");
});

t.test("go-back-N without the retry guard NAKs every out-of-order packet", async (t) => {
  const order = new GoBackN({ nakRetryGuard: false });
  t.equal(order.arrive(6, 5), Arrival.OutOfOrderNak);
  t.equal(order.arrive(7, 5), Arrival.OutOfOrderNak);
});

t.test("go-back-N across the 24-bit PSN wrap", async (t) => {
  const order = new GoBackN({ nakRetryGuard: true });
  t.equal(order.arrive(PSN_MASK, PSN_MASK), Arrival.InOrder);
  t.equal(order.arrive(PSN_MASK - 1, PSN_MASK), Arrival.Duplicate, "before the wrap");
  t.equal(order.arrive(0, PSN_MASK), Arrival.OutOfOrderNak, "PSN 0 is one past 2^24-1");
  t.equal(order.arrive(1, PSN_MASK), Arrival.OutOfOrder);
});

t.test("the responder with go-back-N: drops the gap, NAKs it once, resumes at the missing PSN", async (t) => {
  const l = link();
  const r = new Responder(l, 0);
  t.equal(write(r, 0), RequestResult.Accepted);
  t.same(owed(r), { psn: 0, nak: false }, "ACK of PSN 0");
  t.equal(write(r, 2), RequestResult.OutOfSequence, "PSN 1 lost");
  t.same(owed(r), { psn: 1, nak: true }, "NAK names the expected PSN");
  t.equal(write(r, 3), RequestResult.OutOfSequence);
  t.equal(owed(r), null, "no second NAK for the same gap");
  t.equal(write(r, 1), RequestResult.Accepted, "the resent PSN 1");
  t.equal(write(r, 2), RequestResult.Accepted, "go-back-N: PSN 2 again, now in order");
  t.same(owed(r), { psn: 2, nak: false }, "coalesced ACK up to PSN 2");
  t.equal(write(r, 1), RequestResult.Duplicate);
  t.same(owed(r), { psn: 2, nak: false }, "a duplicate with AckReq is re-ACKed");
  t.equal(write(r, 4), RequestResult.OutOfSequence, "PSN 3 lost again: a new gap");
  t.same(owed(r), { psn: 3, nak: true }, "a new gap gets its own NAK");
  t.equal(r.bytesDelivered, 3 * LEN, "PSNs 0, 1 and 2 delivered, each once");
  t.equal(l.counters.outOfSequence[0]!, 3);
  t.equal(l.counters.naksSent[0]!, 2);
  t.equal(l.counters.duplicateRequest[0]!, 1);
});

t.test("the responder does what its receive order decides", async (t) => {
  const seen: [number, number][] = [];
  let advanced = 0;
  const script: Arrival[] = [Arrival.OutOfOrder, Arrival.InOrder, Arrival.OutOfOrderNak, Arrival.Duplicate];
  const order: ReceiveOrder = {
    arrive(psn, ePsn) {
      seen.push([psn, ePsn]);
      return script.shift()!;
    },
    advanced() {
      advanced++;
    },
    naked() {},
  };
  const r = new Responder(link(), 0, order);
  // Go-back-N would accept PSN 0; this order says it is out of order (silently).
  t.equal(write(r, 0), RequestResult.OutOfSequence);
  t.equal(owed(r), null, "OutOfOrder: no NAK");
  t.equal(r.bytesDelivered, 0);
  t.equal(write(r, 0), RequestResult.Accepted);
  t.equal(advanced, 1, "told that the expected PSN moved on");
  t.same(owed(r), { psn: 0, nak: false });
  t.equal(write(r, 5), RequestResult.OutOfSequence);
  t.same(owed(r), { psn: 1, nak: true }, "OutOfOrderNak: NAK of the expected PSN");
  t.equal(write(r, 1), RequestResult.Duplicate, "whatever the PSN, the order's word counts");
  t.equal(r.ePsn, 1);
  t.same(seen, [
    [0, 0],
    [0, 0],
    [5, 1],
    [1, 1],
  ]);
});
