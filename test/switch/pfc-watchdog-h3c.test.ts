// The PFC watchdog with `semantics: h3c` (H3C's PFC deadlock detection, docs/pfc-watchdog.md) on a switch
// alone, its peers played by the harness, beside the same situations under `semantics: sonic`: what H3C's
// configuration guide describes — a priority in XOFF for the whole detection interval deadlocks the
// interface; PFC and detection are off on the interface for the auto-recovery delay, then back whether or
// not the pauses go on; the trigger limit latches them off until the operator restores them.
import t from "tap";
import type { PfcWatchdogConfig } from "../../src/switch/features/pfc-watchdog.js";
import { peerIp, SwitchHarness } from "./harness.js";

const POLL = 100_000;
const INTERVAL = 1_000_000;
const DELAY = 500_000;

function h3c(wd: Partial<PfcWatchdogConfig> = {}, lossless = [3]): SwitchHarness {
  return new SwitchHarness({
    settings: {
      qos: { lossless, dscpToPriority: { "34": 4 } },
      pfcWatchdog: {
        enabled: true,
        semantics: "h3c",
        interval: INTERVAL,
        autoRecoverDelay: DELAY,
        pollInterval: POLL,
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

function send(h: SwitchHarness, to: number, n: number, dscp = 26): void {
  for (let i = 0; i < n; i++) h.deliver(1, h.udp(1, peerIp(to), { dscp }));
}

const c = (h: SwitchHarness, port: number, name: string, prio = 3) =>
  h.portCounter(port, `pfcwd_prio${prio}_${name}`);

function events(h: SwitchHarness) {
  return h.env.events
    .filter((e) => e.kind === "pfc-storm" || e.kind === "pfc-storm-restored")
    .map((e) => ({ ...e, at: h.env.now }));
}

t.test("detection: XOFF for the interval deadlocks, empty queue or not; sonic needs a stuck queue", (t) => {
  const h = h3c();
  const start = h.now;
  let at = -1;
  while (h.now < start + 3 * INTERVAL && at < 0) {
    storm(h, 2, 3, h.now + 10_000);
    if (c(h, 2, "storm_detected") > 0) at = h.now;
  }
  const latency = at - start;
  t.ok(latency >= INTERVAL && latency <= INTERVAL + POLL + 10_000, `deadlock after ${latency} ns`);
  t.equal(c(h, 2, "state"), 1, "recovering");
  t.match(events(h)[0], { kind: "pfc-storm", port: 2, priority: 3, detail: "deadlock, forward" });

  const sonic = new SwitchHarness({
    settings: {
      pfcWatchdog: { enabled: true, detectionTime: INTERVAL, restorationTime: DELAY, pollInterval: POLL },
    },
  }).start();
  storm(sonic, 2, 3, sonic.now + 3 * INTERVAL);
  t.equal(c(sonic, 2, "storm_detected"), 0, "sonic: paused but nothing waits, no storm");

  // Pauses that leave gaps: never in XOFF for a whole interval.
  const gaps = h3c();
  for (let i = 0; i < 200; i++) {
    gaps.deliver(2, gaps.pfcFrame(2, 3, 2000)); // 10.24 µs of pause, then 9.76 µs free
    gaps.run(gaps.now + 20_000);
  }
  t.equal(c(gaps, 2, "storm_detected"), 0, "paused on and off: no deadlock");
  t.end();
});

t.test("recovery: the whole interface's PFC is off; forward sends the stuck queue, drop discards it", (t) => {
  const h = h3c({}, [3, 4]);
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  h.deliver(2, h.pfcFrame(2, 4, 0xffff));
  send(h, 2, 10);
  // Priority 3 storms for good; priority 4 was paused once, and its queue holds packets.
  send(h, 2, 4, 34);
  storm(h, 2, 3, h.now + INTERVAL + 2 * POLL);
  t.equal(c(h, 2, "state"), 1, "deadlocked on priority 3");
  t.equal(c(h, 2, "state", 4), 0, "priority 4 is not the one declared");
  h.deliver(2, h.pfcFrame(2, 4, 0xffff));
  storm(h, 2, 3, h.now + 50_000);
  t.equal(h.data(2).length, 14, "both queues sent despite the pauses: PFC is off on the interface");
  t.equal(c(h, 2, "tx_ok"), 10, "the deadlocked queue's packets counted as forwarded");
  t.ok(c(h, 2, "storm_detected", 4) === 0, "and detection is off on the interface: no second declaration");

  const drop = h3c({ autoRecoverAction: "drop" });
  drop.deliver(2, drop.pfcFrame(2, 3, 0xffff));
  send(drop, 2, 10);
  storm(drop, 2, 3, drop.now + INTERVAL + 2 * POLL);
  t.equal(c(drop, 2, "tx_drop"), 10, "drop: the queued packets are discarded");
  t.equal(drop.data(2).length, 0);
  t.match(events(drop)[0], { detail: "deadlock, drop" });
  t.end();
});

t.test("auto recovery: PFC and detection come back after the delay, pauses or not", (t) => {
  const h = h3c();
  const start = h.now;
  storm(h, 2, 3, start + INTERVAL + 2 * POLL);
  t.equal(c(h, 2, "storm_detected"), 1);
  const detectedAt = h.now;
  // The storm goes on through the recovery: sonic would stay stormed; h3c restores after the delay.
  storm(h, 2, 3, detectedAt + DELAY - 2 * POLL);
  t.equal(c(h, 2, "state"), 1, "not before the delay");
  storm(h, 2, 3, detectedAt + DELAY + POLL);
  t.equal(c(h, 2, "state"), 0, "restored although pauses kept arriving");
  t.equal(c(h, 2, "storm_restored"), 1);
  send(h, 2, 1);
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  h.run(h.now + 10_000);
  t.equal(h.data(2).length, 0, "a pause is obeyed again");
  // … and detection runs again: the storm that goes on is a second deadlock one interval later.
  storm(h, 2, 3, h.now + INTERVAL + 2 * POLL);
  t.equal(c(h, 2, "storm_detected"), 2, "detected again");

  const sonic = new SwitchHarness({
    settings: {
      pfcWatchdog: { enabled: true, detectionTime: INTERVAL, restorationTime: DELAY, pollInterval: POLL },
    },
  }).start();
  sonic.deliver(2, sonic.pfcFrame(2, 3, 0xffff));
  send(sonic, 2, 2);
  storm(sonic, 2, 3, sonic.now + 20 * INTERVAL);
  t.equal(c(sonic, 2, "storm_detected"), 1, "sonic: one storm, held while the pauses go on");
  t.equal(c(sonic, 2, "storm_restored"), 0);
  t.end();
});

t.test(
  "the issue's probe: a continuous 20 ms storm with triggerLimit 2 latches under h3c, not sonic",
  (t) => {
    const probe = { triggerLimit: 2, triggerWindow: 1_000_000_000, pollInterval: 100_000 };
    const h = h3c({ ...probe, interval: 400_000, autoRecoverDelay: 400_000 });
    send(h, 2, 5);
    storm(h, 2, 3, h.now + 20_000_000);
    t.equal(c(h, 2, "storm_detected"), 2, "two deadlocks: the second reaches the limit");
    t.equal(c(h, 2, "storm_restored"), 1, "the first one recovered automatically");
    t.equal(c(h, 2, "state"), 2, "latched");
    t.equal(c(h, 2, "latched"), 1);
    t.match(events(h).at(-1), { kind: "pfc-storm", detail: "deadlock, forward, latched" });

    const sonic = new SwitchHarness({
      settings: {
        pfcWatchdog: {
          enabled: true,
          ...probe,
          detectionTime: 400_000,
          restorationTime: 400_000,
          action: "drop",
        },
      },
    }).start();
    sonic.deliver(2, sonic.pfcFrame(2, 3, 0xffff));
    send(sonic, 2, 5);
    storm(sonic, 2, 3, sonic.now + 20_000_000);
    t.equal(c(sonic, 2, "storm_detected"), 1, "sonic: detected once and never restored while it storms");
    t.equal(c(sonic, 2, "state"), 1, "stormed, not latched");

    // Latched: the storm stops, PFC stays off until the operator restores it (any priority of the port).
    h.run(h.now + 10 * INTERVAL);
    t.equal(c(h, 2, "state"), 2, "still latched long after the storm");
    t.same(h.command({ type: "pfc-enable", port: 2, priority: 0 }), { ok: true });
    t.equal(c(h, 2, "state"), 0, "restored by the operator");
    t.equal(c(h, 2, "storm_restored"), 2);
    // The count starts over: one more deadlock recovers automatically again.
    storm(h, 2, 3, h.now + 400_000 + 2 * POLL);
    t.equal(c(h, 2, "state"), 1, "the next deadlock recovers on its own again");
    t.same(h.command({ type: "pfc-enable", port: 9, priority: 3 }), { ok: false, error: "no port eth9" });
    t.end();
  },
);

t.test("recoverMode manual: the first deadlock holds PFC off until the operator", (t) => {
  const h = h3c({ recoverMode: "manual" });
  storm(h, 2, 3, h.now + INTERVAL + 2 * POLL);
  t.equal(c(h, 2, "state"), 2, "held");
  t.match(events(h).at(-1), { detail: "deadlock, forward, manual" });
  h.run(h.now + 10 * DELAY);
  t.equal(c(h, 2, "state"), 2, "no automatic recovery");
  h.command({ type: "pfc-enable", port: 2, priority: 3 });
  t.equal(c(h, 2, "state"), 0);
  t.end();
});

t.test("switching semantics at run time lets go of what the other held", (t) => {
  const h = h3c({ recoverMode: "manual" });
  storm(h, 2, 3, h.now + INTERVAL + 2 * POLL);
  t.equal(c(h, 2, "state"), 2);
  h.command({
    type: "configure",
    tunables: { pfcWatchdog: { ...h.config.pfcWatchdog, semantics: "sonic" } },
  });
  t.equal(c(h, 2, "state"), 0, "released");
  t.equal(c(h, 2, "storm_restored"), 0, "not counted as a restoration");
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  send(h, 2, 1);
  h.run(h.now + 10_000);
  t.equal(h.data(2).length, 0, "PFC is on again");
  t.end();
});

t.test("the trigger window: deadlocks further apart than it do not add up; 0 counts them all", (t) => {
  // Each round: a storm until the deadlock, then quiet long enough to recover (about 1.7 ms a round).
  const rounds = (h: SwitchHarness, n: number) => {
    for (let i = 0; i < n; i++) {
      storm(h, 2, 3, h.now + INTERVAL + 2 * POLL);
      h.run(h.now + DELAY + 2 * POLL);
    }
  };
  const windowed = h3c({ triggerLimit: 2, triggerWindow: 1_000_000 });
  rounds(windowed, 3);
  t.equal(c(windowed, 2, "storm_detected"), 3);
  t.equal(c(windowed, 2, "latched"), 0, "a 1 ms window never holds two of them");
  const forever = h3c({ triggerLimit: 2, triggerWindow: 0 });
  rounds(forever, 2);
  t.equal(c(forever, 2, "latched"), 1, "window 0: the second since the start latches");
  // The same reading of 0 under sonic.
  const sonic = new SwitchHarness({
    settings: {
      pfcWatchdog: {
        enabled: true,
        detectionTime: INTERVAL,
        restorationTime: DELAY,
        pollInterval: POLL,
        triggerLimit: 2,
        triggerWindow: 0,
      },
    },
  }).start();
  for (let i = 0; i < 2; i++) {
    sonic.deliver(2, sonic.pfcFrame(2, 3, 0xffff));
    send(sonic, 2, 2);
    storm(sonic, 2, 3, sonic.now + INTERVAL + 2 * POLL);
    sonic.run(sonic.now + DELAY + 2 * POLL);
  }
  t.equal(c(sonic, 2, "storm_detected"), 2);
  t.equal(c(sonic, 2, "state"), 2, "sonic, window 0: latched at the second storm too");
  t.end();
});
