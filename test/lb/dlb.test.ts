import t from "tap";
import { Dlb, type DlbCounters, DlbMode } from "../../src/lb/dlb.js";
import { EcmpGroup } from "../../src/lb/ecmp-group.js";
import { ALGORITHM_CRC32 } from "../../src/lb/ecmp-hash.js";
import { PortQualityMeter } from "../../src/lb/port-quality.js";
import { StaticEcmp } from "../../src/lb/static-ecmp.js";
import type { FlowFields } from "../../src/lb/strategy.js";

const flow = (srcPort: number): FlowFields => ({
  srcIp: 0x0a01_0001,
  dstIp: 0x0a09_0007,
  protocol: 17,
  srcPort,
  dstPort: 4791,
  destQp: 0x123,
  length: 1000,
});

/** Members on ports 1-4; qualities set by the test. */
function setup(mode: DlbMode, flowsets = 64) {
  const quality = [0, 0, 0, 0, 0];
  const g = new EcmpGroup(
    [1, 2, 3, 4].map((port) => ({ port, via: 0x0a00_0000 + port })),
    () => true,
  );
  const counters: DlbCounters = { flowsetsCreated: 0, flowletMoves: 0, overflow: 0 };
  const perPort = new Float64Array(5);
  const dlb = new Dlb(
    mode,
    { inactivityNs: 10_000, agingNs: 1_000_000, flowsets },
    { quality: (p) => quality[p]! },
    new StaticEcmp(31, ALGORITHM_CRC32, 3),
    counters,
    perPort,
  );
  const best = (p: number): void => {
    for (let i = 0; i < quality.length; i++) quality[i] = i === p ? 0 : 5;
  };
  return { g, dlb, counters, perPort, best };
}

t.test(
  "eligibility: a flow moves only after a gap longer than the inactivity time, never in a burst",
  (t) => {
    const { g, dlb, counters, best } = setup(DlbMode.Eligibility);
    best(2);
    const f = flow(0xc001);
    t.equal(dlb.select(f, g, 0).port, 2, "the first packet picks the best member");
    best(4);
    // A burst: packets 1 µs apart for 50 µs, while another member is better.
    const burst = new Set<number>();
    for (let now = 1000; now <= 50_000; now += 1000) burst.add(dlb.select(f, g, now).port);
    t.same([...burst], [2], "inside the burst the flow stays on its member");
    t.equal(counters.flowletMoves, 0);
    // Exactly the inactivity time is still inside the flowlet.
    t.equal(dlb.select(f, g, 60_000).port, 2, "a gap of exactly the inactivity time does not move it");
    t.equal(dlb.select(f, g, 70_001).port, 4, "a gap longer than the inactivity time: the best member");
    t.equal(counters.flowletMoves, 1);
    t.equal(counters.flowsetsCreated, 1);
    t.end();
  },
);

t.test("fixed: the first packet picks, the flow never moves while its member is up", (t) => {
  const { g, dlb, counters, best } = setup(DlbMode.Fixed);
  best(3);
  const f = flow(0xc002);
  t.equal(dlb.select(f, g, 0).port, 3);
  best(1);
  const seen = new Set<number>();
  for (const now of [1000, 100_000, 500_000, 900_000]) seen.add(dlb.select(f, g, now).port);
  t.same([...seen], [3], "after bursts and long gaps alike");
  t.equal(counters.flowletMoves, 0);
  t.equal(dlb.select(flow(0xc003), g, 900_001).port, 1, "a new flow picks the now best member");
  t.end();
});

t.test("spray: every packet picks the best member; equal members take turns", (t) => {
  const { g, dlb, perPort, best } = setup(DlbMode.Spray);
  const f = flow(0xc004);
  for (let i = 0; i < 8; i++) dlb.select(f, g, i);
  t.same([...perPort.slice(1)], [2, 2, 2, 2], "ties rotate over the four members");
  best(2);
  t.equal(dlb.select(f, g, 10).port, 2);
  best(4);
  t.equal(dlb.select(f, g, 11).port, 4, "the very next packet follows the quality");
  t.end();
});

t.test("a full flowset table falls back to static ECMP and counts the overflow", (t) => {
  const { g, dlb, counters } = setup(DlbMode.Fixed, 2);
  const ecmp = new StaticEcmp(31, ALGORITHM_CRC32, 3);
  dlb.select(flow(1), g, 0);
  dlb.select(flow(2), g, 0);
  const f = flow(3);
  t.equal(dlb.select(f, g, 0).port, ecmp.select(f, g, 0).port, "the third flow is hashed");
  t.equal(counters.overflow, 1);
  t.equal(counters.flowsetsCreated, 2);
  t.equal(dlb.table.size, 2, "the table stays bounded");
  t.end();
});

t.test("port quality: load band from the moving average of sent bytes, queue band from the depth", (t) => {
  let tx = 0;
  let queued = 0;
  const meter = new PortQualityMeter(
    2,
    { sampleNs: 1000, windowNs: 10_000, queueBandBytes: 25_000 },
    { txBytes: () => tx, queuedBytes: () => queued, rateBps: () => 100e9 },
  );
  t.equal(meter.quality(1, 0), 0, "idle");
  // Line rate (12.5 bytes/ns) for 100 µs, sampled every µs: the average converges to the line rate.
  for (let now = 1000; now <= 100_000; now += 1000) {
    tx += 12_500;
    meter.loadBand(1, now);
  }
  t.equal(meter.loadBand(1, 100_000), 7, "saturated: top band");
  queued = 60_000;
  t.equal(meter.queueBand(1), 2, "60 KB queued at 25 KB per band");
  t.equal(meter.quality(1, 100_000), 9);
  // Idle for 5 time constants: the average has decayed.
  t.equal(meter.loadBand(1, 150_000), 0, "an idle port's load decays");
  t.end();
});
