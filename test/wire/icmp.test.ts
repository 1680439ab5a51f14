import t from "tap";
import { fromHex, internetChecksum, parseIp, toHex } from "../../src/wire/bytes.js";
import {
  buildIcmpFrame,
  ICMP_HEADER_LENGTH,
  IcmpTimeExceededCode,
  IcmpType,
  IcmpUnreachableCode,
  icmpChecksum,
  icmpEchoLength,
  icmpErrorLength,
  icmpLength,
  icmpQuoteLength,
  parseIcmp,
  serializeIcmp,
  serializeIcmpEcho,
  serializeIcmpError,
} from "../../src/wire/icmp.js";
import { IpProtocol, parseIpv4 } from "../../src/wire/ipv4.js";
import { guarded } from "../helpers/guarded.js";

const H1 = parseIp("10.0.0.1")!;
const H2 = parseIp("10.0.0.2")!;
const ROUTER = parseIp("10.0.0.254")!;

// Every frame below was decoded by Wireshark 4.0 with its ICMP and IPv4 checksums reported correct.

// Echo request 10.0.0.1 -> 10.0.0.2, id 0x1234, seq 1, 9 data bytes (odd length), padded to 60.
const ECHO_FRAME =
  "000000000002 000000000001 0800" +
  "4500 0025 0000 0000 4001 66d6 0a000001 0a000002" +
  "08 00 ccb6 1234 0001 010203040506070809" +
  "00".repeat(9);

// The datagram the errors below are about: UDP 10.0.0.1:49152 -> 10.0.1.2:5000, TTL 1, "hello world".
const ORIGINAL =
  "4500 0027 0000 4000 0111 64c4 0a000001 0a000102" + "c000 1388 0013 856e" + "68656c6c6f20776f726c64";
// Its IP header and first 8 payload bytes: what an error quotes.
const QUOTE = "4500 0027 0000 4000 0111 64c4 0a000001 0a000102 c000 1388 0013 856e";

const TTL_EXCEEDED_FRAME =
  "000000000001 000000000003 0800" +
  "45c0 0038 0000 0000 4001 6507 0a0000fe 0a000001" +
  "0b 00 9bf5 00000000" +
  QUOTE;

const FRAG_NEEDED_FRAME =
  "000000000001 000000000003 0800" +
  "4500 0038 0000 0000 4001 65c7 0a0000fe 0a000001" +
  "03 04 9e15 0000 05dc" +
  QUOTE;

function hex(s: string): string {
  return s.replace(/\s+/g, "");
}

t.test("echo request frame, byte for byte, and parsed back", (t) => {
  const data = fromHex("010203040506070809");
  const frame = buildIcmpFrame({
    srcMac: 1,
    dstMac: 2,
    srcIp: H1,
    dstIp: H2,
    message: { type: IcmpType.EchoRequest, identifier: 0x1234, sequence: 1, data },
  });
  t.equal(toHex(frame), hex(ECHO_FRAME));
  const ip = parseIpv4(frame, 14);
  t.ok(ip.ok);
  if (!ip.ok) return t.end();
  t.equal(ip.value.protocol, IpProtocol.ICMP);
  t.equal(ip.value.dscp, 0, "DSCP defaults to 0");
  t.equal(ip.value.dontFragment, false);
  t.equal(ip.value.ttl, 64);
  const p = parseIcmp(frame, 34, 14 + ip.value.totalLength);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.same(p.value, {
    type: IcmpType.EchoRequest,
    code: 0,
    identifier: 0x1234,
    sequence: 1,
    dataOffset: 42,
    dataLength: 9,
  });
  t.end();
});

t.test("echo reply: serializer at an offset", (t) => {
  const buf = new Uint8Array(3 + icmpEchoLength(9));
  const data = fromHex("010203040506070809");
  const end = serializeIcmpEcho({ type: IcmpType.EchoReply, identifier: 0x1234, sequence: 1, data }, buf, 3);
  t.equal(end, 3 + 17);
  // Type 8 -> 0 lowers the sum by 0x0800, so the checksum rises by 0x0800.
  t.equal(toHex(buf.subarray(3)), hex("00 00 d4b6 1234 0001 010203040506070809"));
  t.equal(internetChecksum(buf, 3, 17), 0);
  const noData = new Uint8Array(ICMP_HEADER_LENGTH);
  t.equal(serializeIcmpEcho({ type: IcmpType.EchoRequest, identifier: 0, sequence: 0 }, noData, 0), 8);
  t.equal(toHex(noData), "0800f7ff00000000");
  t.end();
});

t.test("time exceeded with DSCP 48 quotes header + 8 bytes", (t) => {
  const original = fromHex(ORIGINAL);
  const frame = buildIcmpFrame({
    srcMac: 3,
    dstMac: 1,
    srcIp: ROUTER,
    dstIp: H1,
    dscp: 48,
    message: { type: IcmpType.TimeExceeded, code: IcmpTimeExceededCode.Ttl, original },
  });
  t.equal(frame.length, 70, "longer than the minimum: no padding");
  t.equal(toHex(frame), hex(TTL_EXCEEDED_FRAME));
  const p = parseIcmp(frame, 34, frame.length);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.same(p.value, {
    type: IcmpType.TimeExceeded,
    code: 0,
    nextHopMtu: null,
    dataOffset: 42,
    dataLength: 28,
  });
  t.equal(toHex(frame.subarray(42)), hex(QUOTE));
  t.end();
});

t.test("fragmentation needed carries the next-hop MTU", (t) => {
  const original = fromHex(ORIGINAL);
  const frame = buildIcmpFrame({
    srcMac: 3,
    dstMac: 1,
    srcIp: ROUTER,
    dstIp: H1,
    message: {
      type: IcmpType.DestinationUnreachable,
      code: IcmpUnreachableCode.FragmentationNeeded,
      original,
      nextHopMtu: 1500,
    },
  });
  t.equal(toHex(frame), hex(FRAG_NEEDED_FRAME));
  const p = parseIcmp(frame, 34, frame.length);
  t.ok(p.ok);
  if (p.ok && p.value.type === IcmpType.DestinationUnreachable) {
    t.equal(p.value.code, IcmpUnreachableCode.FragmentationNeeded);
    t.equal(p.value.nextHopMtu, 1500);
  } else t.fail("not a destination unreachable");

  // Other unreachable codes leave the rest-of-header zero, even when an MTU is passed.
  for (const code of [0, 1, 2, 3]) {
    const buf = new Uint8Array(icmpErrorLength(original));
    const end = serializeIcmpError(
      { type: IcmpType.DestinationUnreachable, code, original, nextHopMtu: 1500 },
      buf,
      0,
    );
    t.equal(end, buf.length);
    t.equal(toHex(buf.subarray(4, 8)), "00000000", `code ${code}`);
    const q = parseIcmp(buf);
    t.ok(q.ok, `code ${code}`);
    if (q.ok && q.value.type === IcmpType.DestinationUnreachable) {
      t.equal(q.value.code, code);
      t.equal(q.value.nextHopMtu, null);
    }
  }
  t.end();
});

t.test("how much of the original is quoted", (t) => {
  const original = fromHex(ORIGINAL);
  t.equal(icmpQuoteLength(original), 28);
  t.equal(icmpErrorLength(original), 36);
  // Ethernet padding after the datagram's total length is not quoted.
  const tiny = fromHex("4500 0017 0000 4000 0111 0000 0a000001 0a000102 c0 00 13" + "00".repeat(23));
  t.equal(icmpQuoteLength(tiny), 23, "a datagram with 3 payload bytes quotes all 23");
  // The caller handed fewer bytes than the total length: quote what is there.
  t.equal(icmpQuoteLength(original.subarray(0, 25)), 25);
  t.equal(icmpQuoteLength(original.subarray(0, 10)), 10, "not even a header");
  t.equal(icmpQuoteLength(new Uint8Array(0)), 0);
  // IHL 6 (4 option bytes): header 24 + 8.
  const withOptions = fromHex("4600 0030 0000 4000 0111 0000 0a000001 0a000102 01010101" + "aa".repeat(28));
  t.equal(icmpQuoteLength(withOptions), 32);
  // An implausible total length (below the header) is ignored.
  const bogus = fromHex("4500 0004 0000 4000 0111 0000 0a000001 0a000102" + "bb".repeat(20));
  t.equal(icmpQuoteLength(bogus), 28);
  // IHL below 5 is taken as 20.
  const badIhl = fromHex("4100 0030 0000 4000 0111 0000 0a000001 0a000102" + "cc".repeat(28));
  t.equal(icmpQuoteLength(badIhl), 28);

  const short = original.subarray(0, 25);
  const buf = new Uint8Array(icmpErrorLength(short));
  serializeIcmpError({ type: IcmpType.TimeExceeded, code: 0, original: short }, buf, 0);
  t.equal(toHex(buf.subarray(8)), toHex(short));
  t.ok(parseIcmp(buf).ok);
  t.end();
});

t.test("generic serialize and length dispatch on the type", (t) => {
  const original = fromHex(ORIGINAL);
  const echo = { type: IcmpType.EchoRequest, identifier: 7, sequence: 9, data: new Uint8Array(5) } as const;
  const err = { type: IcmpType.DestinationUnreachable, code: IcmpUnreachableCode.Port, original } as const;
  t.equal(icmpLength(echo), 13);
  t.equal(icmpLength({ type: IcmpType.EchoReply, identifier: 7, sequence: 9 }), 8);
  t.equal(icmpLength(err), 36);
  const buf = new Uint8Array(13 + 36);
  const mid = serializeIcmp(echo, buf, 0);
  t.equal(mid, 13);
  t.equal(serializeIcmp(err, buf, mid), 49);
  const a = parseIcmp(buf, 0, 13);
  const b = parseIcmp(buf, 13, 49);
  t.ok(a.ok && a.value.type === IcmpType.EchoRequest && a.value.identifier === 7 && a.value.sequence === 9);
  t.ok(
    b.ok &&
      b.value.type === IcmpType.DestinationUnreachable &&
      b.value.code === 3 &&
      b.value.dataOffset === 21,
  );
  t.end();
});

t.test("frame options: TTL, identification, DF", (t) => {
  const frame = buildIcmpFrame({
    srcMac: 1,
    dstMac: 2,
    srcIp: H1,
    dstIp: H2,
    ttl: 255,
    identification: 0xabcd,
    dontFragment: true,
    message: { type: IcmpType.EchoReply, identifier: 1, sequence: 2 },
  });
  t.equal(frame.length, 60, "padded to the Ethernet minimum");
  const ip = parseIpv4(frame, 14);
  t.ok(ip.ok);
  if (!ip.ok) return t.end();
  t.equal(ip.value.ttl, 255);
  t.equal(ip.value.identification, 0xabcd);
  t.equal(ip.value.dontFragment, true);
  t.equal(ip.value.totalLength, 28);
  t.ok(parseIcmp(frame, 34, 42).ok);
  t.end();
});

t.test("malformed messages", (t) => {
  const echo = fromHex(ECHO_FRAME).subarray(34, 51);
  const flipped = echo.slice();
  flipped[10] = flipped[10]! ^ 0x40;
  const cases: [string, Uint8Array, number, number, string, number][] = [
    ["shorter than the header", echo.subarray(0, 7), 0, 7, "truncated", 0],
    ["end before the header ends", echo, 0, 4, "truncated", 0],
    ["end past the buffer", echo.subarray(0, 12), 0, 17, "truncated", 0],
    ["offset past the end", echo, 20, 17, "truncated", 20],
    ["negative offset", echo, -2, 17, "truncated", -2],
    ["a data bit flipped", flipped, 0, 17, "bad-checksum", 2],
    ["a byte missing", echo, 0, 16, "bad-checksum", 2],
  ];
  for (const [name, buf, offset, end, code, at] of cases) {
    const p = parseIcmp(buf, offset, end);
    t.notOk(p.ok, name);
    if (!p.ok) {
      t.equal(p.error.code, code, name);
      t.equal(p.error.offset, at, name);
    }
  }
  const bad = parseIcmp(flipped, 0, 17);
  if (!bad.ok) t.match(bad.error.message, /checksum 0xccb6, expected 0x8cb6/);
  t.equal(icmpChecksum(flipped, 0, 17), 0x8cb6);
  t.equal(icmpChecksum(echo, 0, 17), 0xccb6);

  // Types we do not speak, each with a correct checksum: timestamp (13), redirect (5).
  for (const type of [13, 5, 255]) {
    const m = fromHex("00 00 0000 00000000");
    m[0] = type;
    m.set(fromHex(icmpChecksum(m, 0, 8).toString(16).padStart(4, "0")), 2);
    const p = parseIcmp(m);
    t.notOk(p.ok, `type ${type}`);
    if (!p.ok) t.equal(p.error.code, "bad-value", `type ${type}`);
  }
  t.end();
});

t.test("no read out of bounds on any prefix or end", (t) => {
  const frame = fromHex(TTL_EXCEEDED_FRAME);
  for (let n = 0; n <= frame.length; n++) {
    const buf = guarded(frame.slice(0, n));
    for (const end of [n, frame.length, n + 5]) {
      const p = parseIcmp(buf, 34, end);
      if (p.ok && end !== frame.length) t.fail(`accepted end ${end}`);
    }
  }
  t.ok(parseIcmp(guarded(frame.slice()), 34, frame.length).ok, "the whole message parses through the guard");
  t.end();
});
