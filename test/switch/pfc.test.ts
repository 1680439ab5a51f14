import t from "tap";
import { buildPauseFrame, parsePfcFrame } from "../../src/wire/pfc.js";
import { peerIp, peerMac, SwitchHarness } from "./harness.js";

/** The quanta a PFC frame carries for `priority` (null: not enabled). */
function quanta(frame: Uint8Array, priority: number): number | null {
  const p = parsePfcFrame(frame);
  if (!p.ok || p.value.control.kind !== "pfc") return null;
  const c = p.value.control;
  return (c.enableVector >> priority) & 1 ? c.quanta[priority]! : null;
}

const staticXoff = { pfc: { xoff: 20_000, resumeOffset: 5000 } } as const;

t.test("a received PFC stops that priority's queue until the resume; other priorities go on", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 5; i++) h.deliver(1, h.udp(1, peerIp(2), { dscp: 26 }));
  h.deliver(1, h.udp(1, peerIp(2), { dscp: 0 }));
  h.run(h.now + 10_000);
  t.equal(h.data(2).length, 1, "only the priority-0 packet left");
  const q3 = h.sw.stats(h.now).ports.find((p) => p.port === 2)!.queues![3]!;
  t.ok(q3.paused, "queue 3 shows paused");
  t.equal(q3.counters.packets, 5, "five packets wait");
  t.equal(h.portCounter(2, "rx_prio3_pause"), 1);
  h.deliver(2, h.pfcFrame(2, 3, 0));
  h.run(h.now + 10_000);
  t.equal(h.data(2).length, 6, "resumed: all sent");
  t.equal(h.portCounter(2, "rx_prio3_resume"), 1);
  t.ok(h.portCounter(2, "rx_prio3_pause_duration") >= 10_000, "paused time counted");
  t.same(
    h.env.events.filter((e) => e.kind === "paused-on" || e.kind === "paused-off").map((e) => e.kind),
    ["paused-on", "paused-off"],
  );
  t.end();
});

t.test("a pause runs out by itself after quanta × 512 bit times", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(2, h.pfcFrame(2, 3, 1000)); // 1000 × 512 bits at 100 Gb/s = 5.12 µs
  h.deliver(1, h.udp(1, peerIp(2)));
  h.run(h.now + 5000);
  t.equal(h.data(2).length, 0, "still paused after 5 µs");
  h.run(h.now + 1000);
  t.equal(h.data(2).length, 1, "sent once the pause expired");
  t.end();
});

t.test("a lossless PG over XOFF pauses its upstream, refreshes, and releases it with XON", (t) => {
  const h = new SwitchHarness({ settings: { ...staticXoff, pfc: { ...staticXoff.pfc, pauseQuanta: 2000 } } });
  h.start();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 30; i++) h.deliver(1, h.udp(1, peerIp(2)));
  h.run(h.now + 1000);
  const xoff = h.pfc(1);
  t.equal(xoff.length, 1, "one XOFF towards the sender");
  t.equal(quanta(xoff[0]!.frame, 3), 2000, "carrying the configured pause time");
  t.equal(h.portCounter(1, "pg3_xoff"), 1);
  // Refresh after half of 2000 quanta (10.24 µs): 5.12 µs.
  h.run(h.now + 6000);
  t.equal(h.pfc(1).length, 2, "XOFF refreshed while still congested");
  t.equal(h.portCounter(1, "tx_prio3_pause"), 2);
  h.deliver(2, h.pfcFrame(2, 3, 0));
  h.run(h.now + 20_000);
  const frames = h.pfc(1);
  t.equal(quanta(frames[frames.length - 1]!.frame, 3), 0, "XON once drained");
  t.equal(h.portCounter(1, "pg3_xoff"), 0);
  t.equal(h.portCounter(1, "tx_prio3_resume"), 1);
  t.ok(h.portCounter(1, "tx_prio3_pause_duration") > 0, "time held paused counted");
  t.equal(h.data(2).length, 30, "nothing lost");
  t.end();
});

t.test("switching PFC off at run time releases the upstream at once", (t) => {
  const h = new SwitchHarness({ settings: staticXoff }).start();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 30; i++) h.deliver(1, h.udp(1, peerIp(2)));
  h.run(h.now + 1000);
  t.equal(h.portCounter(1, "pg3_xoff"), 1, "XOFF asserted");
  const reply = h.command({ type: "configure", tunables: { pfc: { ...h.sw.config.pfc, enabled: false } } });
  t.same(reply, { ok: true });
  h.run(h.now + 1000);
  const frames = h.pfc(1);
  t.equal(quanta(frames[frames.length - 1]!.frame, 3), 0, "an XON went out");
  t.equal(h.portCounter(1, "pg3_xoff"), 0);
  t.ok(
    h.env.events.some((e) => e.kind === "pfc-xon" && e.port === 1 && e.priority === 3),
    "pfc-xon event",
  );
  t.end();
});

t.test("802.3x PAUSE and foreign MAC Control are counted, not obeyed", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(2, buildPauseFrame({ src: peerMac(2), quanta: 0xffff }));
  const foreign = h.pfcFrame(2, 3, 0xffff);
  foreign[5] = 0x02; // not 01:80:c2:00:00:01
  h.deliver(2, foreign);
  h.deliver(1, h.udp(1, peerIp(2)));
  h.run(h.now + 1000);
  t.equal(h.counter("rx_link_pause_ignored"), 1);
  t.equal(h.counter("rx_not_for_us"), 1);
  t.equal(h.data(2).length, 1, "still sending");
  t.end();
});
