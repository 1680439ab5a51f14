// `buffer.mmu: hpcc-ns3` against HPCC's ns-3 SwitchMmu (github.com/alibaba-edu/High-Precision-Congestion-
// Control, simulation/src/point-to-point/model/switch-mmu.cc, and scratch/third.cc for the headroom). Every
// expected number below is worked out by hand from those formulas, on the switch of HPCC's 16:1 incast: 17
// ports of 100 Gb/s with 1 µs links, BUFFER_SIZE 2 (MiB), reserve 4 KB, α = 1/8 (pfc_a_shift 3), resume
// offset 3 KB, and its 1048-byte packets (1000 bytes of payload and 48 of headers).

import t from "tap";
import { DropReason } from "../../src/switch/drops.js";
import {
  hpccNs3HeadroomBytes,
  Mmu,
  type MmuBuffer,
  type MmuPfc,
  sharedPoolBytes,
} from "../../src/switch/mmu.js";
import { peerIp, SwitchHarness } from "./harness.js";

const PKT = 1048;
const PORTS = 17;
const HEADROOM = 37_500; // 100e9 × 1000 / 8 / 1e9 × 3
const buffer: MmuBuffer = { size: 2 * 1024 * 1024, reserve: 4096, lossyAlpha: 1, mmu: "hpcc-ns3" };
const pfc: MmuPfc = { enabled: true, xoff: "dynamic", alpha: 1 / 8, resumeOffset: 3072 };
const LOSSLESS = 1 << 3;
// Pool: 2,097,152 − 17 × 4096 − 17 × 37,500 = 1,390,020.
const POOL = 1_390_020;

/** Ports 1..17 as the switch numbers them (index 0 unused, as in ns-3, whose device 0 is the loopback). */
function mmu(over: Partial<MmuBuffer> = {}, ports = PORTS, headroom = HEADROOM): Mmu {
  const h = [0, ...new Array<number>(ports).fill(headroom)];
  const m = new Mmu(ports + 1, { ...buffer, ...over }, pfc, h, LOSSLESS);
  m.setBuffer({ ...buffer, ...over }, h, ports);
  return m;
}

/** Admits n packets from port 1, priority 3, to port 17's queue 3; returns each charge. */
function fill(m: Mmu, n: number): (number | DropReason)[] {
  return Array.from({ length: n }, () => m.admit(1, 3, PORTS, 3, PKT));
}

t.test("headroom and pool as third.cc and ConfigNPort set them", (t) => {
  t.equal(hpccNs3HeadroomBytes(100e9, 1000), 37_500, "three one-way BDPs at 100 Gb/s, 1 µs");
  t.equal(hpccNs3HeadroomBytes(25e9, 1000), 9375, "25 Gb/s: ⌊3125⌋ × 3");
  t.equal(hpccNs3HeadroomBytes(100e9, 1500), 56_250);
  t.equal(mmu().sharedPoolBytes, POOL, "one reserve and one headroom per port");
  const h = [0, ...new Array<number>(PORTS).fill(HEADROOM)];
  t.equal(sharedPoolBytes("hpcc-ns3", buffer.size, 4096, h, 1, PORTS), POOL);
  // The default accounting for the same switch: a reserve per (index, priority), port 0 included.
  t.equal(
    sharedPoolBytes("default", buffer.size, 4096, h, 1, PORTS),
    2_097_152 - 18 * 8 * 4096 - 17 * 37_500,
  );
  // 64:1 at 2 MiB: 65 headrooms (2,437,500 B) exceed the buffer. HPCC's uint32 wraps; here the pool is 0.
  t.equal(mmu({}, 65).sharedPoolBytes, 0);
  t.end();
});

t.test("reserve, shared up to ⌊(pool − shared)/8⌋, then headroom and XOFF, then drop", (t) => {
  const m = mmu();
  const charges = fill(m, 3);
  t.same(charges, [0, 0, 0], "3 × 1048 = 3144 B within the 4096 B reserve");
  t.equal(m.reserveUsed, 3 * PKT);
  t.equal(m.admit(1, 3, PORTS, 3, PKT), 0, "the 4th: 4192 − 4096 = 96 B shared");
  t.equal(m.sharedUsed, 96);
  t.equal(m.reserveUsed, 4096);
  // Packet n stays out of headroom while 1048n − 4096 ≤ ⌊(1,390,020 − (1048(n−1) − 4096))/8⌋, i.e.
  // 9432 n ≤ 1,427,932: n ≤ 151.
  const more = fill(m, 151 - 4);
  t.ok(
    more.every((c) => c === 0),
    "packets 5..151 go to the shared pool",
  );
  t.equal(m.sharedUsed, 151 * PKT - 4096, "154,152 B shared");
  t.equal(m.sharedLimit(), 154_483, "⌊(1,390,020 − 154,152)/8⌋ = ⌊154,483.5⌋");
  t.notOk(m.shouldXoff(1, 3), "154,152 < 154,483: no XOFF yet");
  t.equal(m.admit(1, 3, PORTS, 3, PKT), PKT, "the 152nd would make 155,200 > 154,483: headroom");
  t.ok(m.shouldXoff(1, 3), "XOFF as soon as the headroom holds anything");
  // ⌊37,500 / 1048⌋ = 35 packets fit in the headroom; the 36th overflows it while 1048 + 154,152 is over
  // the threshold: dropped.
  const hr = fill(m, 34);
  t.ok(
    hr.every((c) => c === PKT),
    "34 more into the headroom (35 in all)",
  );
  t.equal(m.pgHeadroomUsed(1, 3), 35 * PKT);
  t.equal(m.admit(1, 3, PORTS, 3, PKT), DropReason.HeadroomExhausted, "the 36th: 37,728 > 37,500");
  t.equal(m.egressDepth(PORTS, 3), 186 * PKT, "151 + 35 packets queued");
  t.end();
});

t.test("a departing packet empties the headroom first; XON 38 packets later, not 186", (t) => {
  const m = mmu();
  const charges = fill(m, 186);
  t.equal(m.pgHeadroomUsed(1, 3), 35 * PKT);
  // The first packet in the queue was charged to the reserve, yet its bytes come off the headroom.
  m.release(1, 3, PORTS, 3, PKT, charges[0] as number);
  t.equal(m.pgHeadroomUsed(1, 3), 34 * PKT, "headroom first");
  t.equal(m.sharedUsed, 151 * PKT - 4096, "shared untouched");
  let released = 1;
  while (m.pgHeadroomUsed(1, 3) > 0) {
    t.notOk(m.shouldXon(1, 3), "no XON while the headroom holds anything");
    m.release(1, 3, PORTS, 3, PKT, charges[released++] as number);
  }
  t.equal(released, 35, "35 departures empty it");
  // Then XON when s + 3072 ≤ ⌊(1,390,020 − s)/8⌋, i.e. s ≤ 151,716: three departures from 154,152 B.
  t.notOk(m.shouldXon(1, 3), "154,152 + 3072 > 154,483");
  m.release(1, 3, PORTS, 3, PKT, 0);
  m.release(1, 3, PORTS, 3, PKT, 0);
  t.notOk(m.shouldXon(1, 3), "s = 152,056: 155,128 > ⌊1,237,964 / 8⌋ = 154,745");
  m.release(1, 3, PORTS, 3, PKT, 0);
  t.equal(m.sharedUsed, 151_008);
  t.ok(m.shouldXon(1, 3), "s = 151,008: 154,080 ≤ ⌊1,239,012 / 8⌋ = 154,876");
  // Draining the rest gives everything back, reserve last.
  for (let i = 38; i < 186; i++) m.release(1, 3, PORTS, 3, PKT, 0);
  t.same([m.sharedUsed, m.headroomUsed, m.reserveUsed, m.pgUsed(1, 3)], [0, 0, 0, 0]);
  t.end();
});

t.test("the default accounting on the same packets: XON only once the headroom packets have left", (t) => {
  const m = mmu({ mmu: "default" });
  const charges: (number | DropReason)[] = [];
  while (!m.shouldXoff(1, 3)) charges.push(m.admit(1, 3, PORTS, 3, PKT));
  for (let i = 0; i < 10; i++) charges.push(m.admit(1, 3, PORTS, 3, PKT));
  const inHeadroom = charges.filter((c) => c === PKT).length;
  t.ok(inHeadroom > 0);
  let released = 0;
  while (!m.shouldXon(1, 3)) m.release(1, 3, PORTS, 3, PKT, charges[released++] as number);
  t.equal(released, charges.length, "every packet, the headroom ones last, had to leave first");
  t.end();
});

t.test("an empty pool pauses at the first packet past nothing (0 ≥ 0), as HPCC's CheckShouldPause", (t) => {
  const m = mmu({}, 65);
  t.equal(m.sharedLimit(), 0);
  t.equal(m.admit(1, 3, 65, 3, PKT), 0, "within the reserve");
  t.ok(m.shouldXoff(1, 3), "shared 0 ≥ threshold 0: XOFF");
  t.ok(m.shouldXon(1, 3), "and XON is due at the next departure (shared 0, headroom empty)");
  const d = mmu({ mmu: "default" }, 65);
  d.admit(1, 3, 65, 3, PKT);
  t.notOk(d.shouldXoff(1, 3), "the default needs some shared use");
  t.end();
});

t.test("a static xoff under hpcc-ns3 limits the PG's shared use to xoff − reserve", (t) => {
  const m = new Mmu(
    PORTS + 1,
    buffer,
    { ...pfc, xoff: 20_000 },
    new Array(PORTS + 1).fill(HEADROOM),
    LOSSLESS,
  );
  t.equal(m.sharedLimit(), 20_000 - 4096);
  let n = 0;
  while (m.admit(1, 3, 2, 3, 1000) === 0) n++;
  t.equal(n, 20, "20 × 1000 − 4096 = 15,904 ≤ 15,904; the 21st goes to headroom");
  t.ok(m.shouldXoff(1, 3));
  t.end();
});

t.test("the switch with buffer.mmu hpcc-ns3: auto headroom and pool in its gauges", (t) => {
  const h = new SwitchHarness({ settings: { buffer: { size: 2 * 1024 * 1024, mmu: "hpcc-ns3" } } }).start();
  // The harness: 4 ports of 100 Gb/s with 1 µs links.
  t.equal(h.portCounter(1, "headroom_bytes"), 37_500, "auto headroom: third.cc's 3 × rate × delay");
  t.equal(h.counter("buffer_shared_pool_bytes"), 2_097_152 - 4 * 4096 - 4 * 37_500);
  const d = new SwitchHarness({ settings: { buffer: { size: 2 * 1024 * 1024 } } }).start();
  t.not(d.portCounter(1, "headroom_bytes"), 37_500, "the default sizes it from the round trip and frames");
  // Traffic flows and pauses as usual.
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 400; i++) h.deliver(1, h.udp(1, peerIp(2)));
  h.run(h.now + 1000);
  t.equal(h.portCounter(1, "pg3_xoff"), 1, "the paused egress backs up into XOFF");
  t.end();
});
