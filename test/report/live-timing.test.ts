// What a live run's report says about the machine: synced clocks waited (never machine-limited); free
// clocks are machine-limited when a port lost wire time or a timer was later than the PFC slack.
import t from "tap";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import { lateFramesDuring } from "../../src/report/live-timing.js";
import { liveTiming } from "../../src/report/report.js";
import { nicTables, switchTables } from "../helpers/stats-tables.js";

const withStall = (ns: number) =>
  [
    {
      kind: "nic",
      name: "h1",
      now: 0,
      counters: nicTables().node,
      ports: [{ port: 1, name: "eth1", up: true, counters: { ...nicTables().port, tx_stalled_ns: ns } }],
    },
  ] as unknown as AnyDeviceStats[];

t.test("live timing in a report", async (t) => {
  const synced = liveTiming("synced", 1_000_000, 1_000_000, withStall(0), 0, 10_000);
  t.equal(synced.machineLimited, false);
  t.equal(synced.pace, 0.5, "1 ms emulated while the clocks held 1 ms: half speed, at any dilation");
  t.match(synced.why, /waited for \(1ms in all\)/);
  t.equal(liveTiming("synced", 1_000_000, 0, withStall(0), 0, 10_000).pace, 1, "never held: full pace");
  const clean = liveTiming("free", 1_000_000, 0, withStall(5_000), 2_000, 10_000);
  t.equal(clean.machineLimited, false, "5 us lost of 1 ms is under 1 %");
  const stalled = liveTiming("free", 1_000_000, 0, withStall(93_000), 2_000, 10_000);
  t.equal(stalled.machineLimited, true);
  t.equal(stalled.worstTxStalledNs, 93_000);
  t.match(stalled.why, /a port lost 93us of wire time/);
  const late = liveTiming("free", 1_000_000, 0, withStall(0), 40_000, 10_000);
  t.equal(late.machineLimited, true);
  t.match(late.why, /a timer fired 40us late \(slack 10us\)/);
  const both = liveTiming("free", 1_000_000, 0, withStall(93_000), 40_000, 10_000);
  t.match(both.why, /wire time and a timer fired/);
  t.equal(clean.lateLosslessDrops, 0);
});

t.test("lossless drops a late process caused make a free-clock run machine-limited", async (t) => {
  const sw = (late: number) =>
    [
      {
        kind: "switch",
        name: "leaf1",
        now: 0,
        counters: { ...switchTables().node, dropped_lossless: 2, dropped_lossless_late: late },
        ports: [{ port: 1, name: "eth1", up: true, counters: switchTables().port, queues: [] }],
      },
    ] as unknown as AnyDeviceStats[];
  const r = liveTiming("free", 1_000_000, 0, sw(7), 0, 10_000);
  t.equal(r.lateLosslessDrops, 7, "dropped_lossless_late summed, dropped_lossless not");
  t.equal(r.machineLimited, true);
  t.match(r.why, /7 lossless frames sent past a pause were dropped/);
  t.equal(liveTiming("free", 1_000_000, 0, sw(0), 0, 10_000).machineLimited, false);
});

t.test("work requests that reached their NIC after their start time are reported", async (t) => {
  const nic = (late: number, maxNs: number) =>
    ({
      kind: "nic",
      name: "h1",
      now: 0,
      counters: { ...nicTables().node, posts_late: late, post_late_max_ns: maxNs },
      ports: [{ port: 1, name: "eth1", up: true, counters: nicTables().port }],
    }) as unknown as AnyDeviceStats;
  const r = liveTiming("synced", 1_000_000, 0, [nic(2, 3_000), nic(1, 8_000)], 0, 10_000);
  t.equal(r.lateStarts, 3);
  t.equal(r.worstLateStartNs, 8_000);
  t.match(r.why, /; 3 work requests reached their NIC after their start time \(the latest by 8us\)/);
  const none = liveTiming("synced", 1_000_000, 0, [nic(0, 0)], 0, 10_000);
  t.equal(none.lateStarts, 0);
  t.notMatch(none.why, /work requests/);
});

t.test("synced clocks say when the run relied on a neighbour trusted past the grace", async (t) => {
  const exact = liveTiming("synced", 1_000_000, 0, withStall(0), 0, 10_000, {
    graceExceeded: 0,
    unstamped: 0,
  });
  t.equal(exact.graceExceeded, 0);
  t.notMatch(exact.why, /except/, "nothing to confess");
  const bet = liveTiming("synced", 1_000_000, 0, withStall(0), 0, 10_000, {
    graceExceeded: 37,
    unstamped: 2,
  });
  t.equal(bet.graceExceeded, 37);
  t.equal(bet.unstamped, 2);
  t.match(bet.why, /37 times a neighbour stayed silent past the grace period/);
  t.match(bet.why, /2 frames were read without their arrival stamp/);
  t.match(bet.why, /may differ from the simulator's/);
  t.equal(bet.machineLimited, false, "synced clocks still never run past a pause they know of");
});

t.test("a live run says how many frames reached a device after their emulated arrival time", async (t) => {
  const late = liveTiming("synced", 1_000_000, 0, withStall(0), 0, 10_000, {
    graceExceeded: 3,
    unstamped: 0,
    framesLate: 12,
    framesLateMaxNs: 322,
  });
  t.equal(late.framesLate, 12);
  t.equal(late.framesLateMaxNs, 322);
  t.match(late.why, /12 frames reached a device after their emulated arrival time \(the latest by 322ns\)/);
  const none = liveTiming("synced", 1_000_000, 0, withStall(0), 0, 10_000, {
    graceExceeded: 0,
    unstamped: 0,
  });
  t.equal(none.framesLate, 0, "absent: none");
});

t.test("late frames during a run: only devices late in the run give the worst lateness", async (t) => {
  // Health before the run (after bring-up) and after it: spine1 was late once at bring-up (an ARP,
  // 12,962 ns) and not since; spine2 once during the run (14 ns); leaf1 never.
  const before = [
    { node: "spine1", health: { framesLate: 1, framesLateMaxNs: 12_962 } },
    { node: "spine2", health: { framesLate: 0, framesLateMaxNs: 0 } },
    { node: "leaf1", health: null },
  ];
  const after = [
    { node: "spine1", health: { framesLate: 1, framesLateMaxNs: 12_962 } },
    { node: "spine2", health: { framesLate: 1, framesLateMaxNs: 14 } },
    { node: "leaf1", health: { framesLate: 0, framesLateMaxNs: 0 } },
  ];
  t.same(lateFramesDuring(before, after), { framesLate: 1, framesLateMaxNs: 14 });
  t.same(
    lateFramesDuring(before, before),
    { framesLate: 0, framesLateMaxNs: 0 },
    "none in the run: 0, not 12,962",
  );
  t.same(
    lateFramesDuring([], [{ node: "h9", health: { framesLate: 2, framesLateMaxNs: 40 } }]),
    { framesLate: 2, framesLateMaxNs: 40 },
    "a device that was not there before counts from 0",
  );
});
