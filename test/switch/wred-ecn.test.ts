import t from "tap";
import { internetChecksum } from "../../src/wire/bytes.js";
import { Ecn, ipv4Ecn } from "../../src/wire/ipv4.js";
import { peerIp, SwitchHarness } from "./harness.js";

/** Marks once anything is queued (p = 1 above 1 byte). */
const everything = { kmin: 0, kmax: 1, pmax: 1 };

/** Queues `n` packets of priority 0 behind a PFC pause on port 2, then resumes; returns what left. */
function burst(h: SwitchHarness, n: number, ecn: Ecn): Uint8Array[] {
  h.deliver(2, h.pfcFrame(2, 0, 0xffff));
  for (let i = 0; i < n; i++) h.deliver(1, h.udp(1, peerIp(2), { dscp: 0, ecn }));
  h.run(h.now + 1000);
  h.deliver(2, h.pfcFrame(2, 0, 0));
  h.run(h.now + 100_000);
  return h.data(2).map((s) => s.frame);
}

const marks = (frames: Uint8Array[]): boolean[] => frames.map((f) => ipv4Ecn(f, 14) === Ecn.Ce);

t.test("WRED/ECN marks ECT packets CE at enqueue, with a valid header checksum", (t) => {
  const h = new SwitchHarness({ settings: { ecn: { queues: { "0": everything } } } }).start();
  const out = burst(h, 10, Ecn.Ect0);
  t.same(marks(out), [false, true, true, true, true, true, true, true, true, true], "all but the first");
  t.ok(
    out.every((f) => internetChecksum(f, 14, 20) === 0),
    "checksums valid",
  );
  t.equal(h.queueCounter(2, 0, "ecn_marked"), 9);
  t.ok(h.env.events.some((e) => e.kind === "ecn-mark" && e.port === 2 && e.priority === 0));
  t.end();
});

t.test("WRED drops Not-ECT packets at the switch", (t) => {
  const h = new SwitchHarness({ settings: { ecn: { queues: { "0": everything } } } }).start();
  const out = burst(h, 10, Ecn.NotEct);
  t.equal(out.length, 1, "only the packet that met an empty queue");
  t.equal(h.queueCounter(2, 0, "wred_dropped"), 9);
  t.equal(h.queueCounter(2, 0, "dropped"), 9);
  t.equal(h.counter("drop_wred"), 9);
  t.equal(h.counter("dropped_lossy"), 9);
  t.equal(h.counter("buffer_used_bytes"), 0, "nothing left charged");
  t.end();
});

t.test("Fast ECN decides on the departing packet and the queue behind it", (t) => {
  const h = new SwitchHarness({ settings: { ecn: { fast: true, queues: { "0": everything } } } }).start();
  const out = burst(h, 10, Ecn.Ect0);
  t.same(
    marks(out),
    [true, true, true, true, true, true, true, true, true, false],
    "marked while packets remain behind; the last leaves an empty queue",
  );
  t.equal(h.queueCounter(2, 0, "ecn_marked"), 9);
  const notEct = burst(h, 5, Ecn.NotEct);
  t.equal(notEct.length - out.length, 5, "Fast ECN never drops: the scheduler already chose the packet");
  t.end();
});

t.test("one queue's thresholds are rewritten at run time, as numbers", (t) => {
  const h = new SwitchHarness().start();
  t.same(marks(burst(h, 5, Ecn.Ect0)), [false, false, false, false, false], "default thresholds: 150 KB");
  t.same(h.command({ type: "ecn-thresholds", queue: 0, thresholds: everything }), { ok: true });
  t.same(marks(burst(h, 5, Ecn.Ect0).slice(5)), [false, true, true, true, true], "the new line applies");
  t.same(h.command({ type: "ecn-thresholds", queue: 0, thresholds: null }), { ok: true });
  t.same(marks(burst(h, 5, Ecn.Ect0).slice(10)), [false, false, false, false, false], "and goes away");
  const bad = h.command({ type: "ecn-thresholds", queue: 9, thresholds: everything });
  t.equal(bad.ok, false, "queue 9 refused");
  const inverted = h.command({ type: "ecn-thresholds", queue: 1, thresholds: { kmin: 5, kmax: 1, pmax: 1 } });
  t.equal(inverted.ok, false, "kmin above kmax refused");
  t.end();
});
