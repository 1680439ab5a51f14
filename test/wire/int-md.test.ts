// P4.org INT-MD for RoCEv2 (src/wire/int-md.ts): built by a sender after the transport headers, filled
// hop by hop by switches with an incremental ICRC update that must equal a full recomputation wherever the
// hop lies in front of the payload, decoded around the payload, echoed as a Destination-type block.

import t from "tap";
import { computeIcrcV2, readIcrc, verifyIcrcV2 } from "../../src/wire/icrc.js";
import {
  copyIntEcho,
  emptyIntHop,
  INT_HOP_LENGTH,
  IntMode,
  intBlockAt,
  intBlockLength,
  intBytesDelta,
  intExceeded,
  intHopCount,
  intHopOffset,
  intModeAt,
  intOffset,
  intTimestamp,
  pushIntHop,
  readIntHop,
  writeIntCollect,
  writeIntTimestamp,
} from "../../src/wire/int-md.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { buildRoceV2Frame, Opcode, parseRoce } from "../../src/wire/roce.js";
import { decodeRoce, RoceView } from "../../src/wire/roce-view.js";

const BTH = 42;
const IP = 14;
/** BTH (12) + RETH (16). */
const AT = BTH + 28;

function block(mode: IntMode, hops: number): Uint8Array {
  const b = new Uint8Array(intBlockLength(mode, hops));
  if (mode === IntMode.Collect) writeIntCollect(b, 0, hops);
  else writeIntTimestamp(b, 0, 123_456_789_012);
  return b;
}

function dataFrame(payloadLength: number, int: Uint8Array | null) {
  return buildRoceV2Frame({
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
    int,
  });
}

const hop1 = {
  switchId: 0x0a0b0c0d,
  ingressPort: 1,
  egressPort: 3,
  queueId: 3,
  qLen: 52_000,
  ts: 5_000_000_123,
  txBytes: 1_000_064,
  rateBps: 100e9,
};
const hop2 = {
  ...hop1,
  switchId: 2,
  ingressPort: 4,
  egressPort: 7,
  qLen: 0,
  ts: 5_000_001_000,
  rateBps: 400e9,
};

t.test("the block's bytes follow the P4.org INT v2.1 shim and INT-MD header", async (t) => {
  const b = block(IntMode.Collect, 5);
  t.equal(b.length, 8 + 4 + 12 + 5 * 28, "probe marker, shim, INT-MD header, 5 slots of 7 words");
  t.equal(Buffer.from(b.subarray(0, 8)).toString("latin1"), "ROCELAB!", "probe marker");
  t.equal(b[8], 0x10, "shim: Type 1 (INT-MD), NPT 0");
  t.equal(b[9], (12 + 140) / 4, "shim Length: words after the shim");
  t.equal(b[12]! >>> 4, 2, "INT-MD Ver 2");
  t.equal(b[14]! & 0x1f, 7, "Hop ML 7 words");
  t.equal(b[15], 5, "Remaining Hop Count = slots");
  t.equal((b[16]! << 8) | b[17]!, 0xd400, "instruction bits 0, 1, 3, 5");
  t.equal(INT_HOP_LENGTH, 28);
});

t.test("switches fill slots bottom-up; the patched ICRC equals a full recomputation", async (t) => {
  for (const payload of [1000, 1001, 3, 4096]) {
    const frame = dataFrame(payload, block(IntMode.Collect, 5));
    const end = frame.length;
    t.ok(verifyIcrcV2(frame, IP, end), "valid as sent");
    t.equal(intOffset(frame, BTH), AT, "the block sits after BTH and RETH");
    const len = intBlockAt(frame, AT, end - 4);
    t.equal(len, 164);
    t.ok(pushIntHop(frame, AT, end, hop1));
    t.equal(readIcrc(frame, end), computeIcrcV2(frame, IP, end), `payload ${payload}: one hop`);
    t.ok(pushIntHop(frame, AT, end, hop2));
    t.equal(readIcrc(frame, end), computeIcrcV2(frame, IP, end), `payload ${payload}: two hops`);
    t.equal(intHopCount(frame, AT, len), 2);
    t.equal(frame[AT + 15], 3, "Remaining Hop Count decremented twice");
    t.equal(intHopOffset(AT, len, 0), AT + len - 28, "the first switch's record is the bottom slot");
    t.same(readIntHop(frame, intHopOffset(AT, len, 0), emptyIntHop()), hop1);
    t.same(readIntHop(frame, intHopOffset(AT, len, 1), emptyIntHop()), hop2);
    const v = new RoceView();
    t.ok(decodeRoce(v, frame, BTH, end), "headers decode");
    t.equal(v.intOffset, AT);
    t.equal(v.intLength, len);
    t.equal(v.payloadOffset, AT + len, "the payload follows the block");
    t.equal(v.payloadLength, payload, "the block is neither payload nor pad");
    t.equal(frame[v.payloadOffset], 0xab);
    const p = parseRoce(frame, BTH, end);
    t.ok(p.ok && p.value.intLength === len, "parseRoce reports the block");
  }
});

t.test("a hop with no slot left sets E only; timestamps; no marker, no block", async (t) => {
  const frame = dataFrame(16, block(IntMode.Collect, 1));
  const end = frame.length;
  const len = intBlockAt(frame, AT, end - 4);
  t.ok(pushIntHop(frame, AT, end, hop1));
  const before = frame.slice();
  t.notOk(pushIntHop(frame, AT, end, hop2), "no slot left");
  t.ok(intExceeded(frame, AT), "E set");
  t.equal(frame[AT + 12], before[AT + 12]! | 0x04, "only the E bit changed");
  t.same(frame.subarray(AT + 13, end - 4), before.subarray(AT + 13, end - 4));
  t.ok(verifyIcrcV2(frame, IP, end), "ICRC still valid");
  t.equal(intHopCount(frame, AT, len), 1);
  const ts = dataFrame(16, block(IntMode.Timestamp, 0));
  t.equal(intBlockAt(ts, AT, ts.length - 4), 24);
  t.equal(intModeAt(ts, AT), IntMode.Timestamp);
  t.equal(intTimestamp(ts, AT), 123_456_789_012, "the sender's send time");
  const plain = dataFrame(64, null);
  t.equal(intBlockAt(plain, AT, plain.length - 4), 0, "no marker, no block");
  const v = new RoceView();
  t.ok(decodeRoce(v, plain, BTH, plain.length));
  t.equal(v.intOffset, -1);
  t.equal(v.payloadLength, 64);
  const bad = dataFrame(16, block(IntMode.Collect, 2));
  bad[AT + 9] = 200; // shim length past the packet
  t.equal(intBlockAt(bad, AT, bad.length - 4), 0, "a shim that does not fit is no block");
});

t.test("the echo is a Destination-type block with the same INT-MD header and stack", async (t) => {
  const frame = dataFrame(100, block(IntMode.Collect, 3));
  const end = frame.length;
  const len = intBlockAt(frame, AT, end - 4);
  pushIntHop(frame, AT, end, hop1);
  const echo = new Uint8Array(200);
  const n = copyIntEcho(echo, frame, AT, len);
  t.equal(n, len + 4, "4 bytes of destination header");
  t.equal(echo[8], 0x20, "shim Type 2 (destination)");
  t.equal(intBlockAt(echo, 0, n), n);
  t.equal(intModeAt(echo, 0), IntMode.Echo);
  t.equal(intHopCount(echo, 0, n), 1);
  t.same(readIntHop(echo, intHopOffset(0, n, 0), emptyIntHop()), hop1);
});

t.test("tx bytes wrap modulo 2^32", async (t) => {
  const a = emptyIntHop();
  const b = emptyIntHop();
  a.txBytes = 2 ** 32 - 10;
  b.txBytes = 20;
  t.equal(intBytesDelta(b, a), 30);
});
