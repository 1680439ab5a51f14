// Out-of-order placement: a sprayed message arriving in any order within the window is delivered once,
// complete, without a NAK or a retransmission; only a gap beyond the window is NAKed.

import t from "tap";
import { CounterSet } from "../../src/device/counters.js";
import { createRandom } from "../../src/device/prng.js";
import { declareNicCounters } from "../../src/nic/counters.js";
import { nicConfig } from "../../src/nic/resolve-config.js";
import { FrameBuilder, IntEcho } from "../../src/nic/transport/frames.js";
import { Access } from "../../src/nic/transport/memory-region.js";
import { Arrival } from "../../src/nic/transport/receive-order.js";
import { ReorderWindow } from "../../src/nic/transport/reorder-window.js";
import { RequestResult, Responder } from "../../src/nic/transport/responder.js";
import { KIND_WRITE, type QpLink } from "../../src/nic/transport/transport.js";
import { parseIp } from "../../src/wire/bytes.js";
import { AethSyndrome, Opcode, parseRoce } from "../../src/wire/roce.js";

const QPN = 7;

function link(reorderWindow: number): QpLink {
  const cfg = nicConfig({
    name: "b",
    port: { mac: 0x02_00_00_00_0b_01, ip: parseIp("10.0.0.2")!, rateBps: 100e9 },
    gatewayMac: 0x02_00_00_00_0a_01,
    settings: { reorder: { window: reorderWindow } },
  });
  return {
    qpn: QPN,
    remoteQpn: 1,
    remoteIp: parseIp("10.0.0.1")!,
    udpSrcPort: 0xc000,
    builder: new FrameBuilder(cfg),
    counters: declareNicCounters(new CounterSet({})),
    settings: {
      mtu: cfg.mtu,
      ackReqEvery: 8,
      rtoNs: 4_000_000,
      maxInflightPackets: 64,
      nakRetryGuard: true,
      retryCnt: 7,
      rnrRetry: 7,
      minRnrTimer: 12,
      recvDepth: null,
      recvRepostNs: 0,
      reorderWindow,
    },
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

/** Packet k of an n-packet WRITE of n full MTUs (PSN k). */
function packet(r: Responder, mtu: number, n: number, k: number): RequestResult {
  const op =
    n === 1
      ? Opcode.RdmaWriteOnly
      : k === 0
        ? Opcode.RdmaWriteFirst
        : k === n - 1
          ? Opcode.RdmaWriteLast
          : Opcode.RdmaWriteMiddle;
  return r.onRequest(
    KIND_WRITE,
    op,
    k,
    k % 8 === 7 || k === n - 1,
    mtu,
    k === 0 ? n * mtu : -1,
    Access.Granted,
    0,
  );
}

function owed(r: Responder): { psn: number; nak: boolean } | null {
  const frame = r.takeAckFrame();
  if (frame === null) return null;
  const h = parseRoce(frame, 42, frame.length);
  if (!h.ok || h.value.aeth === null) throw new Error("not an ACK");
  return { psn: h.value.bth.psn, nak: h.value.aeth.syndrome === AethSyndrome.NakPsnSequenceError };
}

t.test("the window's verdicts: in order, placed, already placed, beyond the window (NAK once)", async (t) => {
  const w = new ReorderWindow(4);
  t.equal(w.arrive(5, 5), Arrival.InOrder);
  t.equal(w.arrive(4, 5), Arrival.Duplicate);
  t.equal(w.arrive(8, 5), Arrival.Placed, "3 ahead, window 4");
  w.place(8, 3, KIND_WRITE, Opcode.RdmaWriteMiddle, false, 100, -1, 0);
  t.equal(w.arrive(8, 5), Arrival.OutOfOrder, "a second copy of a placed PSN is dropped");
  t.equal(w.arrive(9, 5), Arrival.OutOfOrderNak, "4 ahead: beyond the window, NAKed");
  t.equal(w.arrive(10, 5), Arrival.OutOfOrder, "the same gap: silent");
  t.ok(w.take(8));
  t.equal(w.length, 100);
  t.notOk(w.take(8), "taken once");
});

t.test("a 64-packet WRITE shuffled within a 16-PSN window: delivered once, complete, no NAK", async (t) => {
  const l = link(16);
  const r = new Responder(l, 0);
  const mtu = l.settings.mtu;
  const n = 64;
  // Each packet displaced by up to 15 positions: a bounded random shuffle, as spraying over paths does.
  const random = createRandom(5, "spray");
  const order = Array.from({ length: n }, (_, k) => ({ k, key: k + random.int(15) }));
  order.sort((a, b) => a.key - b.key || a.k - b.k);
  t.not(
    order.map((o) => o.k).join(),
    Array.from({ length: n }, (_, k) => k).join(),
    "the arrival order really is shuffled",
  );
  const results = order.map(({ k }) => packet(r, mtu, n, k));
  t.ok(results.includes(RequestResult.Placed), "some packets were placed out of order");
  t.notOk(results.includes(RequestResult.OutOfSequence), "none dropped");
  t.equal(r.bytesDelivered, n * mtu, "every byte delivered");
  t.equal(r.messagesDelivered, 1, "the message once");
  t.equal(r.ePsn, n);
  let ack = owed(r);
  let last = ack;
  while (ack !== null) {
    last = ack;
    ack = owed(r);
  }
  t.same(last, { psn: n - 1, nak: false }, "ACKed to the last PSN, never NAKed");
  t.equal(l.counters.naksSent[0]!, 0);
  t.ok(l.counters.oooPlacedPackets[0]! > 0);
  t.ok(
    l.counters.oooMaxDepth[0]! > 0 && l.counters.oooMaxDepth[0]! < 16,
    `max depth ${l.counters.oooMaxDepth[0]!}`,
  );
});

t.test("a packet really missing: NAKed only once the window is exceeded, then resumed", async (t) => {
  const l = link(4);
  const r = new Responder(l, 0);
  const mtu = l.settings.mtu;
  const n = 10;
  t.equal(packet(r, mtu, n, 0), RequestResult.Accepted);
  owed(r);
  // PSN 1 is lost; 2, 3, 4 fit in the window.
  for (const k of [2, 3, 4]) t.equal(packet(r, mtu, n, k), RequestResult.Placed);
  t.equal(owed(r), null, "no NAK while the gap fits the window");
  t.equal(packet(r, mtu, n, 5), RequestResult.OutOfSequence, "PSN 5 is 4 ahead: beyond the window");
  t.same(owed(r), { psn: 1, nak: true }, "the NAK names exactly the missing PSN");
  // The requester goes back to PSN 1: 1 executes 1-4 at once; the resent 2-4 are duplicates.
  t.equal(packet(r, mtu, n, 1), RequestResult.Accepted);
  t.equal(r.ePsn, 5, "placed packets 2-4 executed behind it");
  for (const k of [2, 3, 4]) t.equal(packet(r, mtu, n, k), RequestResult.Duplicate);
  for (let k = 5; k < n; k++) t.equal(packet(r, mtu, n, k), RequestResult.Accepted);
  t.equal(r.bytesDelivered, n * mtu, "each byte once");
  t.equal(r.messagesDelivered, 1);
});

t.test("window 0 keeps go-back-N", async (t) => {
  const l = link(0);
  const r = new Responder(l, 0);
  t.equal(packet(r, l.settings.mtu, 4, 1), RequestResult.OutOfSequence);
  t.same(owed(r), { psn: 0, nak: true });
});

t.test("the window can be switched on and off at run time", async (t) => {
  const l = link(0);
  const r = new Responder(l, 0);
  const mtu = l.settings.mtu;
  r.setReorderWindow(8);
  t.equal(packet(r, mtu, 4, 1), RequestResult.Placed, "placed once the window is on");
  t.equal(packet(r, mtu, 4, 0), RequestResult.Accepted);
  t.equal(r.ePsn, 2, "and executed behind the gap");
  r.setReorderWindow(0);
  t.equal(packet(r, mtu, 4, 3), RequestResult.OutOfSequence, "go-back-N again");
});
