import t from "tap";
import { fromHex, internetChecksum, parseIp, toHex } from "../../src/wire/bytes.js";
import {
  parseUdp,
  ROCEV2_UDP_PORT,
  serializeUdp,
  UDP_HEADER_LENGTH,
  udpChecksum,
  udpDstPort,
  udpLength,
  udpSrcPort,
  VXLAN_UDP_PORT,
} from "../../src/wire/udp.js";
import { guarded } from "../helpers/guarded.js";

// 10.0.0.1 -> 10.0.1.2, 49152 -> 5000, "hello world". Wireshark 4.0 reports the checksum 0x856e correct.
const SRC = parseIp("10.0.0.1")!;
const DST = parseIp("10.0.1.2")!;
const HELLO = "c000 1388 0013 856e 68656c6c6f20776f726c64";

t.test("well-known ports", (t) => {
  t.equal(ROCEV2_UDP_PORT, 4791);
  t.equal(VXLAN_UDP_PORT, 4789);
  t.equal(UDP_HEADER_LENGTH, 8);
  t.end();
});

t.test("parses a known datagram", (t) => {
  const buf = fromHex(HELLO);
  const p = parseUdp(buf, 0, buf.length);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.same(p.value, {
    srcPort: 49152,
    dstPort: 5000,
    length: 19,
    checksum: 0x856e,
    payloadOffset: 8,
    payloadLength: 11,
  });
  t.equal(udpSrcPort(buf, 0), 49152);
  t.equal(udpDstPort(buf, 0), 5000);
  t.equal(udpLength(buf, 0), 19);
  t.end();
});

t.test("serialize writes the header and returns the offset past it", (t) => {
  const buf = new Uint8Array(4 + 8 + 11);
  const end = serializeUdp({ srcPort: 49152, dstPort: 5000, payloadLength: 11 }, buf, 4);
  t.equal(end, 12);
  t.equal(
    toHex(buf.subarray(0, 12)),
    "00000000" + "c000" + "1388" + "0013" + "0000",
    "checksum defaults to 0",
  );
  buf.set(new TextEncoder().encode("hello world"), end);
  const p = parseUdp(buf, 4, buf.length);
  t.ok(p.ok);
  if (p.ok) t.equal(p.value.payloadOffset, 12);
  serializeUdp({ srcPort: 1, dstPort: ROCEV2_UDP_PORT, payloadLength: 0, checksum: 0xbeef }, buf, 0);
  t.equal(toHex(buf.subarray(0, 8)), "0001" + "12b7" + "0008" + "beef");
  t.end();
});

t.test("checksum over the IPv4 pseudo-header", (t) => {
  const buf = fromHex(HELLO);
  t.equal(udpChecksum(SRC, DST, buf, 0, 19), 0x856e, "matches the carried (Wireshark-verified) checksum");
  // The carried field does not enter the computation.
  buf[6] = 0;
  buf[7] = 0;
  t.equal(udpChecksum(SRC, DST, buf, 0, 19), 0x856e);
  t.equal(udpChecksum(SRC, parseIp("10.0.1.3")!, buf, 0, 19), 0x856d, "the destination address is covered");

  // At an odd position in a bigger buffer, with the pseudo-header summed independently: all words
  // including the checksum fold to 0xffff, so the complement is 0.
  const big = new Uint8Array(3 + 19);
  big.set(fromHex(HELLO), 3);
  const pseudo = fromHex("0a000001 0a000102 0011 0013");
  const all = new Uint8Array(pseudo.length + 19);
  all.set(pseudo, 0);
  all.set(big.subarray(3), pseudo.length);
  t.equal(udpChecksum(SRC, DST, big, 3, 19), 0x856e);
  t.equal(internetChecksum(all, 0, all.length), 0);
  t.end();
});

t.test("a computed checksum of 0 is sent as 0xffff", (t) => {
  // 10.0.0.1 -> 10.0.0.2, ports 1 -> 2, payload 0xebd4: the one's-complement sum is 0xffff.
  const buf = fromHex("0001 0002 000a 0000 ebd4");
  t.equal(udpChecksum(SRC, parseIp("10.0.0.2")!, buf, 0, 10), 0xffff);
  t.end();
});

t.test("malformed datagrams are typed errors", (t) => {
  const good = fromHex(HELLO);
  const cases: [string, Uint8Array, number, number, string][] = [
    ["header cut", good.subarray(0, 7), 0, 7, "truncated"],
    ["end before the header ends", good, 0, 5, "truncated"],
    ["end past the buffer", good.subarray(0, 10), 0, 19, "truncated"],
    ["offset past the end", good, 30, 19, "truncated"],
    ["negative offset", good, -1, 19, "truncated"],
    ["length field below 8", fromHex("c000 1388 0007 0000 00"), 0, 9, "bad-length"],
    ["length field 0", fromHex("c000 1388 0000 0000"), 0, 8, "bad-length"],
    ["length field beyond the IP payload", good, 0, 18, "bad-length"],
  ];
  for (const [name, buf, offset, end, code] of cases) {
    const p = parseUdp(buf, offset, end);
    t.notOk(p.ok, name);
    if (!p.ok) t.equal(p.error.code, code, name);
  }
  t.end();
});

t.test("a datagram shorter than the IP payload is accepted and bounded by its length", (t) => {
  // Linux trims to the UDP length; the extra byte is not payload.
  const buf = fromHex(`${HELLO} 00`);
  const p = parseUdp(buf, 0, buf.length);
  t.ok(p.ok);
  if (p.ok) t.equal(p.value.payloadLength, 11);
  t.end();
});

t.test("no read out of bounds on any prefix or garbage", (t) => {
  const good = fromHex(HELLO);
  for (let n = 0; n <= good.length; n++) {
    const buf = guarded(good.slice(0, n));
    for (let end = 0; end <= good.length + 1; end++) {
      const p = parseUdp(buf, 0, end);
      if (p.ok && end < 19) t.fail(`accepted a ${end}-byte IP payload`);
    }
  }
  let seed = 1;
  for (let i = 0; i < 500; i++) {
    const bytes = new Uint8Array(i % 24);
    for (let j = 0; j < bytes.length; j++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      bytes[j] = seed >>> 24;
    }
    const p = parseUdp(guarded(bytes), i % 3, bytes.length);
    if (p.ok && p.value.payloadOffset + p.value.payloadLength > bytes.length)
      t.fail("payload past the buffer");
  }
  t.pass("no throw");
  t.end();
});
