// rocelab's DCTCP against HPCC's ns-3 on one flow's ACK stream: every ACK that ns-3's RdmaHw::HandleAckDctcp
// handled for one flow of the bench's fat tree (`npm run bench -- sim-vs-ns3 --fat-tree 2 --cc dctcp --arrivals 3
// --stop 20 --mmu hpcc-ns3`, seed 1: h7 to h10, 1,492,750 bytes), logged by a one-off build of
// alibaba-edu/High-Precision-Congestion-Control (simulation/src/point-to-point/model/rdma-hw.cc) with run.py's
// `dctcp` settings (EWMA_GAIN 1/16, DCTCP_RATE_AI 615 Mb/s, MIN_RATE 1 Gb/s, VAR_WIN 1, window 156,000 bytes),
// fed to the module in order. ns-3's rate after each ACK where it changed, its α and window after the last.
// (The same replay over all 20 seeds' 5.9 million ACKs matched on every one: docs/fidelity.md.)

import t from "tap";
import { AckSample } from "../../src/nic/cc/ack-sample.js";
import { Dctcp } from "../../src/nic/cc/dctcp.js";

/**
 * One character per ACK, in order; each ACK acknowledges one more 1,000-byte packet. A digit is how many
 * packets were sent since the previous ACK (ns-3's snd_nxt), no ECN echo; a letter the same with the echo
 * (a = 0, b = 1, ...); "(n)" and "[n]" a larger count without and with it.
 */
const ACKS =
  "(156)111baaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbac" +
  "bbbbbbbbbbbbbbbbbbbbbbbacbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbaaaaaaaaaaaaaaaaaaaaaaaaaaa" +
  "aaaaaaaaaaababbabbabababababbabacababbbbacbbbc(10)1111110111111102110221111101111111011113202111" +
  "111111111111110112011111111202111110112102021111111111111111111111111111111211111111111111111111" +
  "111111111111111111112111111111111111111111111111111111111111baaaaaaa0000000001111111111111111111" +
  "1111111121111111111111111111111111112111111111111111111111111112111111111111111111111111111baaaa" +
  "aaaaabbbbbbb111111111111112111111111111111111112111111111111111111111211111111111111111111112101" +
  "111211111111111111111110211111121111111111111210211111111111111111111112011111110201221111111111" +
  "111111111211111111111111111111211111111101112111111111111112111111111111111111111111111112111111" +
  "111111111111111111111111211111111111111111111111111111112111111111111111111111111111111112111baa" +
  "aab111111111111111111111111111111111111111111111111111111112111111111111111111111111111112111111" +
  "111111111111111111111111121111111111111111111111111111111111111111111111111111111111111111112111" +
  "111111111111111111111111111111211111111111111111111111111111111112111111111111111111111111111111" +
  "111112111111111111111111111111111111111111121111111111111111111111111111111111112111111111111111" +
  "111111111111111111111112111111111111111111111111111111111111111211111111111111111111111111111111" +
  "111111112111111111000000000000000000000000000000000000000000";

/** [index of the ACK, ns-3's m_rate after it (bits/s)] wherever the rate changed: 5 cuts, 35 increases. */
const NS3_RATES: readonly (readonly [number, number])[] = [
  [4, 50000000000],
  [160, 25039808917],
  [274, 25654808917],
  [314, 26269808917],
  [355, 26884808917],
  [396, 27499808917],
  [437, 16902701919],
  [480, 17517701919],
  [507, 18132701919],
  [535, 18747701919],
  [564, 13405054505],
  [594, 14020054505],
  [615, 14635054505],
  [637, 15250054505],
  [660, 15865054505],
  [684, 16480054505],
  [709, 17095054505],
  [735, 17710054505],
  [762, 18325054505],
  [790, 18940054505],
  [819, 19555054505],
  [849, 20170054505],
  [880, 20785054505],
  [912, 21400054505],
  [945, 22015054505],
  [950, 19314783316],
  [1010, 19929783316],
  [1041, 20544783316],
  [1073, 21159783316],
  [1106, 21774783316],
  [1140, 22389783316],
  [1174, 23004783316],
  [1209, 23619783316],
  [1245, 24234783316],
  [1282, 24849783316],
  [1320, 25464783316],
  [1359, 26079783316],
  [1399, 26694783316],
  [1440, 27309783316],
  [1482, 27924783316],
];

function* acks(): Generator<{ sent: number; ecn: boolean }> {
  for (let i = 0; i < ACKS.length; i++) {
    const c = ACKS[i]!;
    if (c === "(" || c === "[") {
      const end = ACKS.indexOf(c === "(" ? ")" : "]", i);
      yield { sent: Number(ACKS.slice(i + 1, end)), ecn: c === "[" };
      i = end;
    } else if (c >= "a") yield { sent: c.charCodeAt(0) - 97, ecn: true };
    else yield { sent: Number(c), ecn: false };
  }
}

t.test("DCTCP gives HPCC's ns-3 rate, α and window on every ACK of a flow", (t) => {
  const cc = new Dctcp({ g: 1 / 16, rai: 615e6, minRate: 1e9, window: 156_000 }, 100e9);
  const a = new AckSample(0);
  const changes: [number, number][] = [];
  let rate = cc.rate;
  let n = 0;
  for (const x of acks()) {
    a.acked++;
    a.sent += x.sent;
    a.ecnEcho = x.ecn;
    cc.onAck(a, 0);
    if (cc.rate !== rate) changes.push([n, cc.rate]);
    rate = cc.rate;
    n++;
  }
  t.equal(n, 1493, "one ACK per packet");
  t.same(
    changes.map((c) => c[0]),
    NS3_RATES.map((c) => c[0]),
    "the rate changes on the ACKs where ns-3's does",
  );
  // ns-3's DataRate keeps whole bits per second (each cut truncates); ours does not.
  const off = changes.map((c, i) => Math.abs(c[1] - (NS3_RATES[i]?.[1] ?? 0)));
  t.ok(Math.max(...off) < 2, `to ns-3's rate within a bit per second (largest ${Math.max(...off)})`);
  t.ok(Math.abs(cc.alphaValue - 0.097640669) < 1e-9, `α ${cc.alphaValue} is ns-3's 0.097640669`);
  t.equal(cc.window, 43_562, "the window W · R / R_max, whole bytes as ns-3's GetWin");
  t.equal(cc.cuts, 5, "five cuts");
  t.end();
});
