// DCQCN's `rateChange`: what a cut does to the gap the pacer is already counting down after the QP's last
// packet. "repace" (paper, nvidia) re-times that gap at the new rate; "next-packet" (hpcc-ns3) lets it run
// at the old rate, as HPCC's ns-3 does (its *Mlx functions set m_rate without RdmaHw::ChangeRate), and
// the new rate paces from the next packet on.

import t from "tap";
import type { RateChange } from "../../src/nic/cc/dcqcn-params.js";
import { type NicConfigInit, nicConfig } from "../../src/nic/resolve-config.js";
import { buildCnpFrame } from "../../src/wire/cnp.js";
import { wireBytes } from "../../src/wire/ethernet.js";
import { Opcode } from "../../src/wire/roce.js";
import { connect, IP_A, IP_B, MAC_A, MAC_B, must, pair, qpStats, RATE, roceOf } from "./support/pair.js";

interface Departure {
  readonly t: number;
  readonly bits: number;
  /** The QP's RC when the packet's first bit left. */
  readonly rate: number;
}

/** A writes to B through a middlebox that sends A a CNP at 10 µs and another at 20 µs: two cuts. */
function run(rateChange: RateChange | undefined): Departure[] {
  const p = pair({
    middlebox: true,
    a: {
      settings: {
        cc: "dcqcn",
        dcqcn: rateChange === undefined ? { profile: "hpcc-ns3" } : { profile: "hpcc-ns3", rateChange },
      },
    },
  });
  connect(p, 1);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 4 << 20, flowId: "w" });
  const data: Departure[] = [];
  p.sim.onFrame((time, from, _to, frame) => {
    const h = roceOf(frame);
    if (from.device === "a" && h && h.bth.opcode <= Opcode.RdmaWriteOnly)
      data.push({ t: time, bits: wireBytes(frame.length) * 8, rate: qpStats(p.a, 1, time).rateBps });
  });
  const cnp = buildCnpFrame({
    srcMac: MAC_B,
    dstMac: MAC_A,
    srcIp: IP_B,
    dstIp: IP_A,
    udpSrcPort: 0xc001,
    destQp: 1,
  });
  for (const at of [10_000, 20_000]) p.sim.at(at, () => p.box!.inject(1, cnp));
  p.sim.run(40_000);
  return data;
}

t.test("hpcc-ns3 keeps the gap in progress at the old rate; repace re-times it", (t) => {
  const kept = run(undefined);
  const retimed = run("repace");
  // RC after the first cut (from line rate, where the port is the pacer) and after the second.
  const rates = [...new Set(kept.map((d) => d.rate))];
  t.equal(
    rates.length,
    3,
    `line rate and two cuts: ${rates.map((r) => (r / 1e9).toFixed(2)).join(", ")} Gb/s`,
  );
  const [, first, second] = rates as [number, number, number];
  t.same([...new Set(retimed.map((d) => d.rate))], rates, "the cuts come to the same rates either way");
  const j = kept.findIndex((d, i) => d.t !== retimed[i]!.t);
  // A tap sees a frame as its first bit leaves: the second cut came while packet j - 1 was on the wire.
  t.ok(
    j > 0 && kept[j - 1]!.rate === first && kept[j]!.rate === second,
    `both send alike until the second cut (packet ${j})`,
  );
  const bits = kept[j - 1]!.bits;
  const at = (bps: number) => (bits * 1e9) / bps;
  // The gap running at the cut: at the old rate (next-packet) or re-timed at the new one (repace).
  const running = kept[j]!.t - kept[j - 1]!.t;
  t.ok(
    Math.abs(running - at(first)) <= 1,
    `next-packet: the gap in progress, ${running} ns, runs on at the old rate (${at(first).toFixed(1)})`,
  );
  const late = retimed[j]!.t - kept[j]!.t;
  t.ok(
    Math.abs(late - (at(second) - at(first))) <= 2,
    `repace: that packet leaves ${late} ns later, the new gap minus the old (${(at(second) - at(first)).toFixed(1)})`,
  );
  // From the next packet on both pace at the new rate.
  for (const [name, d] of [
    ["next-packet", kept],
    ["repace", retimed],
  ] as const) {
    const gap = d[j + 1]!.t - d[j]!.t;
    t.ok(
      Math.abs(gap - at(second)) <= 1,
      `${name}: the next gap, ${gap} ns, is at the new rate (${at(second).toFixed(1)})`,
    );
  }
  t.end();
});

t.test("resolved settings: the default (nvidia) re-times, hpcc-ns3 does not, the knob overrides", (t) => {
  const port = { mac: MAC_A, ip: IP_A, rateBps: RATE, delayNs: 1000 };
  const of = (settings: NicConfigInit["settings"]) =>
    nicConfig({ name: "n", port, gatewayMac: MAC_B, ...(settings ? { settings } : {}) }).dcqcn.rateChange;
  t.equal(of(undefined), "repace");
  t.equal(of({ dcqcn: { profile: "hpcc-ns3" } }), "next-packet");
  t.equal(of({ dcqcn: { profile: "hpcc-ns3", rateChange: "repace" } }), "repace");
  t.equal(of({ dcqcn: { rateChange: "next-packet" } }), "next-packet");
  t.end();
});
