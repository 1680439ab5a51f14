import t from "tap";
import { fromHex, toHex } from "../../src/wire/bytes.js";
import {
  computeIcrcV1,
  computeIcrcV2,
  readIcrc,
  verifyIcrcV1,
  verifyIcrcV2,
  writeIcrcV1,
  writeIcrcV2,
} from "../../src/wire/icrc.js";
import { NVIDIA_CNP, WRITE_ONLY_FRAME } from "../helpers/vectors.js";

// The CNP vector with a 4-byte option (NOP, NOP, NOP, EOL): IHL 6, total length 64, checksum recomputed,
// ICRC from Python's zlib.crc32 over FF×8 + the masked 24-byte IPv4 header + masked UDP + masked BTH + body.
const CNP_WITH_OPTION =
  "4689004098c64000201166221616160816161607 01010100" +
  "dbae12b700280000" +
  "8100ffff400000d200000000" +
  "00".repeat(16) +
  "fbbaea7c";

// A RoCEv1 RC SEND ONLY, "hello" + 3 pad bytes, GRH traffic class 0x12 and flow label 0x34567 (so the
// masking matters), hop limit 0x40. ICRC from Python's zlib.crc32 over FF×8 + the GRH with byte 0's low
// nibble, bytes 1-3 and byte 7 set to 0xFF + the BTH with byte 4 = 0xFF + payload and pad.
const ROCEV1_SEND_ONLY =
  "020000000002 020000000001 8915" +
  "61234567 0018 1b 40 fe80000000000000000000fffe000001 fe80000000000000000000fffe000002" +
  "0430ffff00000011 80000005" +
  "68656c6c6f 000000" +
  "c343bedf";

t.test("NVIDIA CNP vector: value, byte order, write and verify", (t) => {
  const pkt = fromHex(NVIDIA_CNP);
  t.equal(pkt.length, 60);
  t.equal(computeIcrcV2(pkt, 0, pkt.length), 0xef1bfcda);
  t.equal(readIcrc(pkt, pkt.length), 0xef1bfcda);
  t.ok(verifyIcrcV2(pkt, 0, pkt.length));
  const blank = pkt.slice();
  blank.fill(0, 56);
  writeIcrcV2(blank, 0, blank.length);
  t.equal(toHex(blank.subarray(56)), "dafc1bef", "least-significant byte first");
  t.equal(toHex(blank), toHex(pkt));
  t.end();
});

t.test("RDMA WRITE ONLY frame vector, with the IPv4 header at offset 14", (t) => {
  const frame = fromHex(WRITE_ONLY_FRAME);
  t.equal(computeIcrcV2(frame, 14, frame.length), 0x157aa9b4);
  t.ok(verifyIcrcV2(frame, 14, frame.length));
  const blank = frame.slice();
  blank.fill(0xee, frame.length - 4);
  t.notOk(verifyIcrcV2(blank, 14, blank.length));
  writeIcrcV2(blank, 14, blank.length);
  t.equal(toHex(blank), toHex(frame));
  // Ethernet padding after the IP packet is not covered: the packet ends at ipEnd.
  const padded = new Uint8Array(frame.length + 6);
  padded.set(frame);
  padded.fill(0x5a, frame.length);
  t.ok(verifyIcrcV2(padded, 14, frame.length));
  t.end();
});

t.test(
  "IPv4 options (IHL 6) are covered, with the masks still on TOS, TTL, checksums and BTH byte 4",
  (t) => {
    const pkt = fromHex(CNP_WITH_OPTION);
    t.equal(computeIcrcV2(pkt, 0, pkt.length), 0x7ceabafb);
    t.ok(verifyIcrcV2(pkt, 0, pkt.length));
    const masked = new Set([1, 8, 10, 11, 24 + 6, 24 + 7, 24 + 8 + 4]);
    for (let i = 0; i < pkt.length - 4; i++) {
      const flipped = pkt.slice();
      flipped[i] = flipped[i]! ^ 0x41;
      if (verifyIcrcV2(flipped, 0, flipped.length) !== masked.has(i)) t.fail(`byte ${i}`);
    }
    t.end();
  },
);

t.test("RoCEv2: exactly the variant fields are masked", (t) => {
  const frame = fromHex(WRITE_ONLY_FRAME);
  // Offsets in the frame: TOS 15, TTL 22, IP checksum 24-25, UDP checksum 40-41, BTH byte 4 at 42 + 4.
  const masked = new Set([15, 22, 24, 25, 40, 41, 46]);
  let checked = 0;
  for (let i = 14; i < frame.length - 4; i++) {
    for (const bit of [0x01, 0x80]) {
      const flipped = frame.slice();
      flipped[i] = flipped[i]! ^ bit;
      const good = verifyIcrcV2(flipped, 14, flipped.length);
      if (good !== masked.has(i)) t.fail(`byte ${i} bit 0x${bit.toString(16)}: verify ${good}`);
      checked++;
    }
  }
  t.equal(checked, 2 * (frame.length - 18));
  // The Ethernet header is not part of the ICRC.
  const eth = frame.slice();
  eth[0] = 0xff;
  t.ok(verifyIcrcV2(eth, 14, eth.length));
  // Nor is the ICRC itself: flipping it fails verification.
  const icrc = frame.slice();
  icrc[icrc.length - 1] = icrc[icrc.length - 1]! ^ 1;
  t.notOk(verifyIcrcV2(icrc, 14, icrc.length));
  t.end();
});

t.test("RoCEv1 vector and masking", (t) => {
  const frame = fromHex(ROCEV1_SEND_ONLY);
  t.equal(computeIcrcV1(frame, 14, frame.length), 0xdfbe43c3);
  t.ok(verifyIcrcV1(frame, 14, frame.length));
  const blank = frame.slice();
  blank.fill(0, frame.length - 4);
  writeIcrcV1(blank, 14, blank.length);
  t.equal(toHex(blank), toHex(frame));
  // Masked: low nibble of GRH byte 0 (TC), bytes 1-3 (TC, flow label), byte 7 (hop limit), BTH byte 4.
  let maskedCount = 0;
  for (let i = 14; i < frame.length - 4; i++) {
    for (const bit of [0x01, 0x08, 0x10, 0x80]) {
      const flipped = frame.slice();
      flipped[i] = flipped[i]! ^ bit;
      const maskedBit =
        (i === 14 && bit < 0x10) || i === 15 || i === 16 || i === 17 || i === 21 || i === 14 + 40 + 4;
      const good = verifyIcrcV1(flipped, 14, flipped.length);
      if (good !== maskedBit) t.fail(`byte ${i} bit ${bit}: verify ${good}`);
      if (good) maskedCount++;
    }
  }
  t.equal(maskedCount, 2 + 4 * 5, "IP version bits count, the variant bits do not");
  // The v1 and v2 computations are not interchangeable.
  t.not(computeIcrcV2(frame, 14, frame.length), 0xdfbe43c3);
  t.end();
});

t.test("verify returns false on impossible bounds, never throws", (t) => {
  const pkt = fromHex(NVIDIA_CNP);
  t.notOk(verifyIcrcV2(pkt, 0, pkt.length + 1), "end past the buffer");
  t.notOk(verifyIcrcV2(pkt, -1, pkt.length), "negative offset");
  t.notOk(verifyIcrcV2(pkt, 0, 43), "IPv4 + UDP + BTH + ICRC do not fit");
  t.notOk(verifyIcrcV2(pkt, 10, 5), "end before start");
  const ihl4 = pkt.slice();
  ihl4[0] = 0x44;
  t.notOk(verifyIcrcV2(ihl4, 0, ihl4.length), "IHL below 5");
  const v1 = fromHex(ROCEV1_SEND_ONLY);
  t.notOk(verifyIcrcV1(v1, 14, 14 + 55), "GRH + BTH + ICRC do not fit");
  t.notOk(verifyIcrcV1(v1, 14, v1.length + 1));
  t.notOk(verifyIcrcV1(v1, -2, v1.length));
  // compute on garbage bounds yields a number rather than throwing.
  t.type(computeIcrcV2(new Uint8Array(3), 0, 3), "number");
  t.type(computeIcrcV2(new Uint8Array(0), 5, 2), "number");
  t.type(computeIcrcV1(new Uint8Array(10), 0, 10), "number");
  t.end();
});

t.test("the scratch buffer carries nothing between calls", (t) => {
  const v2 = fromHex(WRITE_ONLY_FRAME);
  const opt = fromHex(CNP_WITH_OPTION);
  const v1 = fromHex(ROCEV1_SEND_ONLY);
  for (let i = 0; i < 3; i++) {
    t.equal(computeIcrcV2(opt, 0, opt.length), 0x7ceabafb);
    t.equal(computeIcrcV1(v1, 14, v1.length), 0xdfbe43c3);
    t.equal(computeIcrcV2(v2, 14, v2.length), 0x157aa9b4);
  }
  t.end();
});
