// The transmit port's wire time (device/tx-port.ts): exact, so a frame whose serialisation ends on a whole
// nanosecond leaves on it, and the same frames leave at the same times relative to their start whatever the
// clock's magnitude (the simulator's clock starts at the scenario's 0, a live lab's much earlier).
import t from "tap";
import type { DeviceEnv, Nanoseconds } from "../../src/device/contract.js";
import { MAX_CATCH_UP_NS, TxPort } from "../../src/device/tx-port.js";

interface Sent {
  readonly at: number;
  readonly length: number;
}

/** A port fed `lengths` back to back from `start`, its timer run exactly when armed; the times frames left. */
function run(lengths: readonly number[], start: number, rate = 100e9): Sent[] {
  const sent: Sent[] = [];
  let armed: number | null = null;
  const env: DeviceEnv = {
    transmit: (_port, frame, leftAt) => sent.push({ at: leftAt ?? Number.NaN, length: frame.length }),
    arm: (_timer, at) => {
      armed = at;
    },
    disarm: () => {
      armed = null;
    },
    emit: () => {},
    random: () => 0,
  };
  const queue = lengths.map((n) => new Uint8Array(n));
  const port = new TxPort(1, rate, 1, env, () => queue.shift() ?? null);
  port.kick(start);
  let guard = 0;
  while (armed !== null && guard++ < 100_000) {
    const at: number = armed;
    armed = null;
    t.ok(Number.isInteger(at), "timers are armed on whole nanoseconds");
    port.onTimer(at as Nanoseconds);
  }
  return sent;
}

t.test("a 100 Gb/s port sends frames exactly at the end of their wire time", async (t) => {
  // 4,154 bytes + FCS 4 + preamble and gap 20 = 4,178 bytes = 334.24 ns at 100 Gb/s: 25 frames are
  // 8,356 ns exactly, so the 25th leaves on that nanosecond, not one later.
  const sent = run(Array(50).fill(4154), 0);
  t.equal(sent.length, 50);
  t.equal(sent[0]!.at, 335, "334.24 ns -> the first whole ns after it");
  t.equal(sent[24]!.at, 8356, "25 x 334.24 = 8,356 exactly");
  t.equal(sent[49]!.at, 16712, "50 x 334.24 = 16,712 exactly");
  for (let i = 0; i < sent.length; i++) {
    t.equal(sent[i]!.at, Math.ceil(((i + 1) * 33424) / 100 - 1e-9), `frame ${i} at ceil((i+1) x 334.24)`);
  }
});

t.test(
  "the same frames leave at the same times relative to their start at any clock magnitude",
  async (t) => {
    const lengths = Array.from({ length: 400 }, (_, i) => 60 + ((i * 997) % 4100));
    const base = run(lengths, 20_000).map((s) => s.at - 20_000);
    for (const start of [5_004_812_345, 3_600_000_000_007, 123]) {
      const shifted = run(lengths, start).map((s) => s.at - start);
      t.same(shifted, base, `started at ${start} ns`);
    }
    // 3,000 full-size frames back to back: summed in floating point from an hour of emulated time, 1,099 of
    // them left a nanosecond off the times they leave at when the sum starts from 0.
    const full = Array(3000).fill(4154);
    const fromZero = run(full, 0).map((s) => s.at);
    const hour = 3_600_000_000_007;
    const fromHour = run(full, hour).map((s) => s.at - hour);
    t.equal(
      fromHour.filter((x, i) => x !== fromZero[i]).length,
      0,
      "the same 3,000 times from 0 and from an hour",
    );
  },
);

t.test("a rate that does not divide a nanosecond keeps its exact average rate", async (t) => {
  // 25 Gb/s x 3 = 75 Gb/s: 1,000-byte frames (1,024 on the wire) take 109.2266… ns each.
  const sent = run(Array(3000).fill(1000), 7, 75e9);
  const exactEnd = 7 + (3000 * 1024 * 8) / 75;
  t.equal(sent[2999]!.at, Math.ceil(exactEnd), "the 3,000th frame leaves at the ceiling of the exact end");
});

t.test("a port woken late makes up at most MAX_CATCH_UP_NS of wire time", async (t) => {
  const sent: number[] = [];
  const env: DeviceEnv = {
    transmit: (_p, _f, leftAt) => sent.push(leftAt ?? Number.NaN),
    arm: () => {},
    disarm: () => {},
    emit: () => {},
    random: () => 0,
  };
  const queue = Array.from({ length: 100 }, () => new Uint8Array(1230));
  const port = new TxPort(1, 100e9, 1, env, () => queue.shift() ?? null);
  port.kick(0);
  // 1,254 wire bytes = 100.32 ns per frame; woken 10 µs late: ~20 frames' time is made up, the rest lost.
  port.onTimer(10_000);
  t.ok(sent.length >= 20 && sent.length <= 22, `frames sent at once: ${sent.length}`);
  t.ok(port.stalledNs > 10_000 - MAX_CATCH_UP_NS - 200, `wire time lost: ${port.stalledNs.toFixed(1)} ns`);
  // A frame is handed over as its first bit leaves, stamped with its end: the made-up frames ended by
  // the time the device was given, the one now on the wire ends within one frame time after it.
  t.ok(
    sent.slice(0, -1).every((s) => s <= 10_000),
    "the made-up frames are stamped no later than the time the device was given",
  );
  t.ok(sent.at(-1)! > 10_000 && sent.at(-1)! <= 10_101, `the frame on the wire ends at ${sent.at(-1)}`);
});

t.test("a rate must be a positive number", async (t) => {
  const env = { transmit() {}, arm() {}, disarm() {}, emit() {}, random: () => 0 } as DeviceEnv;
  t.throws(() => new TxPort(1, 0, 1, env, () => null), /line rate 0 b\/s/);
  t.throws(() => new TxPort(1, Number.NaN, 1, env, () => null), /not a positive number/);
});

t.test(
  "a first frame of 4,170 bytes then 4,154s from 20 µs: the third leaves at 21,004 ns exactly",
  async (t) => {
    // 335.52 + 334.24 + 334.24 = 1,004.00 ns exactly: the frame leaves on that nanosecond.
    t.same(
      run([4170, 4154, 4154], 20_000).map((s) => s.at),
      [20_336, 20_670, 21_004],
    );
  },
);

/** A port over a scripted owner: frames queued by the test, `more` as the owner's answer, a log of calls. */
function scripted() {
  const log: string[] = [];
  const queue: Uint8Array[] = [];
  let armedAt: number | null = null;
  const env: DeviceEnv = {
    transmit: (_p, f, leftAt) => log.push(`tx ${f.length} left ${leftAt}`),
    arm: (_t, at) => {
      armedAt = at;
      log.push(`arm ${at}`);
    },
    disarm: () => {
      armedAt = null;
    },
    emit: () => {},
    random: () => 0,
  };
  const port: TxPort = new TxPort(1, 100e9, 1, env, () => {
    const f = queue.shift() ?? null;
    port.pulledMore = queue.length > 0;
    return f;
  });
  return { log, queue, port, armed: () => armedAt };
}

/** A scripted port that started a 1,230-byte frame (1,254 wire bytes, 100.32 ns) at 1,000: it ends at 1,101. */
function sending(): ReturnType<typeof scripted> {
  const s = scripted();
  s.queue.push(new Uint8Array(1230));
  s.port.kick(1_000);
  return s;
}

t.test("a frame is handed over as its first bit leaves, stamped with its end", async (t) => {
  const { log, port, armed } = sending();
  t.same(log, ["tx 1230 left 1101"], "sent at once, leaving at 1,101; nothing more queued: no timer");
  t.equal(armed(), null);
  t.equal(port.sentBytes(1_050), 0, "not sent yet at 1,050");
  t.equal(port.sentBytes(1_101), 0, "its end's nanosecond: still on the wire until the port's timer slot");
  t.equal(port.sentBytes(1_102), 1230, "sent after its end");
});

t.test("what is queued while a frame is on the wire is pulled at its end", async (t) => {
  const { log, queue, port } = sending();
  queue.push(new Uint8Array(1230));
  port.kick(1_050);
  t.same(log, ["tx 1230 left 1101", "arm 1101"], "a kick while busy arms the timer at the end");
  port.kick(1_060);
  t.equal(log.length, 2, "a second kick arms nothing more");
  port.onTimer(1_101);
  t.same(
    log.slice(2),
    ["tx 1230 left 1201"],
    "back to back from the exact end: 1,100.32 + 100.32 = 1,200.64",
  );
});

t.test("a kick at the nanosecond the frame ends waits for the port's timer there", async (t) => {
  const { log, queue, port } = sending();
  queue.push(new Uint8Array(64));
  port.kick(1_101);
  t.same(log, ["tx 1230 left 1101", "arm 1101"], "what arrives in that nanosecond competes for the wire");
  port.onTimer(1_101);
  t.equal(log[2], "tx 64 left 1108", "then sent from the exact end: 1,100.32 + 7.04 = 1,107.36");
});

t.test("a kick after the frame's end starts at once", async (t) => {
  const { log, queue, port } = sending();
  queue.push(new Uint8Array(1230));
  port.kick(2_000);
  t.same(log, ["tx 1230 left 1101", "tx 1230 left 2101"]);
});

t.test("wake: work queued without a kick is pulled at the end of the frame on the wire", async (t) => {
  const { log, queue, port } = scripted();
  port.wake(500);
  t.same(log, [], "an idle port stays idle");
  queue.push(new Uint8Array(1230));
  port.kick(1_000);
  port.wake(1_050);
  t.same(log, ["tx 1230 left 1101", "arm 1101"]);
  port.wake(1_060);
  t.equal(log.length, 2, "armed once");
});

t.test("a link going down under a frame reports it lost; after its end, nothing", async (t) => {
  const a = sending();
  t.equal(a.port.setUp(false, 1_050)?.length, 1230, "on the wire at 1,050: lost");
  const b = sending();
  t.equal(b.port.setUp(false, 1_200), null, "gone by 1,200");
  const c = sending();
  t.equal(c.port.setUp(false, 1_101)?.length, 1230, "in its end's nanosecond, before the port's timer: lost");
});
