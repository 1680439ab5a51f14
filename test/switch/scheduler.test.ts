import t from "tap";
import { PacketMeta } from "../../src/switch/packet-meta.js";
import { EgressScheduler } from "../../src/switch/scheduler.js";

const meta = new PacketMeta();

function push(s: EgressScheduler, queue: number, bytes: number): void {
  meta.reset(new Uint8Array(bytes), 1);
  meta.pg = queue;
  s.queues[queue]!.push(meta);
}

/** The queue the scheduler serves next, taking its packet (-1: nothing eligible). */
function take(s: EgressScheduler, paused = 0): { queue: number; bytes: number } {
  const q = s.next(paused);
  if (q < 0) return { queue: -1, bytes: 0 };
  const m = new PacketMeta();
  if (!s.queues[q]!.shift(m)) throw new Error(`queue ${q} was chosen but is empty`);
  return { queue: q, bytes: m.length };
}

function scheduler(strict: number[], weights = [1, 1, 1, 1, 1, 1, 1, 1]): EgressScheduler {
  const s = new EgressScheduler();
  s.configure(strict, weights, 4224);
  return s;
}

t.test("strict-priority queues go first, highest first", (t) => {
  const s = scheduler([6, 7]);
  for (let i = 0; i < 5; i++) push(s, 3, 4000);
  push(s, 6, 100);
  push(s, 7, 100);
  push(s, 6, 100);
  t.same([take(s).queue, take(s).queue, take(s).queue, take(s).queue], [7, 6, 6, 3]);
  t.end();
});

t.test("a paused queue is skipped and keeps its packets", (t) => {
  const s = scheduler([6]);
  push(s, 3, 1000);
  push(s, 0, 1000);
  push(s, 6, 100);
  const paused = (1 << 3) | (1 << 6);
  t.equal(take(s, paused).queue, 0);
  t.equal(s.next(paused), -1, "only paused queues left");
  t.equal(take(s).queue, 6);
  t.equal(take(s).queue, 3);
  t.end();
});

t.test("DWRR shares bytes by weight within 5 %, also with mixed packet sizes", (t) => {
  const weights = [1, 2, 0, 4, 1, 1, 1, 1];
  const s = scheduler([6, 7], weights);
  const sizes = [1500, 4200, 0, 700, 0, 0, 0, 0];
  const active = [0, 1, 3];
  const served = [0, 0, 0, 0, 0, 0, 0, 0];
  // Keep every active queue backlogged and serve 30,000 packets.
  for (const q of active) for (let i = 0; i < 8; i++) push(s, q, sizes[q]!);
  const m = new PacketMeta();
  for (let i = 0; i < 30_000; i++) {
    const q = s.next(0);
    s.queues[q]!.shift(m);
    served[q]! += m.length;
    push(s, q, sizes[q]!);
  }
  const total = active.reduce((a, q) => a + served[q]!, 0);
  const weightSum = active.reduce((a, q) => a + weights[q]!, 0);
  for (const q of active) {
    const share = served[q]! / total;
    const want = weights[q]! / weightSum;
    t.ok(
      Math.abs(share - want) / want <= 0.05,
      `queue ${q}: ${(share * 100).toFixed(2)} % of bytes, weight share ${(want * 100).toFixed(2)} %`,
    );
  }
  t.end();
});

t.test("a queue ring keeps order and every column through growth", (t) => {
  const s = scheduler([]);
  const ring = s.queues[2]!;
  for (let i = 0; i < 100; i++) {
    meta.reset(new Uint8Array(60 + i), i);
    meta.pg = i % 8;
    meta.headroom = i * 10;
    meta.l3 = 14;
    meta.nextHopMac = 0x02_00_00_00_00_00 + i;
    meta.mark = i % 3 === 0;
    meta.enqueuedAt = i * 1000;
    ring.push(meta);
  }
  t.equal(ring.length, 100);
  const m = new PacketMeta();
  let ok = true;
  for (let i = 0; i < 100; i++) {
    ring.shift(m);
    ok &&=
      m.length === 60 + i &&
      m.inPort === i &&
      m.pg === i % 8 &&
      m.headroom === i * 10 &&
      m.l3 === 14 &&
      m.nextHopMac === 0x02_00_00_00_00_00 + i &&
      m.mark === (i % 3 === 0) &&
      m.enqueuedAt === i * 1000;
  }
  t.ok(ok, "every packet came back as it went in, in order");
  t.notOk(ring.shift(m), "then empty");
  t.equal(s.backlog, 0);
  t.end();
});
