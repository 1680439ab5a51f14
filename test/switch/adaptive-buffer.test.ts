// The adaptive buffer: loss puts yellow elephants under WRED from `initial`, persisting loss lowers the
// threshold to the floor, quiet periods raise it back to tail drop; one event per change; mice are never
// dropped by it and neither are lossless elephants.
import t from "tap";
import { peerIp, SwitchHarness } from "./harness.js";

const PERIOD = 10_000;
const settings = {
  buffer: { size: 1_000_000 },
  elephant: { enabled: true, size: 20_000, rate: 10e9, window: 10_000, queue: 1 },
  adaptiveBuffer: { enabled: true, period: PERIOD, initial: 64_000, step: 0.5, floor: 16_000 },
} as const;

/** `n` packets of one flow from port 1 to port 2's peer at once (an instant burst). */
function burst(h: SwitchHarness, n: number, sport: number, dscp = 0): void {
  for (let i = 0; i < n; i++) h.deliver(1, h.udp(1, peerIp(2), { dscp, sport }));
}

/** `n` one-packet mice at once: more than the lossy queue may hold, so some are lost. */
function mice(h: SwitchHarness, n: number): void {
  for (let i = 0; i < n; i++) h.deliver(1, h.udp(1, peerIp(2), { dscp: 0, sport: 20_000 + i }));
}

const threshold = (h: SwitchHarness) => h.counter("adaptive_buffer_threshold_bytes");

t.test("loss lowers the elephants' threshold period by period; quiet raises it back to tail drop", (t) => {
  const h = new SwitchHarness({ settings }).start();
  t.equal(threshold(h), 0, "tail drop to begin with");
  const seen: number[] = [];
  // Three periods with loss: an instant burst overflows the queue each time.
  for (let i = 0; i < 3; i++) {
    mice(h, 700);
    h.run(h.now + PERIOD);
    seen.push(threshold(h));
  }
  t.same(seen, [64_000, 32_000, 16_000], "initial, then halved each lossy period");
  mice(h, 700);
  h.run(h.now + PERIOD);
  t.equal(threshold(h), 16_000, "not below the floor");
  const rising: number[] = [];
  for (let i = 0; i < 4; i++) {
    h.run(h.now + PERIOD);
    rising.push(threshold(h));
  }
  t.same(rising.slice(0, 3), [32_000, 64_000, 0], "doubled per quiet period, then tail drop again");
  const events = h.env.events.filter((e) => e.kind === "info" && e.detail?.startsWith("adaptive buffer"));
  t.same(
    events.map((e) => e.value),
    [64_000, 32_000, 16_000, 32_000, 64_000, 0],
    "one event per change",
  );
  t.equal(h.counter("adaptive_buffer_changes"), 6);
  t.end();
});

t.test("under WRED, an elephant's queue stays within twice the threshold", (t) => {
  // A yellow threshold out of the way, so that only the adaptive WRED acts.
  const h = new SwitchHarness({
    settings: { ...settings, elephant: { ...settings.elephant, yellowAlpha: 8 } },
  }).start();
  burst(h, 30, 1); // identified
  mice(h, 700);
  h.run(h.now + PERIOD);
  t.equal(threshold(h), 64_000);
  // The elephant (identified in the first burst) bursts again: WRED from 64 KB, all dropped above 128 KB.
  burst(h, 300, 1);
  const dropped = h.queueCounter(2, 1, "adaptive_buffer_dropped");
  t.ok(dropped > 0, `WRED dropped ${dropped} elephant packets`);
  const depth = 300 - dropped;
  t.ok(
    depth * 1042 <= 128_000 + 1042,
    `the elephant queue held at most 2 × the threshold (${depth} packets)`,
  );
  t.equal(h.counter("drop_adaptive_wred"), dropped);
  t.equal(h.queueCounter(2, 0, "adaptive_buffer_dropped"), 0, "mice are never under its WRED");
  t.end();
});

t.test("lossless elephants are never dropped by it", (t) => {
  // (The harness's peers do not obey PFC: what the PG cannot hold is lost to headroom, not to WRED.)
  const h = new SwitchHarness({ settings }).start();
  mice(h, 700); // lossy loss: WRED on
  h.run(h.now + PERIOD);
  t.equal(threshold(h), 64_000);
  for (let i = 0; i < 30; i++) {
    burst(h, 1, 7, 26);
    h.run(h.now + 100);
  }
  burst(h, 200, 7, 26);
  h.run(h.now + 1_000_000);
  t.equal(h.counter("elephant_flows_detected"), 1, "a priority-3 elephant");
  t.ok(h.queueCounter(2, 1, "tx_packets") > 64, "its queue went past the threshold");
  t.equal(h.counter("drop_adaptive_wred"), 0, "and WRED left it alone");
  t.equal(h.counter("drop_yellow"), 0);
  t.end();
});

t.test(
  "loss is accounted per egress port and queue: one port's loss leaves another's elephants alone",
  (t) => {
    const h = new SwitchHarness({ settings }).start();
    // Loss at port 3 only: an instant burst of mice towards port 3's peer.
    for (let i = 0; i < 700; i++) h.deliver(1, h.udp(1, peerIp(3), { dscp: 0, sport: 20_000 + i }));
    h.run(h.now + PERIOD);
    const lost = h.queueCounter(3, 0, "adaptive_buffer_loss");
    t.ok(lost > 0, `port 3 queue 0 lost ${lost}`);
    t.equal(lost, h.queueCounter(3, 0, "dropped"), "all of its drops count");
    t.equal(h.portCounter(3, "adaptive_buffer_port_threshold_bytes"), 64_000, "port 3 under WRED");
    t.equal(h.portCounter(2, "adaptive_buffer_port_threshold_bytes"), 0, "port 2 still tail drop");
    t.equal(h.queueCounter(2, 0, "adaptive_buffer_loss"), 0);
    t.equal(threshold(h), 64_000, "the switch-wide gauge is the lowest threshold in force");
    const ev = h.env.events.find((e) => e.kind === "info" && e.detail?.startsWith("adaptive buffer"));
    t.equal(ev?.port, 3, "the event names the port");
    // An elephant bursting towards port 2 meets no adaptive WRED there.
    const h2 = new SwitchHarness({
      settings: { ...settings, elephant: { ...settings.elephant, yellowAlpha: 8 } },
    }).start();
    burst(h2, 30, 1);
    for (let i = 0; i < 700; i++) h2.deliver(1, h2.udp(1, peerIp(3), { dscp: 0, sport: 20_000 + i }));
    h2.run(h2.now + PERIOD);
    burst(h2, 300, 1);
    t.equal(h2.counter("drop_adaptive_wred"), 0, "port 2's elephants were not squeezed by port 3's loss");
    t.end();
  },
);

t.test("its own WRED drops are not loss: a quiet port goes back to tail drop", (t) => {
  const h = new SwitchHarness({
    settings: { ...settings, elephant: { ...settings.elephant, yellowAlpha: 8 } },
  }).start();
  burst(h, 30, 1);
  mice(h, 700);
  h.run(h.now + PERIOD);
  burst(h, 300, 1);
  const own = h.queueCounter(2, 1, "adaptive_buffer_dropped");
  t.ok(own > 0, `WRED dropped ${own}`);
  t.equal(h.queueCounter(2, 1, "adaptive_buffer_loss"), 0, "not counted as loss");
  h.run(h.now + PERIOD);
  t.equal(
    h.portCounter(2, "adaptive_buffer_port_threshold_bytes"),
    0,
    "a period with only its own drops is quiet: 64 KB / 0.5 passes `initial`, tail drop again",
  );
  t.end();
});
