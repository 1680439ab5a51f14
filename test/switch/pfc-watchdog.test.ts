// The PFC watchdog on a switch alone, its peers played by the harness. The assertions follow sonic-mgmt's
// pfcwd tests (tests/pfcwd/test_pfcwd_function.py, test_pfcwd_timer_accuracy.py): a storm is detected no
// sooner than detection time and within detection time + polling interval, the drop action discards the
// stormed queue's traffic and the forward action sends it, other ports and priorities keep flowing, PFC
// is restored once the storm ends, and counters tell each step.
import t from "tap";
import type { PfcWatchdogConfig } from "../../src/switch/features/pfc-watchdog.js";
import { peerIp, SwitchHarness } from "./harness.js";

const POLL = 100_000;
const DETECT = 1_000_000;
const RESTORE = 500_000;

function harness(wd: Partial<PfcWatchdogConfig> = {}): SwitchHarness {
  return new SwitchHarness({
    settings: {
      pfcWatchdog: {
        enabled: true,
        detectionTime: DETECT,
        restorationTime: RESTORE,
        pollInterval: POLL,
        action: "drop",
        ...wd,
      },
    },
  }).start();
}

/** The peer on `port` keeps `priority` paused (a full-length XOFF every 100 µs) until `until`. */
function storm(h: SwitchHarness, port: number, priority: number, until: number): void {
  while (h.now < until) {
    h.deliver(port, h.pfcFrame(port, priority, 0xffff));
    h.run(Math.min(until, h.now + 100_000));
  }
}

/** Sends `n` lossless packets from port 1 to the peer of `to`. */
function send(h: SwitchHarness, to: number, n: number, dscp = 26): void {
  for (let i = 0; i < n; i++) h.deliver(1, h.udp(1, peerIp(to), { dscp }));
}

function stormEvents(h: SwitchHarness) {
  return h.env.events.filter((e) => e.kind === "pfc-storm" || e.kind === "pfc-storm-restored");
}

t.test("a storm is detected within detection time + poll interval; forward sends the stuck queue", (t) => {
  const h = harness({ action: "forward" });
  const start = h.now;
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  send(h, 2, 10);
  let detectedAt = -1;
  while (h.now < start + 3 * DETECT && detectedAt < 0) {
    storm(h, 2, 3, h.now + 10_000);
    if (h.portCounter(2, "pfcwd_prio3_storm_detected") > 0) detectedAt = h.now;
  }
  const latency = detectedAt - start;
  t.ok(latency >= DETECT && latency <= DETECT + POLL + 10_000, `detected after ${latency} ns`);
  t.equal(h.portCounter(2, "pfcwd_prio3_state"), 1, "stormed");
  storm(h, 2, 3, h.now + 200_000);
  t.equal(h.data(2).length, 10, "the stuck packets were forwarded despite the pauses");
  t.equal(h.portCounter(2, "pfcwd_prio3_tx_ok"), 10, "and counted as sent while stormed");
  t.ok(h.portCounter(2, "rx_prio3_pause") > 10, "pauses kept arriving and were counted");
  t.same(stormEvents(h)[0], { kind: "pfc-storm", port: 2, priority: 3, detail: "forward" });
  t.equal(h.portCounter(3, "pfcwd_prio3_storm_detected"), 0, "no other port stormed");
  t.end();
});

t.test("drop: the stormed queue and its priority's arrivals are discarded; the rest flows", (t) => {
  const h = harness({ action: "drop" });
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  send(h, 2, 10);
  storm(h, 2, 3, h.now + DETECT + 2 * POLL);
  t.equal(h.portCounter(2, "pfcwd_prio3_state"), 1, "stormed");
  t.equal(h.data(2).length, 0, "nothing of the stuck queue was sent");
  t.equal(h.portCounter(2, "pfcwd_prio3_tx_drop"), 10, "the ten queued packets were dropped");
  send(h, 2, 5);
  t.equal(h.portCounter(2, "pfcwd_prio3_tx_drop"), 15, "and so is what comes after");
  h.deliver(2, h.udp(2, peerIp(3)));
  t.equal(h.portCounter(2, "pfcwd_prio3_rx_drop"), 1, "what the stormed priority brings in is dropped");
  t.equal(h.counter("drop_pfc_watchdog"), 16, "every drop under the watchdog's reason");
  // Containment: another priority on the same port, and the same priority on another port, go on.
  send(h, 2, 3, 0);
  send(h, 3, 4);
  storm(h, 2, 3, h.now + 50_000);
  t.equal(h.data(2).length, 3, "priority 0 on the stormed port flows");
  t.equal(h.data(3).length, 4, "priority 3 on another port flows");
  t.end();
});

t.test("restoration: once the pauses stop for the restoration time, PFC and detection come back", (t) => {
  const h = harness();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  send(h, 2, 2);
  storm(h, 2, 3, h.now + DETECT + 2 * POLL);
  t.equal(h.portCounter(2, "pfcwd_prio3_state"), 1, "stormed");
  h.run(h.now + RESTORE - POLL);
  t.equal(h.portCounter(2, "pfcwd_prio3_state"), 1, "not restored before the restoration time");
  h.run(h.now + 3 * POLL);
  t.equal(h.portCounter(2, "pfcwd_prio3_state"), 0, "restored");
  t.equal(h.portCounter(2, "pfcwd_prio3_storm_restored"), 1);
  t.same(
    stormEvents(h).map((e) => e.kind),
    ["pfc-storm", "pfc-storm-restored"],
  );
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  send(h, 2, 1);
  h.run(h.now + 10_000);
  t.equal(h.data(2).length, 0, "a pause is obeyed again");
  t.end();
});

t.test("the trigger limit latches PFC off until pfc-enable", (t) => {
  const h = harness({ triggerLimit: 2, triggerWindow: 100_000_000 });
  for (let round = 0; round < 2; round++) {
    h.deliver(2, h.pfcFrame(2, 3, 0xffff));
    send(h, 2, 2);
    storm(h, 2, 3, h.now + DETECT + 2 * POLL);
    h.run(h.now + RESTORE + 2 * POLL);
  }
  t.equal(h.portCounter(2, "pfcwd_prio3_storm_detected"), 2);
  t.equal(h.portCounter(2, "pfcwd_prio3_storm_restored"), 1, "the first storm was restored");
  t.equal(h.portCounter(2, "pfcwd_prio3_state"), 2, "the second latched, pauses long gone");
  t.match(stormEvents(h).at(-1), { kind: "pfc-storm", detail: "drop, latched" });
  t.same(h.command({ type: "pfc-enable", port: 2, priority: 3 }), { ok: true });
  t.equal(h.portCounter(2, "pfcwd_prio3_state"), 0, "the operator re-enabled PFC");
  t.same(h.command({ type: "pfc-enable", port: 9, priority: 3 }), { ok: false, error: "no port eth9" });
  t.end();
});

t.test("no storm: an empty paused queue, a queue that keeps sending, or the watchdog switched off", (t) => {
  const empty = harness();
  storm(empty, 2, 3, empty.now + 3 * DETECT);
  t.equal(empty.portCounter(2, "pfcwd_prio3_storm_detected"), 0, "paused but nothing waits");

  // Short pauses let the queue send between them: paused often, never for a whole poll interval.
  const moving = harness();
  for (let i = 0; i < 200; i++) {
    send(moving, 2, 2);
    moving.deliver(2, moving.pfcFrame(2, 3, 2000)); // 10.24 µs of pause, then 9.76 µs free
    moving.run(moving.now + 20_000);
  }
  t.equal(moving.portCounter(2, "pfcwd_prio3_storm_detected"), 0, "paused on and off, still sending");
  t.ok(moving.data(2).length > 350, `the queue kept moving (${moving.data(2).length} sent)`);

  // Really off (enabled: false), and stormed for a second: five times SONiC's 200 ms detection time plus
  // its 200 ms poll interval, so a watchdog left on would have fired several times over.
  const off = new SwitchHarness({ settings: { pfcWatchdog: { enabled: false } } }).start();
  off.deliver(2, off.pfcFrame(2, 3, 0xffff));
  send(off, 2, 5);
  storm(off, 2, 3, off.now + 1_000_000_000);
  t.equal(off.portCounter(2, "pfcwd_prio3_storm_detected"), 0, "off: the storm holds for good");
  t.equal(off.data(2).length, 0);
  t.end();
});

t.test("on by default, with SONiC's defaults: a storm is detected within 200 ms + one 200 ms poll", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  send(h, 2, 5);
  storm(h, 2, 3, h.now + 150_000_000);
  t.equal(h.portCounter(2, "pfcwd_prio3_storm_detected"), 0, "not before the 200 ms detection time");
  storm(h, 2, 3, h.now + 300_000_000);
  t.equal(h.portCounter(2, "pfcwd_prio3_storm_detected"), 1, "detected by 450 ms, with no setting given");
  t.end();
});
