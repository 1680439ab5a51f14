import t from "tap";
import { LOW_BYTES, peakMakeup, type QueueEvent, queuePeaks } from "../../scripts/bench/queue-peaks.js";

const data = (flow: string, inPort: number) => ({ flow, ack: false, bytes: 1_000, inPort });
const ev = (
  t: number,
  port: string,
  enqueue: boolean,
  key: string,
  flow = "h1>h2",
  inPort = 1,
): QueueEvent => ({
  t,
  port,
  enqueue,
  key,
  packet: key.startsWith("a") ? { flow, ack: true, bytes: 100, inPort } : data(flow, inPort),
});

t.test("queuePeaks keeps each port's largest queue, what it held and how long it built", (t) => {
  const peaks = queuePeaks([
    ev(0, "p1", true, "d1"),
    ev(5, "p1", false, "d1"),
    // building from t = 10: three data packets from two inputs and an ACK
    ev(10, "p1", true, "d2", "h1>h2", 1),
    ev(11, "p1", true, "d3", "h3>h2", 2),
    ev(12, "p1", true, "d4", "h3>h2", 2),
    ev(13, "p1", true, "a1", "h5>h6", 3),
    ev(14, "p1", false, "d2"),
    ev(15, "p2", true, "d5"),
  ]);
  const p1 = peaks.get("p1")!;
  t.equal(p1.bytes, 3_100);
  t.equal(p1.t, 13);
  // at most LOW_BYTES held until the third packet joined at t = 12
  t.ok(LOW_BYTES >= 2_000 && LOW_BYTES < 3_000);
  t.equal(p1.buildNs, 13 - 11);
  t.same(peakMakeup(p1), {
    packets: 4,
    data: 3,
    acks: 1,
    ackBytes: 100,
    flows: 2,
    byFlow: ["h3>h2:2", "h1>h2:1"],
    dataInputs: 2,
  });
  t.equal(peaks.get("p2")!.bytes, 1_000);
  t.end();
});

t.test("queuePeaks refuses a packet that leaves a queue it never joined", (t) => {
  t.throws(() => queuePeaks([ev(0, "p1", false, "d9")]), /d9 leaves a queue it never joined/);
  t.end();
});
