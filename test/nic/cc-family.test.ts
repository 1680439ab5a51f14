// The arithmetic of HPCC, TIMELY and DCTCP against values worked out by hand from HPCC's ns-3
// (alibaba-edu/High-Precision-Congestion-Control, rdma-hw.cc: UpdateRateHp, UpdateRateTimely,
// HandleAckDctcp). Each case feeds the state machine ACK samples and checks the rate it lands on.

import t from "tap";
import { AckSample } from "../../src/nic/cc/ack-sample.js";
import { Dctcp } from "../../src/nic/cc/dctcp.js";
import { Hpcc, type HpccParams } from "../../src/nic/cc/hpcc.js";
import { Timely, type TimelyParams } from "../../src/nic/cc/timely.js";

const LINE = 100e9;

const HPCC: HpccParams = {
  eta: 0.95,
  maxStage: 5,
  rai: 40e6,
  baseRtt: 9000,
  window: 0,
  minRate: 100e6,
  fastReact: true,
  maxHops: 5,
  multiRate: false,
};

function hpccAck(a: AckSample, acked: number, sent: number, ts: number, txBytes: number, qLen: number) {
  a.acked = acked;
  a.sent = sent;
  a.hopCount = 1;
  const h = a.hops[0]!;
  h.switchId = 1;
  h.egressPort = 3;
  h.rateBps = LINE;
  h.ts = ts;
  h.txBytes = txBytes;
  h.qLen = qLen;
  return a;
}

t.test("HPCC: first ACK records, full update once per RTT, fast react in between", async (t) => {
  const cc = new Hpcc(HPCC, LINE);
  const a = new AckSample(5);
  t.equal(cc.baseWindow, 112_500, "W = 100 Gb/s × 9 µs / 8");
  t.notOk(cc.onAck(hpccAck(a, 1, 10, 1000, 0, 0), 0), "the first ACK only records the hop");
  // 102,400 bytes in 8,192 ns: the link sends at exactly 100 Gb/s, no queue. u = 1; U starts at 1 (ns-3's
  // hp.u = 1): U = (1 · (9000 − 8192) + 1 · 8192) / 9000 = 1; c = U/η = 1.052632 ≥ 1: multiplicative,
  // 100 / 1.052632 + 0.04 = 95.04 Gb/s, committed (ACK 11 is past sequence 10).
  cc.onAck(hpccAck(a, 11, 20, 1000 + 8192, 102_400, 50_000), 0);
  t.ok(Math.abs(cc.rate - 95.04e9) < 1, `rate ${cc.rate}`);
  t.ok(Math.abs(cc.util - 1) < 1e-9, `U = ${cc.util}`);
  // An ACK not past sequence 20: fast react. u = 1 + min(80000, 50000) / (B · T) = 1.444444;
  // U = (1 · 808 + 1.444444 · 8192) / 9000 = 1.404543; 95.04 / (U/η) + 0.04 = 64.322821 Gb/s.
  t.ok(cc.onAck(hpccAck(a, 12, 20, 1000 + 2 * 8192, 204_800, 80_000), 0), "rate changed");
  t.ok(Math.abs(cc.util - 1.404543) < 1e-6, `U = ${cc.util}`);
  t.ok(Math.abs(cc.rate - 64_322_821_180) < 1e3, `rate ${cc.rate}`);
  t.equal(cc.window, 72_363, "window W · R / R_max");
  // The next fast react starts from the same reference Rc = 95.04 Gb/s (not from 64.3): u = 1 + 80000/112500
  // = 1.711111; U = (1.404543 · 808 + 1.711111 · 8192) / 9000 = 1.683588; 95.04 / (U/η) + 0.04 = 53.668 Gb/s.
  cc.onAck(hpccAck(a, 13, 20, 1000 + 3 * 8192, 307_200, 80_000), 0);
  t.ok(Math.abs(cc.rate - 53_668_318_349) < 1e3, `fast reactions do not compound: ${cc.rate}`);
});

/** Two hops: hop 0 then hop 1, each at `ts` + its own τ, u_j = txRate_j / B from the bytes given. */
function twoHops(a: AckSample, acked: number, sent: number, hops: [number, number][]) {
  a.acked = acked;
  a.sent = sent;
  a.hopCount = 2;
  hops.forEach(([ts, txBytes], i) => {
    Object.assign(a.hops[i]!, { switchId: i, egressPort: 1, rateBps: LINE, ts, txBytes, qLen: 0 });
  });
  return a;
}

t.test("HPCC: one U for the path (the paper, run.py's MULTI_RATE 0) against one per hop", async (t) => {
  // ACK 2: hop 0 u = 1 over τ 8,192 ns, hop 1 u = 0.5 over 4,096 ns. ACK 3 (fast): hop 0 u = 0.5, hop 1 u = 1.2.
  const acks = (cc: Hpcc) => {
    const a = new AckSample(5);
    cc.onAck(
      twoHops(a, 1, 10, [
        [0, 0],
        [0, 0],
      ]),
      0,
    );
    cc.onAck(
      twoHops(a, 11, 20, [
        [8192, 102_400],
        [4096, 25_600],
      ]),
      0,
    );
    cc.onAck(
      twoHops(a, 12, 20, [
        [16_384, 153_600],
        [8192, 87_040],
      ]),
      0,
    );
  };
  const path = new Hpcc(HPCC, LINE);
  acks(path);
  // U = 1 after ACK 2 (the larger u, 1, over its τ 8,192): Rc = 95.04 Gb/s. ACK 3: the larger u is hop 1's
  // 1.2 over τ 4,096: U = (1 · 4904 + 1.2 · 4096) / 9000 = 1.091022; 95.04 / (U/η) + 0.04 = 82.795 Gb/s.
  t.ok(Math.abs(path.util - 1.091022) < 1e-6, `U = ${path.util}`);
  t.ok(Math.abs(path.rate - 82_795_417_957) < 1e3, `rate ${path.rate}`);
  const perHop = new Hpcc({ ...HPCC, multiRate: true }, LINE);
  acks(perHop);
  // ns-3 MultiRate 1: hop 0 U_0 = 1, Rc_0 = 95.04, then U_0 = 0.544889 < η, stage 0 < 5: 95.08 Gb/s; hop 1
  // U_1 = 0.772444 (additive: Rc_1 = 100), then 0.967030: 100 / 1.017926 + 0.04 = 98.279 Gb/s. Least: 95.08.
  t.ok(Math.abs(perHop.rate - 95.08e9) < 1e3, `rate ${perHop.rate}`);
  t.ok(Math.abs(perHop.util - 0.96703) < 1e-5, `max U_j = ${perHop.util}`);
});

t.test("HPCC: the rate floor and line-rate cap", async (t) => {
  const cc = new Hpcc(HPCC, LINE);
  const a = new AckSample(5);
  cc.onAck(hpccAck(a, 1, 10, 0, 0, 0), 0);
  // A 10 MB standing queue: u ≈ 1 + 10e6/112500 = 89.9, rate 100/94.6 + 0.04 ≈ 1.09 Gb/s, above 100 Mb/s.
  cc.onAck(hpccAck(a, 11, 20, 9000, 112_512, 10_000_000), 0);
  cc.onAck(hpccAck(a, 21, 30, 18000, 225_024, 10_000_000), 0);
  t.ok(cc.rate >= HPCC.minRate && cc.rate < 2e9, `rate ${cc.rate}`);
});

const TIMELY: TimelyParams = {
  alpha: 0.875,
  beta: 0.8,
  tLow: 50_000,
  tHigh: 500_000,
  minRtt: 20_000,
  rai: 100e6,
  rhai: 500e6,
  haiThreshold: 5,
  minRate: 100e6,
};

function timelyAck(a: AckSample, acked: number, sent: number, sentAt: number) {
  a.acked = acked;
  a.sent = sent;
  a.echoedSentAt = sentAt;
  return a;
}

t.test("TIMELY: gradient decrease, T_high decrease, additive then HAI increase", async (t) => {
  const cc = new Timely(TIMELY, LINE);
  const a = new AckSample(0);
  t.notOk(cc.onAck(timelyAck(a, 1, 10, 0), 30_000), "first RTT (30 µs) only recorded");
  // RTT 52 µs (between T_low and T_high): rttDiff = 0.875 · 22000 = 19250; gradient 0.9625;
  // R = 100 Gb/s · (1 − 0.8 · 0.9625) = 23 Gb/s.
  cc.onAck(timelyAck(a, 11, 20, 100_000), 152_000);
  t.ok(Math.abs(cc.rate - 23e9) < 1, `rate ${cc.rate}`);
  t.notOk(cc.onAck(timelyAck(a, 15, 20, 100_000), 160_000), "ACKs inside the RTT do nothing");
  // RTT 600 µs > T_high: R · (1 − 0.8 · (1 − 500/600)) = 23 · 0.866667 = 19.933333 Gb/s.
  cc.onAck(timelyAck(a, 21, 30, 200_000), 800_000);
  t.ok(Math.abs(cc.rate - 19.933333e9) < 1e3, `rate ${cc.rate}`);
  // RTT 40 µs < T_low: five additive steps of 100 Mb/s, then R_HAI steps of 500 Mb/s.
  let sent = 30;
  for (let i = 0; i < 7; i++) {
    cc.onAck(timelyAck(a, sent + 1, sent + 10, 1_000_000 + i * 100_000), 1_040_000 + i * 100_000);
    sent += 10;
  }
  t.ok(Math.abs(cc.rate - (19.933333e9 + 5 * 100e6 + 2 * 500e6)) < 1e3, `rate ${cc.rate}`);
});

t.test("DCTCP: α per RTT from the marked fraction, one cut per window, additive increase", async (t) => {
  const cc = new Dctcp({ g: 1 / 16, rai: 615e6, minRate: 100e6, window: 0 }, LINE);
  const a = new AckSample(0);
  a.echoedSentAt = -1;
  const ack = (acked: number, sent: number, ecn: boolean) => {
    a.acked = acked;
    a.sent = sent;
    a.ecnEcho = ecn;
    return a;
  };
  // First ACK, marked: batch = 10 + 1 packets; α still 1; the cut: R · (1 − 1/2) = 50 Gb/s, CWR until 10.
  cc.onAck(ack(1, 10, true), 0);
  t.equal(cc.rate, 50e9, "first cut by α/2 = 1/2");
  cc.onAck(ack(5, 12, true), 0);
  t.equal(cc.rate, 50e9, "no second cut inside CWR");
  // Past 10: new batch. F = min(1, 2 marked / 11) = 0.181818; α = 15/16 + 0.181818/16 = 0.948864.
  // CWR ends (acked 11 > 10); no mark on this ACK: additive 50 + 0.615 Gb/s.
  cc.onAck(ack(11, 20, false), 0);
  t.ok(Math.abs(cc.alphaValue - 0.948864) < 1e-6, `α ${cc.alphaValue}`);
  t.equal(cc.rate, 50.615e9, "additive increase at the batch start");
  // A mark outside CWR: R · (1 − α/2).
  cc.onAck(ack(12, 21, true), 0);
  t.ok(Math.abs(cc.rate - 50.615e9 * (1 - 0.948864 / 2)) < 1e4, `rate ${cc.rate}`);
});
