// Lossless drops the machine's lateness caused, counted apart (pfc.attributeLateness, the free-clock live
// lab): a frame that finds its PG's headroom full more than the link's PFC reaction time after XOFF, while
// the pause still runs, could not have come from a punctual upstream. Inside the reaction time, after the
// pause ran out, or with the setting off, a headroom drop stays the network's.
import t from "tap";
import { peerIp, SwitchHarness } from "./harness.js";

// XOFF at 20 kB of PG use, 10 kB of headroom, pauses of 2000 quanta (10.24 µs at 100 Gb/s).
const settings = (attributeLateness: boolean) => ({
  pfc: { xoff: 20_000, resumeOffset: 5000, pauseQuanta: 2000, attributeLateness },
  buffer: { headroom: 10_000 },
});

/** A switch whose eth2 is paused by its peer, with eth1's PG 3 driven into XOFF and its headroom full. */
function congested(attributeLateness: boolean): SwitchHarness {
  const h = new SwitchHarness({ settings: settings(attributeLateness) }).start();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  // 20 kB to XOFF, then 10 kB of headroom: 30 packets of ~1 kB fill both, the rest drop at once.
  for (let i = 0; i < 40; i++) h.deliver(1, h.udp(1, peerIp(2)));
  return h;
}

t.test("inside the reaction time a headroom drop is the network's", async (t) => {
  const h = congested(true);
  t.equal(h.portCounter(1, "pg3_xoff"), 1, "XOFF asserted towards eth1's peer");
  t.ok(
    h.counter("dropped_lossless") > 0,
    `drops at the same instant as XOFF (${h.counter("dropped_lossless")})`,
  );
  t.equal(h.counter("dropped_lossless_late"), 0);
  t.equal(h.counter("drop_late_overrun"), 0);
});

t.test("after the reaction time, within the pause, it is the lateness's", async (t) => {
  const h = congested(true);
  const network = h.counter("dropped_lossless");
  // The reaction window: 2 × 1 µs of cable + three 4.2 kB frames and a PFC frame at 100 Gb/s ≈ 3 µs.
  h.env.now += 2_900;
  h.deliver(1, h.udp(1, peerIp(2)));
  t.equal(h.counter("dropped_lossless"), network + 1, "2.9 µs after XOFF: still the network's");
  h.env.now += 400;
  for (let i = 0; i < 3; i++) h.deliver(1, h.udp(1, peerIp(2)));
  t.equal(h.counter("dropped_lossless"), network + 1, "not counted as a network drop");
  t.equal(h.counter("dropped_lossless_late"), 3, "3.3 µs after XOFF: a punctual upstream had stopped");
  t.equal(h.counter("drop_late_overrun"), 3, "under its own reason");
  t.equal(h.counter("drop_headroom_exhausted"), network + 1);
  // The pause (10.24 µs, not refreshed: no timers ran) runs out: the upstream may send again.
  h.env.now += 8_000;
  h.deliver(1, h.udp(1, peerIp(2)));
  t.equal(h.counter("dropped_lossless"), network + 2, "after the pause ran out: the network's again");
  t.equal(h.counter("dropped_lossless_late"), 3);
});

t.test("with the setting off every drop is the network's", async (t) => {
  const h = congested(false);
  const network = h.counter("dropped_lossless");
  h.env.now += 5_000;
  for (let i = 0; i < 3; i++) h.deliver(1, h.udp(1, peerIp(2)));
  t.equal(h.counter("dropped_lossless"), network + 3);
  t.equal(h.counter("dropped_lossless_late"), 0);
});
