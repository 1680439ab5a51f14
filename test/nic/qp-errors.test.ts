// How an RC QP fails, rule by rule (IBTA Vol. 1 9.7.5-9.7.6, 9.9.3, 10.3.1), on two NICs through a
// middlebox: the retry counter against timeouts and PSN-sequence NAKs, retry exceeded, the flush of every
// outstanding work request in posting order, the error NAKs on the wire with their syndromes and the
// requester's completions for them, malformed headers, and forged PSNs that used to livelock a QP.

import t from "tap";
import { transportFeature } from "../../src/nic/features/transport.js";
import { EtherType, serializeEthernet } from "../../src/wire/ethernet.js";
import { writeIcrcV2 } from "../../src/wire/icrc.js";
import { IpProtocol, serializeIpv4 } from "../../src/wire/ipv4.js";
import { AethSyndrome, Opcode } from "../../src/wire/roce.js";
import { serializeUdp } from "../../src/wire/udp.js";
import { acksFromB, boxed, forged, reth } from "./support/forge.js";
import { connect, IP_A, IP_B, MAC_A, MAC_B, must, pair, qpStats, roceOf, runUntil } from "./support/pair.js";

const MB = 1 << 20;
const MTU = 4096;

t.test("timeout, retryCnt and rto: the verbs attributes and the lab's exact override", (t) => {
  const r = (s?: Record<string, unknown>) => transportFeature.resolve(s as never, { rateBps: 100e9 });
  t.equal(r().rto, 4_000_000, "neither set: the lab's 4 ms");
  t.same(
    [r().timeout, r().retryCnt, r().rnrRetry, r().minRnrTimer],
    [14, 7, 7, 12],
    "ConnectX-like defaults",
  );
  t.equal(r({ timeout: 14 }).rto, 4096 * 2 ** 14, "timeout 14: 4.096 us x 2^14 = 67.1 ms");
  t.equal(r({ timeout: 14, rto: 1_000_000 }).rto, 1_000_000, "an exact rto wins");
  t.equal(r({ timeout: 0 }).rto, Number.POSITIVE_INFINITY, "timeout 0: infinite");
  t.notOk(transportFeature.settings.safeParse({ retryCnt: 8 }).success, "retryCnt is 0..7");
  t.notOk(transportFeature.settings.safeParse({ timeout: 32 }).success, "timeout is 0..31");
  t.ok(transportFeature.settings.safeParse({ rnrRetry: 7, minRnrTimer: 31 }).success);
  t.end();
});

t.test("retry exceeded: retryCnt + 1 timeouts without progress, then every request flushed in order", (t) => {
  const p = boxed({ rto: 100_000, retryCnt: 2 });
  // The path from A to B goes dark after the first 10 packets.
  p.box!.dropIf = (_f, from, index) => from === 1 && index >= 10;
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "w1" });
  must(p.a, { type: "post", qpn: 1, op: "read", bytes: MB, flowId: "r2" });
  must(p.a, { type: "post", qpn: 1, op: "send", bytes: 10, flowId: "s3" });
  const end = runUntil(p.sim, () => p.a.completions.length === 3, 10_000_000, 10_000);
  const c = p.a.stats(end).counters;
  t.equal(c.local_ack_timeout_err, 3, "retryCnt 2: the third timeout fails the QP");
  t.same(
    p.a.completions.map((x) => [x.flowId, x.status]),
    [
      ["w1", "retry_exceeded"],
      ["r2", "flushed"],
      ["s3", "flushed"],
    ],
    "the failed request first, then the others flushed, in posting order",
  );
  const at = p.a.completions[0]!.completedAt;
  t.ok(at >= 300_000 && at < 400_000, `failed after three 100 us timeouts (${at} ns)`);
  t.equal(c.req_cqe_error, 1);
  t.equal(c.req_cqe_flush_error, 2);
  t.equal(c.qp_errors, 1);
  t.equal(qpStats(p.a, 1, end).state, "error");
  const sent = qpStats(p.a, 1, end).bytesSent;
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 100, flowId: "late" }, end);
  p.sim.run(end + 2_000_000);
  t.equal(p.a.completions.at(-1)!.status, "flushed", "a request posted to a QP in error is flushed");
  t.equal(qpStats(p.a, 1, p.sim.now).bytesSent, sent, "and nothing more is sent");
  t.end();
});

t.test("progress resets the retry counter: one lost tail per message, each recovered by one timeout", (t) => {
  for (const retryCnt of [0, 1]) {
    const p = boxed({ rto: 100_000, retryCnt });
    // Each message's last packet is lost once: only the timeout can recover it.
    const lost = new Set<number>();
    p.box!.dropIf = (frame, from) => {
      const h = roceOf(frame);
      if (from !== 1 || h === null || h.bth.opcode !== Opcode.RdmaWriteLast || lost.has(h.bth.psn))
        return false;
      lost.add(h.bth.psn);
      return true;
    };
    // One message at a time, each posted when the previous one ended.
    for (let i = 0; i < 3; i++) {
      must(p.a, { type: "post", qpn: 1, op: "write", bytes: 8 * MTU, flowId: `w${i}` }, p.sim.now);
      runUntil(p.sim, () => p.a.completions.length === i + 1, p.sim.now + 10_000_000, 10_000);
    }
    const status = p.a.completions.map((x) => x.status);
    const timeouts = p.a.stats(p.sim.now).counters.local_ack_timeout_err;
    if (retryCnt === 0) {
      t.same(status, ["retry_exceeded", "flushed", "flushed"], "retryCnt 0: the first timeout fails the QP");
      t.equal(timeouts, 1);
    } else {
      t.same(
        status,
        ["success", "success", "success"],
        "retryCnt 1: three timeouts in all, progress between",
      );
      t.equal(timeouts, 3);
    }
  }
  t.end();
});

t.test("PSN-sequence NAKs that acknowledge nothing new use up the retries too", (t) => {
  for (const nakRetryGuard of [true, false]) {
    const p = pair({
      middlebox: true,
      a: { settings: { transport: { rto: 1_000_000, retryCnt: 3 } } },
      b: { settings: { transport: { nakRetryGuard } } },
    });
    connect(p, 1);
    // PSN 5 never gets through: B NAKs PSN 5 (once per gap with the guard, for every later packet without).
    p.box!.dropIf = (frame, from) => from === 1 && roceOf(frame)?.bth.psn === 5;
    must(p.a, { type: "post", qpn: 1, op: "write", bytes: 64 * MTU, flowId: "w" });
    const end = runUntil(p.sim, () => p.a.completions.length === 1, 100_000_000, 10_000);
    const c = p.a.stats(end).counters;
    t.equal(p.a.completions[0]!.status, "retry_exceeded");
    if (nakRetryGuard) {
      // The one NAK acknowledged PSNs 0..4 (progress); then 3 timeouts are retried and the 4th fails.
      t.equal(c.packet_seq_err, 1, "guard: one NAK for the gap");
      t.equal(c.local_ack_timeout_err, 4, "guard: retryCnt 3, the 4th timeout fails");
    } else {
      t.equal(c.local_ack_timeout_err, 0, "no guard: the repeated NAKs alone fail it");
      t.ok(end < 1_000_000, `before the first timeout (${end} ns)`);
    }
  }
  t.end();
});

t.test(
  "error NAKs on the wire: Invalid Request 0x61 and Remote Access Error 0x62, responder to error",
  (t) => {
    const cases = [
      {
        what: "a WRITE longer than the path MTU",
        syn: AethSyndrome.NakInvalidRequest,
        opcode: Opcode.RdmaWriteOnly,
        length: MTU + 4,
        reth: reth(MTU + 4),
      },
      {
        what: "a WRITE Middle with no First",
        syn: AethSyndrome.NakInvalidRequest,
        opcode: Opcode.RdmaWriteMiddle,
        length: MTU,
        reth: null,
      },
      {
        what: "a WRITE longer than its RETH says",
        syn: AethSyndrome.NakInvalidRequest,
        opcode: Opcode.RdmaWriteOnly,
        length: 256,
        reth: reth(100),
      },
      {
        what: "a WRITE with a wrong R_Key",
        syn: AethSyndrome.NakRemoteAccessError,
        opcode: Opcode.RdmaWriteOnly,
        length: 256,
        reth: reth(256, 0x1234),
      },
      {
        what: "a READ with a wrong R_Key",
        syn: AethSyndrome.NakRemoteAccessError,
        opcode: Opcode.RdmaReadRequest,
        length: 0,
        reth: reth(MB, 0x1234),
      },
    ];
    for (const k of cases) {
      const p = boxed();
      const acks = acksFromB(p);
      p.box!.inject(2, forged({ opcode: k.opcode, psn: 0, length: k.length, reth: k.reth }));
      p.sim.run(100_000);
      t.same(
        acks.map(([psn, syn]) => [psn, syn]),
        [[0, k.syn]],
        `${k.what}: one NAK 0x${k.syn.toString(16)} for its PSN`,
      );
      const c = p.b.stats(100_000).counters;
      t.equal(qpStats(p.b, 1001, 100_000).state, "error", `${k.what}: B's QP is in the error state`);
      t.equal(c.resp_cqe_error, 1);
      if (k.syn === AethSyndrome.NakRemoteAccessError) t.equal(c.resp_remote_access_errors, 1);
      else t.equal(c.rx_invalid_request, 1);
      // A later request for the QP in error is dropped silently.
      p.box!.inject(2, forged({ opcode: Opcode.SendOnly, psn: 1, length: 8 }));
      p.sim.run(200_000);
      t.equal(acks.length, 1, `${k.what}: nothing answers once in error`);
      t.equal(p.b.stats(200_000).counters.drop_qp_error, 1);
    }
    t.end();
  },
);

t.test("the requester completes with the error an error NAK names, at once, and flushes the rest", (t) => {
  const p = boxed();
  // The middlebox spoils the R_Key of A's first WRITE on its way (ICRC recomputed: the bytes are valid).
  p.box!.dropIf = (frame, from) => {
    const h = roceOf(frame);
    if (from === 1 && h?.reth && h.bth.opcode === Opcode.RdmaWriteFirst) {
      frame[h.payloadOffset - 16 + 8] = frame[h.payloadOffset - 16 + 8]! ^ 0xff;
      writeIcrcV2(frame, 14, frame.length);
    }
    return false;
  };
  must(p.a, { type: "post", qpn: 1, op: "send", bytes: 100, flowId: "ok" });
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "bad" });
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 100, flowId: "after" });
  const end = runUntil(p.sim, () => p.a.completions.length === 3, 50_000_000, 10_000);
  t.same(
    p.a.completions.map((x) => [x.flowId, x.status]),
    [
      ["ok", "success"],
      ["bad", "remote_access"],
      ["after", "flushed"],
    ],
  );
  t.ok(end < 100_000, `within a round trip, no timeout (${end} ns)`);
  const c = p.a.stats(end).counters;
  t.equal(c.req_remote_access_errors, 1);
  t.equal(c.req_cqe_error, 1);
  t.equal(c.local_ack_timeout_err, 0);
  t.equal(p.b.stats(end).counters.resp_remote_access_errors, 1);
  t.end();
});

t.test("a truncated BTH is malformed, not an ICRC error; a malformed request at ePSN draws 0x61", (t) => {
  const p = boxed();
  const acks = acksFromB(p);
  // UDP to 4791 with 10 bytes: not even a BTH and an ICRC.
  const frame = new Uint8Array(14 + 20 + 8 + 10 + 8);
  let at = serializeEthernet({ dst: MAC_B, src: MAC_A, etherType: EtherType.IPv4 }, frame, 0);
  at = serializeIpv4(
    { src: IP_A, dst: IP_B, protocol: IpProtocol.UDP, payloadLength: 18, dscp: 26, ttl: 64 },
    frame,
    at,
  );
  serializeUdp({ srcPort: 0xc001, dstPort: 4791, payloadLength: 10 }, frame, at);
  p.box!.inject(2, frame);
  p.sim.run(50_000);
  let c = p.b.stats(50_000).counters;
  t.equal(c.drop_malformed, 1, "counted as malformed");
  t.equal(c.drop_icrc, 0, "not as an ICRC error");
  // A WRITE First whose RETH is cut short, with a valid ICRC: headers that do not add up.
  const good = forged({ opcode: Opcode.RdmaWriteOnly, psn: 0, length: 0, reth: reth(0) });
  const cut = good.slice(0, good.length - 8);
  const ipLen = cut.length - 14;
  cut[16] = ipLen >> 8;
  cut[17] = ipLen & 0xff;
  cut[24] = 0;
  cut[25] = 0;
  let sum = 0;
  for (let i = 14; i < 34; i += 2) sum += (cut[i]! << 8) | cut[i + 1]!;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  cut[24] = (~sum >> 8) & 0xff;
  cut[25] = ~sum & 0xff;
  cut[38] = (ipLen - 20) >> 8;
  cut[39] = (ipLen - 20) & 0xff;
  writeIcrcV2(cut, 14, cut.length);
  p.box!.inject(2, cut);
  p.sim.run(100_000);
  c = p.b.stats(100_000).counters;
  t.equal(c.drop_malformed, 2);
  t.equal(c.drop_icrc, 0);
  t.same(
    acks.map(([psn, syn]) => [psn, syn]),
    [[0, AethSyndrome.NakInvalidRequest]],
    "NAK Invalid Request",
  );
  t.end();
});

t.test("forged PSNs ahead of a real WRITE: the flow ends (invalid request), it does not livelock", (t) => {
  const p = boxed();
  const acks = acksFromB(p);
  // Eight forged one-packet WRITEs with valid PSNs move B's expected PSN to 8.
  for (let psn = 0; psn < 8; psn++)
    p.box!.inject(2, forged({ opcode: Opcode.RdmaWriteOnly, psn, length: 64, reth: reth(64) }));
  p.sim.run(50_000);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 200 * MTU, flowId: "real" }, p.sim.now);
  const end = runUntil(p.sim, () => p.a.completions.length === 1, 1_000_000_000, 100_000);
  t.equal(p.a.completions.length, 1, "the flow ended");
  t.equal(p.a.completions[0]!.status, "invalid_request", "PSN 8 is a WRITE Middle with no First: NAK 0x61");
  const cb = p.b.stats(end).counters;
  t.equal(cb.duplicate_request, 8, "PSNs 0..7 of the real WRITE fall in the duplicate region");
  t.ok(
    acks.some(([psn, syn]) => psn === 8 && syn === AethSyndrome.NakInvalidRequest),
    "B NAKed PSN 8 with Invalid Request",
  );
  t.ok(end < 1_000_000, `ended within a millisecond (${end} ns), no timeout needed`);
  t.equal(p.a.stats(end).counters.local_ack_timeout_err, 0);
  t.end();
});
