import t from "tap";
import { EgressScheduler, type QueuedPacket } from "../../src/switch/scheduler.js";

function pkt(queue: number, bytes: number): QueuedPacket {
  return {
    frame: new Uint8Array(bytes),
    inPort: 1,
    pg: queue,
    queue,
    headroom: 0,
    ipOffset: 14,
    enqueuedAt: 0,
  };
}

t.test("strict-priority queues go first, highest first", (t) => {
  const s = new EgressScheduler([6, 7], [1, 1, 1, 1, 1, 1, 1, 1], 4224);
  for (let i = 0; i < 5; i++) s.enqueue(pkt(3, 4000));
  s.enqueue(pkt(6, 100));
  s.enqueue(pkt(7, 100));
  s.enqueue(pkt(6, 100));
  t.equal(s.dequeue(0)!.queue, 7);
  t.equal(s.dequeue(0)!.queue, 6);
  t.equal(s.dequeue(0)!.queue, 6);
  t.equal(s.dequeue(0)!.queue, 3);
  t.end();
});

t.test("a paused queue is skipped and keeps its packets", (t) => {
  const s = new EgressScheduler([6], [1, 1, 1, 1, 1, 1, 1, 1], 4224);
  s.enqueue(pkt(3, 1000));
  s.enqueue(pkt(0, 1000));
  s.enqueue(pkt(6, 100));
  const paused = (1 << 3) | (1 << 6);
  t.equal(s.dequeue(paused)!.queue, 0);
  t.equal(s.dequeue(paused), null, "only paused queues left");
  t.equal(s.dequeue(0)!.queue, 6);
  t.equal(s.dequeue(0)!.queue, 3);
  t.end();
});

t.test("DWRR shares bytes by weight within 5 %, also with mixed packet sizes", (t) => {
  const weights = [1, 2, 0, 4, 1, 1, 1, 1];
  const s = new EgressScheduler([6, 7], weights, 4224);
  const sizes = [1500, 4200, 0, 700, 0, 0, 0, 0];
  const active = [0, 1, 3];
  const served = [0, 0, 0, 0, 0, 0, 0, 0];
  // Keep every active queue backlogged and serve 30,000 packets.
  for (const q of active) for (let i = 0; i < 8; i++) s.enqueue(pkt(q, sizes[q]!));
  for (let i = 0; i < 30_000; i++) {
    const p = s.dequeue(0)!;
    served[p.queue]! += p.frame.length;
    s.enqueue(pkt(p.queue, sizes[p.queue]!));
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

t.test("flush returns everything and empties the queues", (t) => {
  const s = new EgressScheduler([6], [1, 1, 1, 1, 1, 1, 1, 1], 4224);
  for (let q = 0; q < 8; q++) s.enqueue(pkt(q, 100));
  t.equal(s.flush().length, 8);
  t.equal(s.backlog, 0);
  t.equal(s.dequeue(0), null);
  t.end();
});
