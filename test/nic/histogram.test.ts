import t from "tap";
import { Histogram } from "../../src/nic/histogram.js";
import {
  PayloadFactory,
  patternByte,
  patternOffset,
  payloadSentAt,
} from "../../src/nic/transport/payload.js";

t.test("histogram: exact small values, bounded relative error above, percentiles", (t) => {
  const h = new Histogram();
  for (let v = 1; v <= 1000; v++) h.record(v);
  t.equal(h.count, 1000);
  const s = h.snapshot();
  t.equal(s.min, 1);
  t.equal(s.max, 1000);
  t.equal(s.mean, 500.5);
  t.ok(Math.abs(s.p50 - 500) / 500 < 0.02, `p50 ${s.p50}`);
  t.ok(Math.abs(s.p99 - 990) / 990 < 0.02, `p99 ${s.p99}`);
  t.ok(Math.abs(s.p999 - 999) / 999 < 0.02, `p99.9 ${s.p999}`);
  const small = new Histogram();
  for (const v of [3, 3, 7, 40]) small.record(v);
  t.equal(small.percentile(0.5), 3, "values below 64 are exact");
  t.equal(small.percentile(0.75), 7);
  t.equal(small.percentile(1), 40);
  t.equal(new Histogram().percentile(0.5), 0, "empty: 0");
  const big = new Histogram();
  big.record(12_345_678);
  t.equal(big.percentile(0.5), 12_345_678, "clamped to the exact min/max");
  for (const v of [12_345_678, 2e9, 5e9]) big.record(v);
  const p = big.percentile(0.6);
  t.ok(Math.abs(p - 2e9) / 2e9 < 0.02, `2 s within 2 %: ${p}`);
  t.equal(big.snapshot().max, 5e9, "values above 2^32 ns keep their max");
  t.end();
});

t.test("histogram: merge and snapshot round trip", (t) => {
  const a = new Histogram();
  const b = new Histogram();
  for (let i = 0; i < 500; i++) a.record(1000 + i);
  for (let i = 0; i < 500; i++) b.record(5000 + i);
  const all = new Histogram();
  all.merge(a);
  all.merge(b);
  t.equal(all.count, 1000);
  t.ok(all.percentile(0.25) < 1500 && all.percentile(0.75) > 5000);
  const back = Histogram.fromSnapshot(all.snapshot());
  t.same(back.snapshot(), all.snapshot(), "a snapshot rebuilds the same histogram");
  all.clear();
  t.equal(all.count, 0);
  t.end();
});

t.test("payload: timestamp, per-(QPN, PSN) pattern, verification", (t) => {
  const f = new PayloadFactory(4096);
  const p = f.fill(7, 100, 4096, 123_456_789_012);
  t.equal(payloadSentAt(p, 0), 123_456_789_012, "send time, u64 big-endian");
  const off = patternOffset(7, 100);
  t.ok(off >= 0 && off < 256);
  t.equal(p[8], patternByte(off), "then the pattern window");
  t.equal(p[4095], patternByte(off + 4087));
  const frame = new Uint8Array(4196);
  frame.set(p, 100);
  t.ok(f.verify(frame, 100, 4096, 7, 100), "its own bytes verify");
  t.notOk(f.verify(frame, 100, 4096, 7, 101), "another PSN does not");
  t.notOk(f.verify(frame, 100, 4096, 8, 100), "another QPN does not");
  frame[3000] = frame[3000]! ^ 1;
  t.notOk(f.verify(frame, 100, 4096, 7, 100), "a flipped bit does not");
  t.not(patternOffset(7, 100), patternOffset(7, 101), "neighbouring PSNs use different windows");
  const short = f.fill(7, 5, 3, 999);
  t.same(
    [...short],
    [
      patternByte(patternOffset(7, 5)),
      patternByte(patternOffset(7, 5) + 1),
      patternByte(patternOffset(7, 5) + 2),
    ],
    "under 8 bytes: pattern only",
  );
  const shortFrame = new Uint8Array(10);
  shortFrame.set(short, 2);
  t.ok(f.verify(shortFrame, 2, 3, 7, 5));
  t.notOk(f.verify(frame, 100, 5000, 7, 100), "longer than the MTU: no");
  t.end();
});
