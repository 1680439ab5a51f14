// The notification point: the CNP pacer on its own, then a NIC answering CE-marked packets that a raw host
// sends at known times, and the bytes of the CNPs it sends.

import t from "tap";
import { CnpPacer } from "../../src/nic/cc/dcqcn-np.js";
import { type DcqcnParams, dcqcnProfile } from "../../src/nic/cc/dcqcn-params.js";
import { regionBase, rkeyFor } from "../../src/nic/transport/memory-region.js";
import { PayloadFactory } from "../../src/nic/transport/payload.js";
import { Simulator } from "../../src/runtime/sim/simulator.js";
import { parseIp, readMac, readU16 } from "../../src/wire/bytes.js";
import { verifyIcrcV2 } from "../../src/wire/icrc.js";
import { Ecn, parseIpv4 } from "../../src/wire/ipv4.js";
import { buildRoceV2Frame, Opcode } from "../../src/wire/roce.js";
import { nicWithRawPeer, roceOf } from "./support/pair.js";

t.test("immediate-then-periodic: first CNP at once, then one at the end of each marked interval", (t) => {
  const p = new CnpPacer(50_000, "immediate-then-periodic");
  const sent: number[] = [];
  const mark = (at: number) => {
    // Deliver any deferred CNP due before this mark, as the NIC's timer would.
    while (p.deferredAt >= 0 && p.deferredAt <= at) {
      const due = p.deferredAt;
      if (p.onTimer(due)) sent.push(due);
    }
    if (p.onMarked(at)) sent.push(at);
  };
  for (const at of [0, 10_000, 20_000, 60_000, 120_000, 200_000, 230_000]) mark(at);
  mark(1_000_000);
  t.same(sent, [0, 50_000, 100_000, 150_000, 200_000, 250_000, 1_000_000]);
  t.equal(p.deferredAt, -1);
  t.end();
});

t.test("rate-limited: marks inside the interval are not answered", (t) => {
  const p = new CnpPacer(4_000, "rate-limited");
  const sent = [0, 1000, 2000, 3000, 4000, 5000, 9000].filter((at) => p.onMarked(at));
  t.same(sent, [0, 4000, 9000]);
  t.equal(p.deferredAt, -1, "nothing is owed");
  t.equal(p.suppressed, 4);
  const every = new CnpPacer(0, "rate-limited");
  t.same(
    [0, 0, 1, 2].map((at) => every.onMarked(at)),
    [true, true, true, true],
    "interval 0: every marked packet",
  );
  t.end();
});

const MAC_N = 0x02_00_00_00_00_0a;
const MAC_R = 0x02_00_00_00_00_0b;
const IP_N = parseIp("10.1.0.1")!;
const IP_R = parseIp("10.1.0.2")!;
const DELAY = 1000;
const ADDRESSES = { macNic: MAC_N, ipNic: IP_N, macRaw: MAC_R, ipRaw: IP_R, delayNs: DELAY };

interface Marked {
  readonly qpn: number;
  readonly at: number;
  readonly ce: boolean;
}

/** A NIC with QPs 10 and 11 (peers 20 and 21 on a raw host) receiving one WRITE ONLY per entry at `at`. */
function npRun(dcqcn: DcqcnParams | null, packets: readonly Marked[], until: number) {
  const sim = new Simulator({ seed: 3 });
  const { nic, raw } = nicWithRawPeer(sim, ADDRESSES, {
    tunables: dcqcn === null ? { cc: "none" } : { cc: "dcqcn", dcqcn },
  });
  for (const qpn of [10, 11]) {
    const r = nic.command({ type: "create-qp", qpn, remoteQpn: qpn + 10, remoteIp: IP_R }, 0);
    if (!r.ok) throw new Error(r.error);
  }
  const payloads = new PayloadFactory(4096);
  const psn = new Map<number, number>();
  for (const pkt of packets) {
    const n = psn.get(pkt.qpn) ?? 0;
    psn.set(pkt.qpn, n + 1);
    sim.at(pkt.at - DELAY, (now) => {
      const frame = buildRoceV2Frame({
        srcMac: MAC_R,
        dstMac: MAC_N,
        srcIp: IP_R,
        dstIp: IP_N,
        dscp: 26,
        ecn: pkt.ce ? Ecn.Ce : Ecn.Ect0,
        udpSrcPort: 0xc123,
        opcode: Opcode.RdmaWriteOnly,
        destQp: pkt.qpn,
        psn: n,
        reth: { va: regionBase(pkt.qpn), rkey: rkeyFor(pkt.qpn), dmaLength: 64 },
        payload: payloads.fill(pkt.qpn, n, 64, now),
      });
      raw.command({ send: [frame] }, now);
    });
  }
  sim.run(until);
  // CNPs as the raw host got them, with the time the NIC sent them (arrival minus wire time and delay).
  const cnps = raw.received
    .map((r) => ({ t: r.t, frame: r.frame, h: roceOf(r.frame) }))
    .filter((r) => r.h?.bth.opcode === Opcode.Cnp);
  return { nic, raw, cnps };
}

/** Time the NIC decided to send a CNP that arrived at `t` (84 wire bytes at 100 Gb/s, then the link). */
function sentAt(arrival: number): number {
  return Math.round(arrival - DELAY - 6.72);
}

t.test("NIC NP, paper mode (50 µs): per-QP intervals, deferred CNPs", (t) => {
  const base = 10_000;
  const marks = [0, 10, 20, 60, 120, 200].map((us) => ({ qpn: 10, at: base + us * 1000, ce: true }));
  const other = [5, 30].map((us) => ({ qpn: 11, at: base + us * 1000, ce: true }));
  const clean = [1, 2, 3].map((us) => ({ qpn: 11, at: base + 300_000 + us * 1000, ce: false }));
  const { nic, cnps } = npRun(dcqcnProfile("paper"), [...marks, ...other, ...clean], 1_000_000);
  const to20 = cnps.filter((c) => c.h!.bth.destQp === 20).map((c) => sentAt(c.t) - base);
  const to21 = cnps.filter((c) => c.h!.bth.destQp === 21).map((c) => sentAt(c.t) - base);
  // Each packet reaches the NIC ~1 ns after `at` (64 B payload at 100 Gb/s before the link delay).
  const near = (got: number[], want: number[]) =>
    got.length === want.length && got.every((g, i) => Math.abs(g - want[i]!) <= 30);
  t.ok(near(to20, [0, 50_000, 100_000, 150_000, 200_000]), `QP 10: ${to20.join(", ")}`);
  t.ok(near(to21, [5000, 55_000]), `QP 11 has its own interval: ${to21.join(", ")}`);
  const c = nic.stats(1_000_000).counters;
  t.equal(c.np_ecn_marked_roce_packets, 8, "unmarked packets are not counted");
  t.equal(c.np_cnp_sent, 7);
  t.end();
});

t.test("NIC NP, ConnectX mode (4 µs, rate-limited): marks inside the interval get no CNP", (t) => {
  const base = 10_000;
  const marks = [0, 1, 2, 3, 4.5, 5, 9].map((us) => ({ qpn: 10, at: base + us * 1000, ce: true }));
  const other = [0.5, 2].map((us) => ({ qpn: 11, at: base + us * 1000, ce: true }));
  const { nic, cnps } = npRun(dcqcnProfile("nvidia"), [...marks, ...other], 200_000);
  const to20 = cnps.filter((c) => c.h!.bth.destQp === 20).length;
  const to21 = cnps.filter((c) => c.h!.bth.destQp === 21).length;
  t.equal(to20, 3, "marks at 0, 4.5 and 9 µs are answered");
  t.equal(to21, 1);
  t.equal(nic.stats(200_000).counters.np_cnp_sent, 4);
  t.end();
});

t.test("NP still sends CNPs with DCQCN off (ConnectX NP defaults)", (t) => {
  const { nic, cnps } = npRun(null, [{ qpn: 10, at: 10_000, ce: true }], 100_000);
  t.equal(cnps.length, 1);
  t.equal(nic.stats(100_000).counters.np_cnp_sent, 1);
  t.end();
});

t.test("CNP bytes: opcode 0x81, BECN, DestQP of the RP, DSCP 48, Not-ECT, valid ICRC", (t) => {
  const { cnps, nic } = npRun(dcqcnProfile("nvidia"), [{ qpn: 11, at: 10_000, ce: true }], 100_000);
  t.equal(cnps.length, 1);
  const { frame, h } = cnps[0]!;
  t.equal(frame.length, 74, "74-byte frame (no FCS)");
  t.equal(readMac(frame, 0), MAC_R, "to the gateway");
  t.equal(readMac(frame, 6), MAC_N);
  const ip = parseIpv4(frame, 14);
  t.ok(ip.ok);
  if (!ip.ok) return t.end();
  t.equal(ip.value.dscp, 48);
  t.equal(ip.value.ecn, Ecn.NotEct);
  t.equal(ip.value.dst, IP_R, "to the data sender");
  t.equal(ip.value.src, IP_N);
  t.ok(ip.value.dontFragment);
  t.equal(readU16(frame, 36), 4791);
  const qp = nic.qp(11)!;
  t.equal(readU16(frame, 34), qp.udpSrcPort, "the QP's UDP source port");
  t.ok(qp.udpSrcPort >= 0xc000 && qp.udpSrcPort <= 0xffff);
  t.equal(h!.bth.opcode, 0x81);
  t.ok(h!.bth.becn, "BECN");
  t.notOk(h!.bth.fecn);
  t.equal(h!.bth.destQp, 21, "DestQP = the QP's remote QPN (the reaction point)");
  t.equal(h!.bth.psn, 0);
  t.notOk(h!.bth.ackReq);
  t.equal(h!.bth.pkey, 0xffff);
  t.same([...h!.cnpReserved!], new Array(16).fill(0), "16 zero bytes");
  t.ok(verifyIcrcV2(frame, 14, 14 + ip.value.totalLength), "ICRC verifies");
  t.end();
});
