// Loss recovery: random loss on the link, and single frames dropped on purpose to exercise NAK with
// go-back-N, the retransmission timeout, READ gap recovery and the ICRC check.

import t from "tap";
import { Opcode } from "../../src/wire/roce.js";
import { connect, type Middlebox, must, type Pair, pair, qpStats, roceOf, runUntil } from "./support/pair.js";

const MB = 1 << 20;

for (const lossRate of [0, 0.01, 0.05]) {
  t.test(`random loss ${lossRate * 100} %: every byte delivered exactly once`, (t) => {
    const p = pair({ lossRate, seed: 11 });
    connect(p, 1);
    connect(p, 2);
    const writes = [MB, 300_000, 4097, 1];
    const reads = [MB, 1, 5 * 4096];
    for (const [i, bytes] of writes.entries()) {
      must(p.a, { type: "post", qpn: 1, op: i % 2 ? "send" : "write", bytes, flowId: `w${i}` });
    }
    for (const [i, bytes] of reads.entries())
      must(p.a, { type: "post", qpn: 2, op: "read", bytes, flowId: `r${i}` });
    // Traffic the other way on the same QP, so ACKs and data share each direction.
    must(p.b, { type: "post", qpn: 1001, op: "write", bytes: 2 * MB, flowId: "back" });
    const n = writes.length + reads.length;
    const end = runUntil(
      p.sim,
      () => p.a.completions.length === n && p.b.completions.length === 1,
      500_000_000,
      1_000_000,
    );
    t.equal(p.a.completions.length, n, `A: ${n} completions`);
    t.equal(p.b.completions.length, 1, "B: 1 completion");
    t.equal(
      qpStats(p.b, 1001, end).bytesDelivered,
      writes.reduce((a, b) => a + b),
      "B got A's writes once",
    );
    t.equal(
      qpStats(p.a, 2, end).readBytesReceived,
      reads.reduce((a, b) => a + b),
      "A read every byte once",
    );
    t.equal(qpStats(p.a, 1, end).bytesDelivered, 2 * MB, "A got B's write once");
    const retransmits =
      p.a.completions.reduce((a, f) => a + f.retransmits, 0) +
      p.b.completions.reduce((a, f) => a + f.retransmits, 0);
    const ca = p.a.stats(end).counters;
    const cb = p.b.stats(end).counters;
    if (lossRate === 0) {
      t.equal(retransmits, 0, "no loss, no retransmission");
      t.equal(ca.retransmitted_packets! + cb.retransmitted_packets!, 0);
    } else {
      t.ok(retransmits > 0, `retransmissions: ${retransmits}`);
      t.ok(cb.out_of_sequence! > 0 || ca.out_of_sequence! > 0, "gaps were seen");
    }
    t.equal(ca.payload_mismatch! + cb.payload_mismatch!, 0, "no wrong payload");
    t.equal(ca.rx_invalid_request! + cb.rx_invalid_request!, 0);
    t.comment(
      `loss ${lossRate}: end ${(end / 1e6).toFixed(1)} ms, NAKs ${ca.naks_sent! + cb.naks_sent!}, timeouts ${
        ca.local_ack_timeout_err! + cb.local_ack_timeout_err!
      }, read re-issues ${ca.implied_nak_seq_err}`,
    );
    t.end();
  });
}

/** A pair through a middlebox; QP 1 on A ↔ 1001 on B. */
function boxed(): Pair & { box: Middlebox } {
  const p = pair({ middlebox: true });
  connect(p, 1);
  return p as Pair & { box: Middlebox };
}

/** Drops the first frame from `fromPort` whose RoCE headers match. */
function dropOnce(
  box: Middlebox,
  fromPort: number,
  match: (opcode: number, psn: number) => boolean,
): () => number {
  let dropped = 0;
  box.dropIf = (frame, from) => {
    if (dropped > 0 || from !== fromPort) return false;
    const h = roceOf(frame);
    if (h === null || !match(h.bth.opcode, h.bth.psn)) return false;
    dropped++;
    return true;
  };
  return () => dropped;
}

t.test("a lost packet: one NAK, go-back-N from the missing PSN", (t) => {
  const p = boxed();
  const psns: number[] = [];
  p.sim.onFrame((_t, from, _to, frame) => {
    const h = roceOf(frame);
    if (from.device === "a" && h) psns.push(h.bth.psn);
  });
  const dropped = dropOnce(p.box, 1, (op, psn) => op === Opcode.RdmaWriteMiddle && psn === 10);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "w" });
  const end = runUntil(p.sim, () => p.a.completions.length === 1, 50_000_000);
  t.equal(dropped(), 1);
  const ca = p.a.stats(end).counters;
  const cb = p.b.stats(end).counters;
  t.equal(cb.naks_sent, 1, "one NAK for the gap, however many packets followed");
  t.ok(cb.out_of_sequence! > 1, `${cb.out_of_sequence} packets arrived past the gap`);
  t.equal(ca.packet_seq_err, 1, "the requester got the NAK");
  t.equal(ca.local_ack_timeout_err, 0, "no timeout needed");
  const second = psns.indexOf(10, psns.indexOf(10) + 1);
  t.ok(second > 0, "PSN 10 sent again");
  t.same(
    psns.slice(second, second + 5),
    [10, 11, 12, 13, 14],
    "and everything after it, in order (go-back-N)",
  );
  t.equal(ca.retransmitted_packets, psns.length - 256, "retransmissions counted");
  t.equal(p.a.completions[0]!.retransmits, psns.length - 256);
  t.equal(qpStats(p.b, 1001, end).bytesDelivered, MB, "delivered exactly once");
  t.equal(cb.duplicate_request, 0);
  t.end();
});

t.test("the last packet is lost: the retransmission timeout recovers", (t) => {
  const p = boxed();
  const dropped = dropOnce(p.box, 1, (op, psn) => op === Opcode.RdmaWriteLast && psn === 255);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "w" });
  const end = runUntil(p.sim, () => p.a.completions.length === 1, 50_000_000);
  t.equal(dropped(), 1);
  const ca = p.a.stats(end).counters;
  t.equal(ca.local_ack_timeout_err, 1, "one timeout");
  t.equal(p.b.stats(end).counters.naks_sent, 0, "nothing followed the lost packet: no NAK");
  const f = p.a.completions[0]!;
  t.ok(f.completedAt >= 4_000_000, `completed after the 4 ms timeout (${f.completedAt} ns)`);
  t.ok(f.retransmits >= 1);
  t.equal(qpStats(p.b, 1001, end).bytesDelivered, MB);
  t.end();
});

t.test("the last ACK is lost: the timeout resends, the responder re-ACKs the duplicates", (t) => {
  const p = boxed();
  const dropped = dropOnce(p.box, 2, (op, psn) => op === Opcode.Acknowledge && psn === 255);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "w" });
  const end = runUntil(p.sim, () => p.a.completions.length === 1, 50_000_000);
  t.equal(dropped(), 1);
  t.equal(p.a.stats(end).counters.local_ack_timeout_err, 1);
  const cb = p.b.stats(end).counters;
  t.equal(cb.duplicate_request, 8, "PSNs 248..255 (after the last ACK that arrived) came twice");
  t.equal(qpStats(p.b, 1001, end).bytesDelivered, MB, "duplicates are not delivered again");
  t.equal(p.a.completions[0]!.retransmits, 8);
  t.end();
});

t.test("a lost READ response: the requester re-issues the read from the missing offset", (t) => {
  const p = boxed();
  const dropped = dropOnce(p.box, 2, (op, psn) => op === Opcode.RdmaReadResponseMiddle && psn === 5);
  const requests: { psn: number; len: number }[] = [];
  p.sim.onFrame((_t, from, _to, frame) => {
    const h = roceOf(frame);
    if (from.device === "a" && h?.bth.opcode === Opcode.RdmaReadRequest) {
      requests.push({ psn: h.bth.psn, len: h.reth!.dmaLength });
    }
  });
  must(p.a, { type: "post", qpn: 1, op: "read", bytes: MB, flowId: "r" });
  const end = runUntil(p.sim, () => p.a.completions.length === 1, 50_000_000);
  t.equal(dropped(), 1);
  t.same(
    requests,
    [
      { psn: 0, len: MB },
      { psn: 5, len: MB - 5 * 4096 },
    ],
    "the second request starts at the missing packet",
  );
  const ca = p.a.stats(end).counters;
  t.equal(ca.implied_nak_seq_err, 1, "one re-issue for the gap");
  t.equal(ca.local_ack_timeout_err, 0);
  t.equal(p.b.stats(end).counters.duplicate_request, 1, "the responder saw a duplicate READ request");
  t.equal(qpStats(p.a, 1, end).readBytesReceived, MB, "every byte read once");
  t.equal(ca.payload_mismatch, 0);
  t.end();
});

t.test("a lost READ request: the timeout sends it again", (t) => {
  const p = boxed();
  const dropped = dropOnce(p.box, 1, (op) => op === Opcode.RdmaReadRequest);
  must(p.a, { type: "post", qpn: 1, op: "read", bytes: 10_000, flowId: "r" });
  const end = runUntil(p.sim, () => p.a.completions.length === 1, 50_000_000);
  t.equal(dropped(), 1);
  t.equal(p.a.stats(end).counters.local_ack_timeout_err, 1);
  t.equal(qpStats(p.a, 1, end).readBytesReceived, 10_000);
  t.end();
});

/**
 * A 1 MB write across the box, which flips one payload bit of PSN 20 on its way (once); `vouch`: the box
 * passes on the sender's verified flag as if it had changed nothing. The receiver's counters at the end.
 */
function corruptedWrite(vouch: boolean) {
  const p = boxed();
  p.box.vouch = vouch;
  let hit = 0;
  p.box.dropIf = (frame, from) => {
    const h = roceOf(frame);
    if (from === 1 && hit === 0 && h?.bth.psn === 20) {
      hit++;
      frame[h.payloadOffset + 100] = frame[h.payloadOffset + 100]! ^ 0x10;
    }
    return false;
  };
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "w" });
  const end = runUntil(p.sim, () => p.a.completions.length === 1, 50_000_000);
  return { counters: p.b.stats(end).counters, delivered: qpStats(p.b, 1001, end).bytesDelivered };
}

t.test("a corrupted packet fails the ICRC, is dropped and recovered", (t) => {
  const { counters: cb, delivered } = corruptedWrite(false);
  t.equal(cb.drop_icrc, 1, "counted as an ICRC error");
  t.equal(cb.payload_mismatch, 0, "never reached the payload check");
  t.equal(cb.naks_sent, 1, "the gap it left was NAKed");
  t.equal(delivered, MB);
  t.end();
});

t.test(
  "the receiver skips the ICRC only for frames vouched for: the flag is trusted, so it must be right",
  (t) => {
    // The same corruption, but the box vouches for the frame: the receiving NIC does not compute the ICRC,
    // and only the payload check sees the flipped bit. This is why only the switch's routing rewrite keeps
    // the flag, and a box that changes bytes never vouches.
    const { counters: cb } = corruptedWrite(true);
    t.equal(cb.drop_icrc, 0, "no ICRC computed, so no ICRC error");
    t.equal(cb.payload_mismatch, 1, "the payload check caught it instead");
    t.end();
  },
);
