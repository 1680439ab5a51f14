import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { ns3QueueEvents } from "../../scripts/bench/ns3-core-queues.js";
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

t.test("ns3QueueEvents reads a core switch's queue from HPCC's trace records (trace-format.h)", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "queue-peaks-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // header: no ports, a window; then 56-byte records
  const rec = (time: number, event: number, intf: number, proto: number, seq: number, qlen: number) => {
    const b = Buffer.alloc(56);
    b.writeBigUInt64LE(BigInt(time), 0);
    b.writeUInt16LE(16, 8); // node 16: c1, the first core switch after 16 hosts
    b.writeUInt8(intf, 10);
    b.writeUInt8(3, 11);
    b.writeUInt32LE(qlen, 12);
    b.writeUInt32LE(0x0b000001 + 2 * 0x100, 16); // h3
    b.writeUInt32LE(0x0b000001 + 9 * 0x100, 20); // h10
    b.writeUInt16LE(proto === 0x11 ? 1090 : 88, 24);
    b.writeUInt8(proto, 26);
    b.writeUInt8(event, 27);
    b.writeUInt8(1, 29); // a switch
    b.writeUInt32LE(seq, proto === 0x11 ? 36 : 40);
    return b;
  };
  const head = Buffer.alloc(8);
  const file = join(dir, "mix.tr");
  writeFileSync(
    file,
    Buffer.concat([
      head,
      rec(10, 0, 2, 0x11, 0, 0), // received on port 2
      rec(11, 1, 3, 0x11, 0, 0),
      rec(12, 0, 2, 0x11, 1000, 0),
      rec(13, 1, 3, 0x11, 1000, 1090),
      rec(14, 1, 3, 0xfc, 5, 2180), // an ACK (of h10's flow to h3 here), arrival not traced
      rec(15, 2, 3, 0x11, 0, 0),
    ]),
  );
  const check = new Map<string, number>();
  const peaks = queuePeaks(ns3QueueEvents(file, check));
  const p = peaks.get("c1:eth3")!;
  t.equal(p.bytes, 1090 * 2 + 88);
  t.equal(check.get("c1:eth3"), 2180 + 88);
  t.same(peakMakeup(p), {
    packets: 3,
    data: 2,
    acks: 1,
    ackBytes: 88,
    flows: 1,
    byFlow: ["h3>h10:2"],
    dataInputs: 1,
  });
  t.same(
    p.packets.map((x) => x.inPort),
    [2, 2, 0],
  );
  t.end();
});
