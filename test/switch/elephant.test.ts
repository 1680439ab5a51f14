// Elephant/mice differentiated scheduling: identification by size and rate, the elephant queue and the
// yellow drop precedence, and PFC still stopping lossless elephants in their new queue.
import t from "tap";
import { peerIp, SwitchHarness } from "./harness.js";

const FRAME_GAP_NS = 100;

/** An elephant detector that fires after 20 KB at >= 10 Gb/s over 10 µs. */
const detect = {
  elephant: { enabled: true, size: 20_000, rate: 10e9, window: 10_000, queue: 1 },
} as const;

/** `n` packets of one flow from port 1 to port 2's peer, `gap` ns apart. */
function flow(h: SwitchHarness, n: number, gap: number, opts: { sport?: number; dscp?: number } = {}): void {
  for (let i = 0; i < n; i++) {
    h.deliver(1, h.udp(1, peerIp(2), { dscp: opts.dscp ?? 0, sport: opts.sport ?? 0xc000 }));
    h.run(h.now + gap);
  }
}

t.test("a fast, large flow becomes an elephant and moves to the elephant queue", (t) => {
  const h = new SwitchHarness({ settings: detect }).start();
  flow(h, 60, FRAME_GAP_NS);
  h.run(h.now + 100_000);
  t.equal(h.counter("elephant_flows_detected"), 1);
  const q0 = h.queueCounter(2, 0, "tx_packets");
  const q1 = h.queueCounter(2, 1, "tx_packets");
  // 1042-byte frames: the 20th reaches 20 KB, the rest are the elephant's.
  t.equal(q0, 19, `mouse packets before detection (${q0})`);
  t.equal(q1, 41, `elephant packets in queue 1 (${q1})`);
  t.equal(h.portCounter(1, "elephant_bytes") + h.portCounter(1, "mice_bytes"), 60 * 1042);
  t.ok(h.env.events.some((e) => e.kind === "info" && e.detail?.startsWith("elephant ")));
  t.end();
});

t.test("a large but slow flow stays a mouse, and so does everything when the feature is off", (t) => {
  const slow = new SwitchHarness({ settings: detect }).start();
  flow(slow, 60, 5_000);
  t.equal(slow.counter("elephant_flows_detected"), 0, "1 KB per 5 µs is under 10 Gb/s");
  t.equal(slow.queueCounter(2, 1, "tx_packets"), 0);
  const off = new SwitchHarness().start();
  flow(off, 60, FRAME_GAP_NS);
  off.run(off.now + 100_000);
  t.equal(off.queueCounter(2, 0, "tx_packets"), 60);
  t.equal(off.counter("elephant_flows_detected"), 0);
  t.end();
});

t.test("yellow elephants meet a lower egress threshold than green mice", (t) => {
  const settings = {
    elephant: { ...detect.elephant, yellowAlpha: 0.25 },
    buffer: { size: 1_000_000 },
  } as const;
  const burst = (h: SwitchHarness, sport: number) => {
    for (let i = 0; i < 600; i++) h.deliver(1, h.udp(1, peerIp(2), { dscp: 0, sport }));
    h.run(h.now + 2_000_000);
  };
  const h = new SwitchHarness({ settings }).start();
  flow(h, 30, FRAME_GAP_NS, { sport: 1 });
  burst(h, 1);
  const yellow = h.queueCounter(2, 1, "yellow_dropped");
  // The same burst as green traffic (no identification) meets the lossy dynamic threshold only.
  const plain = new SwitchHarness({ settings: { buffer: settings.buffer } }).start();
  flow(plain, 30, FRAME_GAP_NS, { sport: 1 });
  burst(plain, 1);
  const mice = plain.queueCounter(2, 0, "dropped");
  t.ok(yellow > 0, `the elephant's burst lost ${yellow} packets at the yellow threshold`);
  t.ok(mice < yellow, `the same burst as green traffic lost fewer (${mice})`);
  t.equal(h.counter("drop_yellow"), yellow);
  t.equal(h.counter("buffer_used_bytes"), 0, "everything released");
  const green = new SwitchHarness({
    settings: { ...settings, elephant: { ...settings.elephant, dropPrecedence: "green" } },
  }).start();
  flow(green, 30, FRAME_GAP_NS, { sport: 1 });
  burst(green, 1);
  t.equal(green.queueCounter(2, 1, "yellow_dropped"), 0, "green elephants are not dropped early");
  t.end();
});

t.test("a PFC pause of a lossless priority also stops its elephants' queue", (t) => {
  const h = new SwitchHarness({ settings: detect }).start();
  flow(h, 30, FRAME_GAP_NS, { dscp: 26 });
  h.run(h.now + 100_000);
  t.equal(h.counter("elephant_flows_detected"), 1, "a priority-3 elephant");
  const before = h.queueCounter(2, 1, "tx_packets");
  t.ok(before > 0, "in queue 1");
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  flow(h, 10, FRAME_GAP_NS, { dscp: 26 });
  h.run(h.now + 10_000);
  t.equal(h.queueCounter(2, 1, "tx_packets"), before, "nothing left while priority 3 is paused");
  h.deliver(2, h.pfcFrame(2, 3, 0));
  h.run(h.now + 10_000);
  t.equal(h.queueCounter(2, 1, "tx_packets"), before + 10, "released with the resume");
  t.end();
});
