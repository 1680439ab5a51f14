// `sim-vs-ns3 --same-packets`: the incast with rocelab's packet made HPCC's (83 ns of wire, 1,000 per
// sender, DCQCN's rates and the byte settings scaled), to tell the packet's unit from the model
// (docs/fidelity.md, "The 16:1 DCQCN cases, frame by frame").
import t from "tap";
import { buildCase, caseName, SAME_PACKETS, WIRE_SCALE } from "../../scripts/bench/ns3-cases.js";
import { fidelityCases } from "../../scripts/bench/ns3-fidelity.js";
import { main } from "../../scripts/bench/sim-vs-ns3.js";
import { hpccNs3HeadroomBytes } from "../../src/switch/mmu.js";

t.test("a frame of 1,106 wire bytes takes HPCC's 83 ns, a gap at rate R HPCC's 1,048-byte gap", (t) => {
  t.ok(Math.abs((1106 * 8 * 1e9) / SAME_PACKETS.linkBps - 83) < 1e-6, "83 ns on the wire");
  t.ok(Math.abs((1106 * 8) / SAME_PACKETS.rate - 1048 * 8) < 1e-9, "the paced gap at any rate");
  t.equal(SAME_PACKETS.bytes, 1082 / 1048, "Kmin, Kmax, buffer: as many packets as HPCC's");
  t.end();
});

t.test("--same-packets changes our incast only, and only where it says", (t) => {
  const c = { kind: "incast", senders: 4, bufferMiB: 4, cc: "dcqcn" } as const;
  const plain = buildCase(c, "hpcc-ns3", 1);
  const same = buildCase({ ...c, samePackets: true }, "hpcc-ns3", 1);
  t.equal(caseName({ ...c, samePackets: true }), "4:1 incast, 4 MiB, DCQCN, HPCC's packet");
  t.equal(caseName(c), "4:1 incast, 4 MiB, DCQCN");
  t.same(same.ns3, plain.ns3, "HPCC's input is the same");
  t.match(plain.scenario.topologySource, { defaults: { link: { rate: 100e9 } } });
  t.match(same.scenario.topologySource, { defaults: { link: { rate: SAME_PACKETS.linkBps } } });
  t.match(plain.scenario.timeline[0], {
    action: { workload: { bytes: Math.round(1_000_000 * WIRE_SCALE) } },
  });
  t.match(same.scenario.timeline[0], { action: { workload: { bytes: 1_024_000 } } });
  const k = SAME_PACKETS.bytes;
  t.same(same.scenario.topology.defaultSwitch.ecn, {
    fast: true,
    queues: { "3": { kmin: Math.round(400_000 * k), kmax: Math.round(1_600_000 * k), pmax: 0.2 } },
  });
  t.match(same.scenario.topology.defaultSwitch.buffer, {
    size: Math.round(4 * 1024 * 1024 * k),
    reserve: Math.round(4096 * k),
    headroom: Math.round(hpccNs3HeadroomBytes(100e9, 1000) * k),
  });
  t.match(same.scenario.overrides.hosts[0], {
    cc: "dcqcn",
    dcqcn: { profile: "hpcc-ns3", minRate: Math.round(1e9 * SAME_PACKETS.rate) },
  });
  t.same(plain.scenario.overrides.hosts[0], {
    cc: "dcqcn",
    dcqcn: { profile: "hpcc-ns3" },
    transport: { ackReqEvery: 1 },
  });
  t.end();
});

t.test("the flag marks every incast case and no fat-tree case", (t) => {
  const cases = fidelityCases([16], [4, 16], ["dcqcn", "off"], [2], 0.5, true);
  t.same(
    cases.map((c) => (c.kind === "incast" ? c.samePackets : "fat-tree")),
    [true, true, true, true, "fat-tree", "fat-tree"],
  );
  t.notOk(fidelityCases([16], [4], ["dcqcn"], [], 0.5).some((c) => c.kind === "incast" && c.samePackets));
  t.end();
});

t.test("the flag refuses what it cannot make HPCC's packet of", async (t) => {
  const refused = /--same-packets: incasts with --cc dcqcn and\/or off only, and not with --byte-scale/;
  await t.rejects(main(["--buffers", "4", "--cc", "hpcc", "--same-packets"]), refused);
  await t.rejects(main(["--fat-tree", "2", "--cc", "dcqcn", "--same-packets"]), refused);
  await t.rejects(main(["--buffers", "4", "--cc", "dcqcn", "--byte-scale", "--same-packets"]), refused);
});
