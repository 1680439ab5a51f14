// PFC at the NIC: a received pause stops the data priority (and only it) for its quanta, refreshes and
// explicit resumes work, and the optional receive buffer pauses the link partner when the host is slow.

import t from "tap";
import type { NicConfigInit } from "../../src/nic/resolve-config.js";
import { regionBase, rkeyFor } from "../../src/nic/transport/memory-region.js";
import { PayloadFactory } from "../../src/nic/transport/payload.js";
import type { SimEvent } from "../../src/runtime/sim/simulator.js";
import { Simulator } from "../../src/runtime/sim/simulator.js";
import { parseIp } from "../../src/wire/bytes.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { buildPfcFrame } from "../../src/wire/pfc.js";
import { buildRoceV2Frame, Opcode } from "../../src/wire/roce.js";
import { connect, must, nicWithRawPeer, pair, qpStats, roceOf, runUntil } from "./support/pair.js";

const MAC_N = 0x02_00_00_00_00_0a;
const MAC_R = 0x02_00_00_00_00_0b;
const IP_N = parseIp("10.2.0.1")!;
const IP_R = parseIp("10.2.0.2")!;
const DELAY = 1000;
/** One quantum is 512 bit times: 5.12 ns at 100 Gb/s. */
const QUANTUM_NS = 5.12;

interface Sent {
  readonly t: number;
  readonly opcode: number;
}

/** A NIC writing 4 MB to a raw host that sends it PFC frames and CE-marked requests at given times. */
function setup(nic: Partial<NicConfigInit>) {
  const sim = new Simulator({ seed: 5 });
  const { nic: n, raw } = nicWithRawPeer(
    sim,
    { macNic: MAC_N, ipNic: IP_N, macRaw: MAC_R, ipRaw: IP_R, delayNs: DELAY },
    nic,
  );
  must(n, { type: "create-qp", qpn: 1, remoteQpn: 101, remoteIp: IP_R });
  must(n, { type: "post", qpn: 1, op: "write", bytes: 4 << 20, flowId: "w" });
  const sent: Sent[] = [];
  sim.onFrame((time, from, _to, frame) => {
    const h = roceOf(frame);
    if (from.device === "nic" && h) sent.push({ t: time, opcode: h.bth.opcode });
  });
  const events: SimEvent[] = [];
  sim.onEvent((e) => events.push(e));
  const payloads = new PayloadFactory(4096);
  let psn = 0;
  const pfc = (at: number, quanta: number) =>
    sim.at(at, (now) =>
      raw.command(
        { send: [buildPfcFrame({ src: MAC_R, quanta: [null, null, null, quanta, null, null, null, null] })] },
        now,
      ),
    );
  const request = (at: number) =>
    sim.at(at, (now) => {
      const p = psn++;
      raw.command(
        {
          send: [
            buildRoceV2Frame({
              srcMac: MAC_R,
              dstMac: MAC_N,
              srcIp: IP_R,
              dstIp: IP_N,
              dscp: 26,
              ecn: Ecn.Ce,
              udpSrcPort: 0xc001,
              opcode: Opcode.RdmaWriteOnly,
              destQp: 1,
              psn: p,
              ackReq: true,
              reth: { va: regionBase(1), rkey: rkeyFor(1), dmaLength: 512 },
              payload: payloads.fill(1, p, 512, now),
            }),
          ],
        },
        now,
      );
    });
  return { sim, n, sent, events, pfc, request };
}

const isData = (s: Sent) => s.opcode <= Opcode.RdmaWriteOnly;

for (const ackDscp of [48, 26]) {
  t.test(`a PFC pause stops data only; CNPs${ackDscp === 48 ? " and ACKs (DSCP 48)" : ""} still go`, (t) => {
    const { sim, n, sent, events, pfc, request } = setup({ settings: { qos: { ackDscp } } });
    const quanta = 20_000;
    pfc(20_000, quanta);
    request(40_000);
    sim.run(400_000);
    // The pause frame (84 wire bytes) arrives 6.72 ns after it starts, plus the link delay.
    const arrive = 20_000 + 6.72 + DELAY;
    const until = arrive + quanta * QUANTUM_NS;
    // A data frame already on the wire when the pause arrives may finish (at most 334 ns later).
    const inPause = sent.filter((s) => isData(s) && s.t > arrive + 335 && s.t < until);
    t.equal(inPause.length, 0, "no data frame during the pause");
    t.ok(
      sent.filter(isData).some((s) => s.t > until && s.t < until + 400),
      "data resumes when the pause expires",
    );
    const cnp = sent.find((s) => s.opcode === Opcode.Cnp);
    t.ok(cnp && cnp.t > arrive && cnp.t < until, `the CNP left during the pause (${cnp?.t})`);
    const ack = sent.find((s) => s.opcode === Opcode.Acknowledge);
    t.ok(ack, "the request was acknowledged");
    if (ackDscp === 48) t.ok(ack!.t < until, `ACK on priority 6 left during the pause (${ack!.t})`);
    else t.ok(ack!.t > until, `ACK on the data priority waited for the pause to end (${ack!.t})`);
    const c = n.stats(400_000).ports[0]!.counters;
    t.equal(c.rx_prio3_pause, 1);
    t.equal(c.rx_prio3_pause_transition, 1, "one XOFF → XON transition");
    t.ok(
      Math.abs(c.rx_prio3_pause_duration! - quanta * QUANTUM_NS) < 2,
      `paused ${c.rx_prio3_pause_duration} ns`,
    );
    t.equal(c.rx_prio6_pause, 0);
    t.same(
      events
        .filter((e) => e.device === "nic" && (e.kind === "paused-on" || e.kind === "paused-off"))
        .map((e) => [e.kind, e.priority]),
      [
        ["paused-on", 3],
        ["paused-off", 3],
      ],
    );
    t.end();
  });
}

t.test(
  "CNP priority misconfigured from the host side: cnpPriority 3 holds CNPs behind the data pause",
  (t) => {
    // ConnectX's cnp_802p_prio set to the data priority: the CNP keeps DSCP 48 but waits with the data.
    const { sim, sent, pfc, request } = setup({ settings: { qos: { cnpPriority: 3 } } });
    const quanta = 20_000;
    pfc(20_000, quanta);
    request(40_000);
    sim.run(400_000);
    const until = 20_000 + 6.72 + DELAY + quanta * QUANTUM_NS;
    const cnp = sent.find((s) => s.opcode === Opcode.Cnp);
    t.ok(cnp && cnp.t > until, `the CNP waited for the pause to end (${cnp?.t}, pause until ${until})`);
    t.end();
  },
);

t.test("a refreshed pause extends; zero quanta resumes at once", (t) => {
  const { sim, n, sent, pfc } = setup({});
  pfc(20_000, 10_000); // 51.2 µs
  pfc(60_000, 10_000); // refreshed before it ran out: paused until ~112 µs
  pfc(100_000, 0); // resume at ~101 µs
  sim.run(300_000);
  const arrive = 20_000 + 6.72 + DELAY;
  const data = sent.filter(isData);
  t.equal(data.filter((s) => s.t > arrive + 335 && s.t < 101_000).length, 0, "paused through the refresh");
  const first = data.find((s) => s.t > 101_000)!;
  t.ok(first.t < 101_500, `resumed right after the XON (${first.t})`);
  const c = n.stats(300_000).ports[0]!.counters;
  t.equal(c.rx_prio3_pause, 2);
  t.equal(c.rx_prio3_resume, 1);
  t.equal(c.rx_prio3_pause_transition, 1);
  t.end();
});

t.test("the receive buffer pauses the sender when the host drains slower than the link", (t) => {
  const rx = { enabled: true, hostIngestRate: 25e9, xoff: 100_000, xon: 50_000 };
  const p = pair({ b: { settings: { rxBuffer: rx } } });
  const events: SimEvent[] = [];
  p.sim.onEvent((e) => events.push(e));
  connect(p, 1);
  const bytes = 8 << 20;
  must(p.a, { type: "post", qpn: 1, op: "write", bytes, flowId: "w" });
  const end = runUntil(p.sim, () => p.a.completions.length === 1, 50_000_000);
  const f = p.a.completions[0]!;
  t.equal(qpStats(p.b, 1001, end).bytesDelivered, bytes, "every byte delivered");
  t.equal(f.retransmits, 0, "lossless: nothing resent");
  const wireTime = ((bytes / 4096) * 4178 * 8e9) / 25e9;
  t.ok(
    f.fctNs > wireTime && f.fctNs < wireTime * 1.05,
    `paced by the host: ${f.fctNs} ns vs ${wireTime.toFixed(0)}`,
  );
  const pb = p.b.stats(end).ports[0]!.counters;
  const pa = p.a.stats(end).ports[0]!.counters;
  t.ok(pb.tx_prio3_pause! > 0, `B sent ${pb.tx_prio3_pause} XOFF`);
  t.ok(pb.tx_prio3_resume! > 0, `and ${pb.tx_prio3_resume} XON`);
  t.equal(pa.rx_prio3_pause, pb.tx_prio3_pause, "A received them");
  t.ok(pa.rx_prio3_pause_duration! > 0);
  t.ok(pb.rx_buffer_peak_bytes! < 150_000, `buffer stayed bounded (${pb.rx_buffer_peak_bytes} B)`);
  t.ok(events.some((e) => e.kind === "pfc-xoff" && e.device === "b"));
  t.end();
});
