import t from "tap";
import { fromHex, internetChecksum, ipToString, parseIp, toHex } from "../../src/wire/bytes.js";
import {
  decrementIpv4Ttl,
  Ecn,
  IpProtocol,
  ipv4Dscp,
  ipv4Ecn,
  ipv4HeaderChecksum,
  parseIpv4,
  serializeIpv4,
  setIpv4Dscp,
  setIpv4Ecn,
  setIpv4Ttl,
} from "../../src/wire/ipv4.js";

// The IPv4 header of NVIDIA's RoCEv2 CNP example (NVIDIA community, "RoCEv2 CNP Packet Format Example"): checksum 0x6927.
const NVIDIA_CNP_IP = "4589003c98c640002011692716161608 16161607";

t.test("parses a known header and its fields", (t) => {
  const buf = fromHex(`${NVIDIA_CNP_IP} ${"00".repeat(40)}`);
  const p = parseIpv4(buf);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  const h = p.value;
  t.equal(h.dscp, 34);
  t.equal(h.ecn, Ecn.Ect1);
  t.equal(h.totalLength, 60);
  t.equal(h.identification, 0x98c6);
  t.equal(h.dontFragment, true);
  t.equal(h.ttl, 0x20);
  t.equal(h.protocol, IpProtocol.UDP);
  t.equal(h.checksum, 0x6927);
  t.equal(ipToString(h.src), "22.22.22.8");
  t.equal(ipToString(h.dst), "22.22.22.7");
  t.equal(ipv4HeaderChecksum(buf, 0), 0x6927);
  t.end();
});

t.test("serialize writes a valid checksum and the RoCE defaults", (t) => {
  const buf = new Uint8Array(20);
  serializeIpv4(
    {
      src: parseIp("10.0.0.1")!,
      dst: parseIp("10.0.0.2")!,
      protocol: IpProtocol.UDP,
      payloadLength: 48,
      dscp: 0,
      ecn: Ecn.Ect0,
      identification: 1,
    },
    buf,
  );
  // Same header as test/helpers/vectors.ts's second vector (checksum 0x26a4).
  t.equal(toHex(buf), "4502004400014000401126a40a0000010a000002");
  t.equal(internetChecksum(buf, 0, 20), 0);
  t.end();
});

t.test("in-place ECN, DSCP and TTL rewrites keep the checksum valid", (t) => {
  const buf = new Uint8Array(20);
  serializeIpv4(
    { src: 0x0a000001, dst: 0x0a010203, protocol: 17, payloadLength: 100, dscp: 26, ecn: Ecn.Ect0, ttl: 64 },
    buf,
  );
  setIpv4Ecn(buf, 0, Ecn.Ce);
  t.equal(ipv4Ecn(buf, 0), Ecn.Ce);
  t.equal(ipv4Dscp(buf, 0), 26, "ECN rewrite keeps DSCP");
  t.equal(internetChecksum(buf, 0, 20), 0, "checksum valid after CE");
  setIpv4Dscp(buf, 0, 48);
  t.equal(ipv4Dscp(buf, 0), 48);
  t.equal(ipv4Ecn(buf, 0), Ecn.Ce, "DSCP rewrite keeps ECN");
  t.equal(internetChecksum(buf, 0, 20), 0, "checksum valid after DSCP");
  for (let ttl = 64; ttl > 0; ttl--) {
    t.equal(decrementIpv4Ttl(buf, 0), ttl - 1);
    if (internetChecksum(buf, 0, 20) !== 0) t.fail(`checksum broken at ttl ${ttl - 1}`);
  }
  t.equal(decrementIpv4Ttl(buf, 0), 0, "never wraps below zero");
  setIpv4Ttl(buf, 0, 255);
  t.equal(internetChecksum(buf, 0, 20), 0);
  // Incremental update agrees with a full recomputation on every ECN/DSCP value.
  for (let dscp = 0; dscp < 64; dscp++) {
    for (let ecn = 0; ecn < 4; ecn++) {
      setIpv4Dscp(buf, 0, dscp);
      setIpv4Ecn(buf, 0, ecn as Ecn);
      if (ipv4HeaderChecksum(buf, 0) !== ((buf[10]! << 8) | buf[11]!)) t.fail(`dscp ${dscp} ecn ${ecn}`);
    }
  }
  t.end();
});

t.test("malformed headers", (t) => {
  const good = new Uint8Array(40);
  serializeIpv4({ src: 1, dst: 2, protocol: 17, payloadLength: 20 }, good);
  const cases: [string, Uint8Array, string][] = [
    ["short", good.subarray(0, 19), "truncated"],
    ["version 6", Uint8Array.from(good, (b, i) => (i === 0 ? 0x65 : b)), "bad-version"],
    ["IHL 4", Uint8Array.from(good, (b, i) => (i === 0 ? 0x44 : b)), "bad-length"],
    ["total length beyond the buffer", good.subarray(0, 30), "truncated"],
    ["flipped bit", Uint8Array.from(good, (b, i) => (i === 15 ? b ^ 1 : b)), "bad-checksum"],
  ];
  for (const [name, buf, code] of cases) {
    const p = parseIpv4(buf);
    t.notOk(p.ok, name);
    if (!p.ok) t.equal(p.error.code, code, name);
  }
  const totalTooSmall = good.slice();
  totalTooSmall[2] = 0;
  totalTooSmall[3] = 10;
  const p = parseIpv4(totalTooSmall, 0, { verifyChecksum: false });
  t.notOk(p.ok);
  if (!p.ok) t.equal(p.error.code, "bad-length");
  t.end();
});
