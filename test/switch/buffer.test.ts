import t from "tap";
import { parsePfcFrame } from "../../src/wire/pfc.js";
import { peerIp, SwitchHarness } from "./harness.js";

t.test("a link going down flushes its queues, gives the buffer back and releases the upstream", (t) => {
  const h = new SwitchHarness({ settings: { pfc: { xoff: 20_000, resumeOffset: 5000 } } }).start();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 30; i++) h.deliver(1, h.udp(1, peerIp(2)));
  h.deliver(1, h.udp(1, peerIp(2), { dscp: 0 }));
  h.run(h.now + 1000);
  t.ok(h.counter("buffer_used_bytes") > 20_000, "the paused queue holds the packets");
  t.equal(h.portCounter(1, "pg3_xoff"), 1, "and pauses the sender");
  const queued = h.queueCounter(2, 3, "packets");
  h.sw.setLinkState(2, false, h.now);
  t.equal(h.counter("buffer_used_bytes"), 0, "every byte released");
  t.equal(h.counter("buffer_shared_used_bytes"), 0);
  t.equal(h.counter("buffer_headroom_used_bytes"), 0);
  t.equal(h.portCounter(1, "pg3_bytes"), 0, "ingress PG accounting back to zero");
  t.equal(h.counter("drop_link_down"), queued, "each flushed packet counted");
  t.equal(h.counter("dropped_lossless"), queued, "as lossless drops");
  t.equal(h.queueCounter(2, 3, "packets"), 0);
  h.run(h.now + 1000);
  const last = h.pfc(1).at(-1)!;
  const parsed = parsePfcFrame(last.frame);
  t.ok(
    parsed.ok && parsed.value.control.kind === "pfc" && parsed.value.control.quanta[3] === 0,
    "XON upstream",
  );
  t.equal(h.portCounter(1, "pg3_xoff"), 0);
  t.equal(h.sw.stats(h.now).ports.find((p) => p.port === 2)!.up, false);
  // Traffic for the dead port now has no route.
  h.deliver(1, h.udp(1, peerIp(2)));
  t.equal(h.counter("drop_no_route"), 1);
  t.end();
});

t.test("clear-counters zeroes counters and keeps levels and high-water marks", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 5; i++) h.deliver(1, h.udp(1, peerIp(2)));
  h.deliver(1, h.udp(1, 0x0b000001)); // no route
  h.run(h.now + 1000);
  h.deliver(2, h.pfcFrame(2, 3, 0));
  h.run(h.now + 10_000);
  const before = {
    watermark: h.queueCounter(2, 3, "watermark_bytes"),
    pool: h.counter("buffer_shared_pool_bytes"),
    peak: h.counter("buffer_shared_peak_bytes"),
  };
  t.ok(h.portCounter(1, "rx_packets") >= 6 && h.queueCounter(2, 3, "tx_packets") === 5);
  t.equal(h.counter("drop_no_route"), 1);
  t.ok(before.watermark > 0 && before.peak > 0);
  t.same(h.command({ type: "clear-counters" }), { ok: true });
  for (const [name, value] of [
    ["rx_packets", h.portCounter(1, "rx_packets")],
    ["tx_packets", h.portCounter(2, "tx_packets")],
    ["tx_bytes", h.portCounter(2, "tx_bytes")],
    ["rx_prio3_pause", h.portCounter(2, "rx_prio3_pause")],
    ["rx_prio3_pause_duration", h.portCounter(2, "rx_prio3_pause_duration")],
    ["queue tx_packets", h.queueCounter(2, 3, "tx_packets")],
    ["drop_no_route", h.counter("drop_no_route")],
    ["dropped_lossless", h.counter("dropped_lossless")],
    ["arp_received", h.counter("arp_received")],
  ] as const) {
    t.equal(value, 0, `${name} cleared`);
  }
  t.equal(h.queueCounter(2, 3, "watermark_bytes"), before.watermark, "watermark kept");
  t.equal(h.counter("buffer_shared_pool_bytes"), before.pool, "pool size kept");
  t.equal(h.counter("buffer_shared_peak_bytes"), before.peak, "peak kept");
  t.end();
});
