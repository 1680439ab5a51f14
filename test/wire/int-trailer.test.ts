// The INT trailer (src/wire/int-trailer.ts): built by a sender, filled hop by hop by switches with an
// incremental ICRC update that must equal a full recomputation, decoded past the RoCE headers.

import t from "tap";
import { computeIcrcV2, readIcrc, verifyIcrcV2 } from "../../src/wire/icrc.js";
import {
  BTH_INT_FLAG,
  emptyIntHop,
  flagInt,
  IntMode,
  intBytesDelta,
  intHopCount,
  intHopOffset,
  intMode,
  intTimeDelta,
  intTimestamp,
  intTrailerAt,
  intTrailerLength,
  pushIntHop,
  readIntHop,
  writeIntTrailer,
} from "../../src/wire/int-trailer.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { buildRoceV2Frame, Opcode } from "../../src/wire/roce.js";
import { decodeRoce, RoceView } from "../../src/wire/roce-view.js";

const BTH = 42;
const IP = 14;

function dataFrame(payloadLength: number, mode: IntMode, hops: number) {
  const trailer = new Uint8Array(intTrailerLength(mode, hops));
  writeIntTrailer(trailer, 0, mode, hops, 123_456_789_012);
  const frame = buildRoceV2Frame({
    srcMac: 0x02_00_00_00_00_01,
    dstMac: 0x02_00_00_00_00_02,
    srcIp: 0x0a000001,
    dstIp: 0x0a000002,
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: 0xc001,
    opcode: Opcode.RdmaWriteOnly,
    destQp: 0x12,
    psn: 7,
    reth: { va: 0x1000n, rkey: 1, dmaLength: payloadLength },
    payload: new Uint8Array(payloadLength).fill(0xab),
    trailer,
  });
  flagInt(frame, BTH);
  return frame;
}

t.test("switches fill hop slots; the patched ICRC equals a full recomputation", async (t) => {
  for (const payload of [1000, 1001, 3]) {
    const frame = dataFrame(payload, IntMode.Collect, 5);
    const end = frame.length;
    t.ok(verifyIcrcV2(frame, IP, end), "valid as sent (the flag bit is masked)");
    t.equal(intTrailerAt(frame, BTH, end), 84, "trailer: 5 hops of 16 bytes and the shim");
    t.ok(pushIntHop(frame, end, 0x0102, 3, 100e9, 5_000_000_123, 1_000_064, 52_000));
    t.ok(pushIntHop(frame, end, 0x0203, 7, 400e9, 5_000_001_000, 64, 0));
    t.equal(readIcrc(frame, end), computeIcrcV2(frame, IP, end), `payload ${payload}: incremental ICRC`);
    t.ok(verifyIcrcV2(frame, IP, end));
    t.equal(intHopCount(frame, end), 2);
    const h = readIntHop(frame, intHopOffset(frame, end, 0), emptyIntHop());
    t.same(h, {
      switchId: 0x0102,
      egressPort: 3,
      rateBps: 100e9,
      ts: 5_000_000_123 % 2 ** 32,
      txUnits: 1_000_064 / 64,
      qLen: 52_000,
    });
    const v = new RoceView();
    t.ok(decodeRoce(v, frame, BTH, end, intTrailerAt(frame, BTH, end)), "headers decode");
    t.equal(v.payloadLength, payload, "the trailer is neither payload nor pad");
    t.equal(v.padCount, -payload & 3);
  }
});

t.test("full slots are left alone; other modes are not stamped by the codec's reader", async (t) => {
  const frame = dataFrame(16, IntMode.Collect, 1);
  const end = frame.length;
  t.ok(pushIntHop(frame, end, 1, 1, 25e9, 1, 0, 0));
  const before = frame.slice();
  t.notOk(pushIntHop(frame, end, 2, 2, 25e9, 2, 0, 0), "no slot left");
  t.same(frame, before, "nothing written");
  const ts = dataFrame(16, IntMode.Timestamp, 0);
  t.equal(intTrailerAt(ts, BTH, ts.length), 12);
  t.equal(intMode(ts, ts.length), IntMode.Timestamp);
  t.equal(intTimestamp(ts, ts.length), 123_456_789_012, "the sender's send time");
  const plain = dataFrame(16, IntMode.Timestamp, 0);
  plain[BTH + 4] = plain[BTH + 4]! & ~BTH_INT_FLAG;
  t.equal(intTrailerAt(plain, BTH, plain.length), 0, "no flag, no trailer");
});

t.test("deltas wrap modulo the field widths", async (t) => {
  const a = emptyIntHop();
  const b = emptyIntHop();
  a.ts = 2 ** 32 - 10;
  b.ts = 20;
  a.txUnits = 2 ** 24 - 1;
  b.txUnits = 1;
  t.equal(intTimeDelta(b, a), 30);
  t.equal(intBytesDelta(b, a), 2 * 64);
});
