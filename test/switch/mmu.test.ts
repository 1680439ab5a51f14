import t from "tap";
import { DropReason } from "../../src/switch/drops.js";
import { autoHeadroomBytes, Mmu, type MmuBuffer, type MmuPfc } from "../../src/switch/mmu.js";

const buffer: MmuBuffer = { size: 1_000_000, reserve: 4096, lossyAlpha: 1, mmu: "default" };
const pfcDynamic: MmuPfc = { enabled: true, xoff: "dynamic", alpha: 1 / 8, resumeOffset: 3072 };
const PORTS = 4; // ports 0..3, lossless priority 3
const LOSSLESS = 1 << 3;

function mmu(pfc = pfcDynamic) {
  return new Mmu(PORTS, buffer, pfc, [50_000, 50_000, 50_000, 50_000], LOSSLESS);
}

t.test("pool sizes: total minus every reserve and every lossless headroom", (t) => {
  const m = mmu();
  t.equal(m.sharedPoolBytes, 1_000_000 - PORTS * 8 * 4096 - PORTS * 50_000);
  t.end();
});

t.test(
  "lossless PG: reserve, then shared up to the dynamic threshold, XOFF, then headroom, then drop",
  (t) => {
    const m = mmu();
    const pkt = 1000;
    let admitted = 0;
    // Reserve first: no XOFF while within 4096 bytes.
    for (let i = 0; i < 4; i++) t.equal(m.admit(1, 3, 2, 3, pkt), 0);
    admitted += 4;
    t.notOk(m.shouldXoff(1, 3), "within the reserve");
    // Fill shared until the threshold α·(free shared) is crossed: shared S with S = (pool − S)/8 → S = pool/9.
    // The packet that would cross it is the first to land in headroom, and XOFF follows.
    const pool = m.sharedPoolBytes;
    let headroom = 0;
    for (;;) {
      const r = m.admit(1, 3, 2, 3, pkt);
      if (r !== 0) {
        t.equal(r, pkt, "the crossing packet is charged to headroom");
        headroom += pkt;
        break;
      }
      t.notOk(m.shouldXoff(1, 3), "no XOFF while under the threshold");
      if (++admitted > 10_000) break;
    }
    t.ok(m.shouldXoff(1, 3), "XOFF once headroom is in use");
    const shared = m.sharedUsed;
    t.ok(
      Math.abs(shared - pool / 9) <= pkt,
      `XOFF at ${shared} bytes of shared use, DT predicts ${Math.round(pool / 9)}`,
    );
    // Above the threshold everything goes to headroom until the headroom is full.
    for (;;) {
      const r = m.admit(1, 3, 2, 3, pkt);
      if (r === DropReason.HeadroomExhausted) break;
      t.equal(r, pkt, "charged to headroom");
      headroom += pkt;
    }
    t.equal(headroom, 50_000, "exactly the configured headroom was absorbed");
    t.equal(m.headroomUsed, 50_000);
    t.equal(m.egressDepth(2, 3), m.reserveUsed + shared + 50_000, "egress queue holds it all");
    t.end();
  },
);

t.test("XON only when headroom is empty and use is resumeOffset under the threshold", (t) => {
  const m = mmu();
  const charges: number[] = [];
  while (!m.shouldXoff(1, 3)) charges.push(m.admit(1, 3, 2, 3, 1000) as number);
  for (let i = 0; i < 5; i++) charges.push(m.admit(1, 3, 2, 3, 1000) as number);
  t.ok(m.headroomUsed > 0);
  t.notOk(m.shouldXon(1, 3), "headroom still occupied");
  // Drain in FIFO order (the headroom packets arrived last, so they leave last).
  let released = 0;
  while (!m.shouldXon(1, 3)) {
    m.release(1, 3, 2, 3, 1000, charges[released]!);
    released++;
  }
  t.equal(m.headroomUsed, 0, "XON waited for the headroom to empty");
  t.end();
});

t.test("dynamic XON comes resumeOffset under α × (free shared buffer)", (t) => {
  const m = mmu();
  // Fill the PG up to the threshold: the packet that would cross it lands in headroom; give it back.
  for (;;) {
    const r = m.admit(1, 3, 2, 3, 1000);
    if (r !== 0) {
      m.release(1, 3, 2, 3, 1000, r as number);
      break;
    }
  }
  t.equal(m.headroomUsed, 0, "headroom empty, shared use just under the threshold");
  // How far the PG's shared use is under the dynamic threshold.
  const margin = () =>
    (1 / 8) * (m.sharedPoolBytes - m.sharedUsed) - Math.max(0, m.pgUsed(1, 3) - buffer.reserve);
  t.ok(margin() < 3072, `margin ${margin().toFixed(0)} B is less than the resume offset`);
  t.notOk(m.shouldXon(1, 3), "so no XON yet");
  let before = margin();
  let n = 0;
  while (!m.shouldXon(1, 3)) {
    before = margin();
    m.release(1, 3, 2, 3, 1000, 0);
    n++;
  }
  t.ok(n >= 2, `XON after ${n} packets left`);
  t.ok(
    before < 3072 && margin() >= 3072,
    `margin crossed 3072 B: ${before.toFixed(0)} -> ${margin().toFixed(0)}`,
  );
  t.end();
});

t.test("static XOFF counts the PG's whole use", (t) => {
  const m = mmu({ ...pfcDynamic, xoff: 20_000, resumeOffset: 5000 });
  let n = 0;
  while (!m.shouldXoff(1, 3)) {
    m.admit(1, 3, 2, 3, 1000);
    n++;
  }
  t.equal(n, 20, "XOFF at 20,000 bytes");
  t.equal(m.admit(1, 3, 2, 3, 1000), 1000, "the next packet goes to headroom");
  m.release(1, 3, 2, 3, 1000, 1000);
  t.notOk(m.shouldXon(1, 3), "20,000 used is not 5,000 below XOFF");
  for (let i = 0; i < 5; i++) m.release(1, 3, 2, 3, 1000, 0);
  t.ok(m.shouldXon(1, 3), "XON at 15,000");
  t.end();
});

t.test(
  "lossy queues are bounded at egress by the dynamic threshold; PFC off makes a lossless PG lossy",
  (t) => {
    const m = mmu({ ...pfcDynamic, enabled: false });
    let accepted = 0;
    let reason: unknown = 0;
    for (let i = 0; i < 10_000; i++) {
      reason = m.admit(1, 3, 2, 3, 1000);
      if (typeof reason === "string") break;
      accepted++;
    }
    t.equal(reason, DropReason.EgressLimit);
    // q = α(pool − q) + reserve with α = 1: about half the pool.
    t.ok(
      Math.abs(accepted * 1000 - m.sharedPoolBytes / 2) < 10_000,
      `lossy queue stopped at ${accepted * 1000} bytes`,
    );
    t.end();
  },
);

t.test("automatic headroom covers a round trip, three frames, the PFC frame and slack", (t) => {
  // 100 Gb/s, 1 µs: round trip 25,000 bytes; frames of 4170 bytes (+24 wire overhead) ×3; PFC 84.
  t.equal(autoHeadroomBytes(100e9, 1000, 4170), 25_000 + 3 * 4194 + 84);
  t.equal(autoHeadroomBytes(100e9, 1000, 4170, 1000), 25_000 + 3 * 4194 + 84 + 12_500);
  t.end();
});
