// Synchronised live clocks over the shared clock table, with a fake real clock: a device never runs ahead
// of a neighbour by more than the link delay (plus the grace the neighbour is given), an idle neighbour
// does not hold anyone, a stalled one does, and a dead one stops counting.
import t from "tap";
import {
  ClockTable,
  clockTableBytes,
  DeviceState,
  frameTag,
} from "../../src/runtime/realtime/clock-table.js";
import { SyncedClock } from "../../src/runtime/realtime/synced-clock.js";

const D = 1000; // dilation: 1 real ms = 1 emulated µs
const DELAY = 1000; // emulated ns on the one link
const GRACE = 2e6; // real ns
const MS = 1e6; // real ns
const FRAME = new Uint8Array(64).fill(7);

/** Two devices, A (0) and B (1), joined by one link: direction 0 is A→B (B reads it), 1 is B→A. */
function pair() {
  const table = ClockTable.format(new ArrayBuffer(clockTableBytes(2, 2)), 2, [
    { from: 0, to: 1, delayNs: DELAY },
    { from: 1, to: 0, delayNs: DELAY },
  ]);
  let real = 100 * MS;
  const clock = () => real;
  const a = new SyncedClock(
    clock,
    0,
    D,
    table,
    0,
    [{ port: 1, rxLink: 1, txLink: 0, peer: 1, delayNs: DELAY }],
    GRACE,
  );
  const b = new SyncedClock(
    clock,
    0,
    D,
    table,
    1,
    [{ port: 1, rxLink: 0, txLink: 1, peer: 0, delayNs: DELAY }],
    GRACE,
  );
  return {
    table,
    a,
    b,
    advance: (ns: number) => {
      real += ns;
    },
  };
}

t.test("the table's layout: magic, sizes, receivers; a foreign buffer is refused", async (t) => {
  const links = [
    { from: 0, to: 1, delayNs: 10 },
    { from: 1, to: 0, delayNs: 10 },
    { from: 1, to: 2, delayNs: 20 },
    { from: 2, to: 1, delayNs: 20 },
  ];
  const table = ClockTable.format(new ArrayBuffer(clockTableBytes(3, 4)), 3, links);
  t.equal(table.devices, 3);
  t.equal(table.links, 4);
  t.same(
    [0, 1, 2, 3].map((l) => [table.linkFrom(l), table.linkTo(l)]),
    links.map((l) => [l.from, l.to]),
  );
  t.equal(table.state(2), DeviceState.Absent);
  t.throws(() => new ClockTable(new ArrayBuffer(64)), /bad magic/);
  const again = new ClockTable(table.words.buffer as ArrayBuffer);
  t.equal(again.links, 4, "a second view of the same memory reads the same table");
});

t.test("an idle neighbour follows the real clock and holds nobody", async (t) => {
  const { a, b, advance } = pair();
  a.publish(Number.POSITIVE_INFINITY);
  b.publish(Number.POSITIVE_INFINITY);
  advance(50 * MS);
  const ta = a.now();
  t.equal(ta, 150_000, "A at real/D: B has no timer and no unread frame");
  t.equal(a.syncStats().heldNs, 0);
  t.equal(a.syncStats().holds, 0);
});

t.test("a neighbour with work that stops publishing holds us at its clock + grace + delay", async (t) => {
  const { a, b, table, advance } = pair();
  // B has a timer due 0.5 ms (real) from now, then the OS stops running it.
  b.publish(b.now() + 500);
  advance(50 * MS);
  const t1 = a.now();
  a.publish(t1 + 10); // A has work too (a timer just after)
  // B followed the real clock until its timer was due (100.5 ms real), then is trusted for the 2 ms grace.
  // One nanosecond short of it (the tie rule): a frame from B may still arrive at that time itself.
  t.equal(t1, 100_500 + GRACE / D + DELAY - 1, "held just short of where B could be, plus the link delay");
  t.ok(a.syncStats().heldNs > 0, "the hold shows in heldNs");
  t.equal(a.syncStats().holds, 1);
  t.equal(a.syncStats().graceExceeded, 1, "B's silence outlasted the grace");
  t.ok(a.syncStats().worstSilenceMs > 40);
  advance(10 * MS);
  t.equal(a.now(), t1, "still held while B is silent");
  t.equal(a.realMsUntil(t1 + 100_000), 1, "a held clock polls again within a millisecond");
  // B runs again: it catches up to A's bound and publishes; A goes on from where it was, not from real/D.
  advance(1 * MS);
  const tb = b.now();
  b.publish(Number.POSITIVE_INFINITY);
  // A published a timer 10 ns after t1: it counts as busy from then, trusted for the grace.
  t.ok(tb <= t1 + 10 + GRACE / D + DELAY, `B (${tb}) did not pass A (${t1}) by more than delay + grace`);
  t.ok(tb > 100_500, "B moved on from where it stalled");
  advance(1 * MS);
  const t2 = a.now();
  t.ok(t2 > t1, "A moves again");
  t.ok(t2 <= tb + DELAY + (1 * MS) / D, `A (${t2}) within the delay of B (${tb}) and B's time since`);
  t.equal(table.state(1), DeviceState.Running);
});

t.test("an idle neighbour next to a stalled device is no further than that device allows it", async (t) => {
  // A (0) - B (1) - C (2): directions 0 A→B, 1 B→A, 2 B→C, 3 C→B.
  const table = ClockTable.format(new ArrayBuffer(clockTableBytes(3, 4)), 3, [
    { from: 0, to: 1, delayNs: DELAY },
    { from: 1, to: 0, delayNs: DELAY },
    { from: 1, to: 2, delayNs: DELAY },
    { from: 2, to: 1, delayNs: DELAY },
  ]);
  let real = 100 * MS;
  const clock = () => real;
  const make = (self: number, ports: { port: number; rxLink: number; txLink: number; peer: number }[]) =>
    new SyncedClock(
      clock,
      0,
      D,
      table,
      self,
      ports.map((p) => ({ ...p, delayNs: DELAY })),
      GRACE,
    );
  const a = make(0, [{ port: 1, rxLink: 1, txLink: 0, peer: 1 }]);
  const b = make(1, [
    { port: 1, rxLink: 0, txLink: 1, peer: 0 },
    { port: 2, rxLink: 3, txLink: 2, peer: 2 },
  ]);
  const c = make(2, [{ port: 1, rxLink: 2, txLink: 3, peer: 1 }]);
  a.publish(Number.POSITIVE_INFINITY);
  b.publish(Number.POSITIVE_INFINITY); // B has nothing to do: no timer, no unread frame
  c.publish(c.now() + 500); // C has a timer due 0.5 ms (real) from now, then the OS stops running it
  real += 50 * MS;
  const ta = a.now();
  const cAtMost = 100_500 + GRACE / D;
  t.equal(
    ta,
    cAtMost + 2 * DELAY - 1,
    "A held short of where C could be plus two delays, not at the real clock",
  );
  // B runs: it is held by C, one nanosecond short of C's earliest frame, and sends A a frame (say, a pause
  // it decided on that frame of C's, at its time).
  const tb = b.now();
  t.equal(tb, cAtMost + DELAY - 1, "B is short of where A was told it could at most be");
  b.sent(1, tb + 1 + DELAY, FRAME);
  t.ok(a.read(1, FRAME) > ta, `B's frame (due ${tb + 1 + DELAY}) is after A's time (${ta}): no tie missed`);
});

t.test("unread frames make an idle neighbour busy from the moment the first one was sent", async (t) => {
  const { a, b, advance } = pair();
  a.publish(Number.POSITIVE_INFINITY);
  b.publish(Number.POSITIVE_INFINITY);
  advance(10 * MS);
  const sentAt = a.now();
  a.sent(1, sentAt + DELAY, FRAME); // a frame towards B at 110 ms real; B does not run to read it
  advance(30 * MS);
  const held = a.now();
  a.publish(held + 10);
  // B was current until the frame came, then trusted for the grace (2 µs), but it cannot pass the frame
  // before it has handled it (1 µs): what it sends in answer leaves at the frame's time at the earliest.
  t.equal(held, sentAt + DELAY + DELAY - 1, "held short of B's unread frame's arrival + delay");
  // B reads it and publishes: A is free again.
  b.read(1, FRAME);
  const tb = b.now();
  b.publish(Number.POSITIVE_INFINITY);
  advance(1 * MS);
  t.ok(a.now() > held, "released once B read the frame");
  t.ok(tb <= held + DELAY + GRACE / D);
});

t.test("a frame read but not yet handled keeps its reader busy, though the link looks empty", async (t) => {
  const { a, b, table, advance } = pair();
  a.publish(Number.POSITIVE_INFINITY);
  b.publish(Number.POSITIVE_INFINITY);
  advance(10 * MS);
  const sentAt = a.now();
  a.sent(1, sentAt + DELAY, FRAME); // arrives at B at 111 µs emulated (111 ms real)
  // B takes it off the port and is descheduled before it handles it or publishes: READ caught up with
  // SENT, and B's last publication said it had nothing to do.
  t.equal(b.read(1, FRAME), sentAt + DELAY, "B gets the frame's stamp");
  t.equal(table.nextArrival(0), Number.POSITIVE_INFINITY, "nothing unread on the link");
  advance(30 * MS);
  const held = a.now();
  t.equal(
    held,
    sentAt + DELAY + GRACE / D + DELAY - 1,
    "A held short of B's frame time + grace + delay, not at the real clock (140 µs)",
  );
  // B handles the frame, has nothing else to do, and says so: A is free again.
  b.now();
  b.publish(Number.POSITIVE_INFINITY);
  advance(1 * MS);
  t.ok(a.now() > held, "released once B published");
});

t.test("frames the kernel lost stop counting as unread after two heartbeats", async (t) => {
  const { a, b, advance } = pair();
  a.publish(Number.POSITIVE_INFINITY);
  b.publish(Number.POSITIVE_INFINITY);
  t.ok(b.settled(), "nothing on its way to B");
  a.sent(1, 0, FRAME); // lost: B never reads it
  t.notOk(b.settled(), "a frame counted as sent to B and not read: B keeps its heartbeat going");
  t.ok(a.settled(), "A has nothing on its way");
  b.tick(); // first heartbeat notes what had been sent
  t.notOk(b.settled());
  b.tick(); // second: everything sent before the first is settled
  t.ok(b.settled(), "settled: B's heartbeat may slow down");
  advance(30 * MS);
  t.equal(a.now(), 130_000, "B counts as idle again, and A follows the real clock");
});

t.test(
  "a device that is gone constrains nobody; a restarted one starts at its neighbours' time",
  async (t) => {
    const { a, b, table, advance } = pair();
    a.publish(Number.POSITIVE_INFINITY);
    b.publish(b.now()); // B has work now...
    b.close(); // ...and dies
    advance(20 * MS);
    t.equal(a.now(), 120_000, "A is not held by a dead B");
    // A gets held by nothing; now A stalls with work, and B's new process starts.
    a.publish(a.now());
    advance(20 * MS);
    const fresh = new SyncedClock(
      () => 140 * MS,
      0,
      D,
      table,
      1,
      [{ port: 1, rxLink: 0, txLink: 1, peer: 0, delayNs: DELAY }],
      GRACE,
    );
    t.equal(
      fresh.now(),
      120_000 + GRACE / D + DELAY - 1,
      "the new B starts short of where A could be, not at real/D",
    );
    t.equal(table.state(1), DeviceState.Running);
  },
);

t.test(
  "a frame's kernel arrival time becomes emulated time on the synced clock, never past now",
  async (t) => {
    const { a, b, advance } = pair();
    a.publish(Number.POSITIVE_INFINITY);
    b.publish(Number.POSITIVE_INFINITY);
    advance(10 * MS);
    t.equal(a.emulatedAt(105 * MS), 105_000, "arrived 5 ms real ago: 5 us emulated before now");
    t.equal(a.emulatedAt(200 * MS), a.now(), "a time in the future is clamped to now");
  },
);

t.test(
  "frames carry their emulated arrival time through the table, also past frames the kernel lost",
  async (t) => {
    const { a, b } = pair();
    const frame = (n: number) => {
      const f = new Uint8Array(100);
      f[40] = n; // like a PSN: every frame its own bytes
      return f;
    };
    for (let n = 0; n < 5; n++) a.sent(1, 10_000 + n * 336, frame(n));
    t.equal(b.read(1, frame(0)), 10_000, "the first frame's stamp");
    t.equal(b.read(1, frame(1)), 10_336);
    // frame 2 was lost by the kernel: the next read finds frame 3's stamp and skips the count ahead
    t.equal(b.read(1, frame(3)), 10_000 + 3 * 336, "resynchronised after a lost frame");
    t.equal(b.read(1, frame(4)), 10_000 + 4 * 336);
    t.ok(
      Number.isNaN(b.read(1, frame(9))),
      "a frame nobody stamped has no time (the host uses the kernel's)",
    );
    t.equal(b.syncStats().unstamped, 1, "and is counted: its time is only the kernel's");
    a.sent(1, 20_000, frame(5));
    t.equal(b.read(1, frame(5)), 20_000, "and the count stays right after it");
    t.equal(b.syncStats().unstamped, 1, "stamped frames are not counted");
    t.not(frameTag(frame(1)), frameTag(frame(2)), "tags tell frames apart by their bytes");
    t.not(frameTag(new Uint8Array(60)), frameTag(new Uint8Array(61)), "and by their length");
  },
);

t.test("the supervisor's gate: no clock passes it; released, the clocks go on", async (t) => {
  const { a, b, table, advance } = pair();
  a.publish(Number.POSITIVE_INFINITY);
  b.publish(Number.POSITIVE_INFINITY);
  t.equal(table.gate(), Number.POSITIVE_INFINITY, "open in a new table");
  table.setGate(120_000);
  advance(50 * MS);
  t.equal(a.now(), 120_000, "A waits at the gate (real/D says 150 µs)");
  t.equal(b.now(), 120_000, "so does B");
  table.setGate(Number.POSITIVE_INFINITY);
  advance(1 * MS);
  const ta = a.now();
  t.ok(ta > 120_000, `A goes on once it opens (${ta})`);
  t.equal(ta, 121_000, "from where it waited: the wait is held time, not skipped time");
});

t.test("a clock publishes no further than its next own event", async (t) => {
  const { a, table, advance } = pair();
  // A's port has a frame to finish at 100.6 µs; the clock may run past it by the catch-up bound before the
  // timer runs, and what that timer sends leaves at 100.6 µs: A must not tell its neighbours it is past it.
  a.followOwnEvents(() => 100_600);
  advance(1 * MS);
  const now = a.now();
  t.ok(now > 100_600, `the clock itself is past the event (${now})`);
  a.publish(100_600);
  t.equal(table.published(0).emulated, 100_600, "published at the event, not at the clock");
  a.followOwnEvents(() => Number.POSITIVE_INFINITY);
  a.publish(Number.POSITIVE_INFINITY);
  t.equal(table.published(0).emulated, now, "nothing due: published at the clock");
});

t.test("a held clock's offset reaches the table at once, before its next publication", async (t) => {
  const { a, b, table, advance } = pair();
  b.publish(b.now() + 500); // B has work, then stalls
  a.publish(Number.POSITIVE_INFINITY);
  const before = table.published(0).offset;
  advance(50 * MS);
  a.now(); // held by B
  t.ok(a.syncStats().heldNs > 0, "A was held");
  t.equal(table.published(0).offset, a.syncStats().heldNs, "the table has the new offset");
  t.ok(table.published(0).offset > before, "it grew without A publishing");
});
