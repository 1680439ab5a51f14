import t from "tap";
import { fromHex, ipToString, parseIp, toHex } from "../../src/wire/bytes.js";
import { EtherType, parseEthernet } from "../../src/wire/ethernet.js";
import { Ecn, IPV4_FLAG_MF, parseIpv4 } from "../../src/wire/ipv4.js";
import { parseUdp, VXLAN_UDP_PORT } from "../../src/wire/udp.js";
import {
  buildVxlanFrame,
  MAX_VNI,
  parseVxlan,
  serializeVxlan,
  VXLAN_HEADER_LENGTH,
  VXLAN_OVERHEAD,
  vxlanSourcePort,
} from "../../src/wire/vxlan.js";
import { guarded } from "../helpers/guarded.js";

// Inner frame: UDP 10.0.0.1:49152 -> 10.0.1.2:4791, DSCP 26 + ECT(0) (TOS 0x6a), "hello world".
const INNER_ETH = "020000000002 020000000001 0800";
const INNER_IP = "456a 0027 0000 4000 4011 255a 0a000001 0a000102";
const INNER_UDP = "c000 12b7 0013 0000";
const INNER = INNER_ETH + INNER_IP + INNER_UDP + "68656c6c6f20776f726c64";

// Wireshark 4.0 decodes it as VXLAN VNI 5000 with correct IPv4 checksums, outer TOS 0x6a.
const OUTER =
  "02000000000b 02000000000a 0800" +
  "456a 0059 0000 4000 4011 b8d6 c0a80001 c0a80002" +
  "ce99 12b5 0045 0000" +
  "08 000000 001388 00" +
  INNER;

const BASE = {
  outerSrcMac: 0x02000000000a,
  outerDstMac: 0x02000000000b,
  outerSrcIp: parseIp("192.168.0.1")!,
  outerDstIp: parseIp("192.168.0.2")!,
  vni: 5000,
};

function hex(s: string): string {
  return s.replace(/\s+/g, "");
}

t.test("header codec", (t) => {
  const buf = new Uint8Array(12).fill(0xee);
  t.equal(serializeVxlan(5000, buf, 2), 10);
  t.equal(toHex(buf), "eeee" + "08000000" + "001388" + "00" + "eeee");
  const p = parseVxlan(buf, 2, 10);
  t.ok(p.ok);
  if (p.ok) t.same(p.value, { vni: 5000, innerOffset: 10, innerLength: 0 });
  serializeVxlan(MAX_VNI, buf, 0);
  t.equal(toHex(buf.subarray(0, 8)), "08000000ffffff00");
  serializeVxlan(0x1_000_001, buf, 0);
  t.equal(toHex(buf.subarray(4, 7)), "000001", "masked to 24 bits");
  t.end();
});

t.test("reserved bits are ignored on receipt", (t) => {
  // Flags 0x88 (I plus the GBP G bit), reserved bytes nonzero, last byte nonzero.
  const p = parseVxlan(fromHex("88 abcdef 123456 ff 0102"));
  t.ok(p.ok);
  if (p.ok) t.same(p.value, { vni: 0x123456, innerOffset: 8, innerLength: 2 });
  t.end();
});

t.test("malformed headers", (t) => {
  const good = fromHex("08000000 001388 00");
  const cases: [string, Uint8Array, number, number, string][] = [
    ["I flag clear", fromHex("00000000 001388 00"), 0, 8, "bad-value"],
    ["only other flags", fromHex("f7000000 001388 00"), 0, 8, "bad-value"],
    ["7 bytes", good.subarray(0, 7), 0, 7, "truncated"],
    ["end before the header ends", good, 0, 6, "truncated"],
    ["end past the buffer", good, 0, 9, "truncated"],
    ["offset past the end", good, 9, 8, "truncated"],
    ["negative offset", good, -1, 8, "truncated"],
  ];
  for (const [name, buf, offset, end, code] of cases) {
    const p = parseVxlan(buf, offset, end);
    t.notOk(p.ok, name);
    if (!p.ok) t.equal(p.error.code, code, name);
  }
  for (let n = 0; n < 8; n++) {
    const p = parseVxlan(guarded(good.slice(0, n)));
    if (p.ok || p.error.code !== "truncated") t.fail(`prefix of ${n} bytes`);
  }
  t.end();
});

t.test("a whole frame, byte for byte, and peeled layer by layer", (t) => {
  const inner = fromHex(INNER);
  const frame = buildVxlanFrame({ ...BASE, srcPort: vxlanSourcePort(inner), inner });
  t.equal(frame.length, VXLAN_OVERHEAD + inner.length);
  t.equal(toHex(frame), hex(OUTER));

  const eth = parseEthernet(frame);
  t.ok(eth.ok);
  if (!eth.ok) return t.end();
  t.equal(eth.value.etherType, EtherType.IPv4);
  const ip = parseIpv4(frame, 14);
  t.ok(ip.ok);
  if (!ip.ok) return t.end();
  t.equal(ipToString(ip.value.src), "192.168.0.1");
  t.equal(ip.value.dscp, 26, "DSCP inherited from the inner header");
  t.equal(ip.value.ecn, Ecn.Ect0, "ECN copied from the inner header (RFC 6040 normal mode)");
  t.equal(ip.value.ttl, 64);
  t.equal(ip.value.dontFragment, true);
  const udp = parseUdp(frame, 34, 14 + ip.value.totalLength);
  t.ok(udp.ok);
  if (!udp.ok) return t.end();
  t.equal(udp.value.dstPort, VXLAN_UDP_PORT);
  t.equal(udp.value.srcPort, 52889);
  t.equal(udp.value.checksum, 0);
  const vx = parseVxlan(frame, udp.value.payloadOffset, udp.value.payloadOffset + udp.value.payloadLength);
  t.ok(vx.ok);
  if (!vx.ok) return t.end();
  t.equal(vx.value.vni, 5000);
  t.equal(
    toHex(frame.subarray(vx.value.innerOffset, vx.value.innerOffset + vx.value.innerLength)),
    hex(INNER),
  );
  t.end();
});

t.test("outer DSCP/ECN: explicit values win, non-IP inner frames give 0", (t) => {
  const inner = fromHex(INNER);
  const f = buildVxlanFrame({
    ...BASE,
    srcPort: 50000,
    inner,
    dscp: 48,
    ecn: Ecn.NotEct,
    ttl: 9,
    dontFragment: false,
  });
  const ip = parseIpv4(f, 14);
  t.ok(ip.ok);
  if (ip.ok) {
    t.equal(ip.value.dscp, 48);
    t.equal(ip.value.ecn, Ecn.NotEct);
    t.equal(ip.value.ttl, 9);
    t.equal(ip.value.dontFragment, false);
  }
  // An ARP request inside: no IPv4 header to inherit from.
  const arp = fromHex(
    `ffffffffffff 020000000001 0806 0001 0800 0604 0001 020000000001 0a000001 ${"00".repeat(6)} 0a000002`,
  );
  const g = buildVxlanFrame({ ...BASE, srcPort: 50000, inner: arp });
  t.equal(g[15], 0, "TOS 0");
  // A tagged inner IPv4 frame still lends its TOS.
  const tagged = fromHex(`${INNER_ETH.replace("0800", "8100 6064 0800")} ${INNER_IP} ${INNER_UDP}`);
  const h = buildVxlanFrame({ ...BASE, srcPort: 50000, inner: tagged });
  t.equal(h[15], 0x6a);
  t.end();
});

t.test("tiny inner frames are padded; bad VNIs are refused", (t) => {
  const f = buildVxlanFrame({ ...BASE, srcPort: 50000, inner: new Uint8Array(2) });
  t.equal(f.length, 60);
  t.equal(VXLAN_HEADER_LENGTH, 8);
  for (const vni of [-1, MAX_VNI + 1, 1.5]) {
    t.throws(
      () => buildVxlanFrame({ ...BASE, vni, srcPort: 50000, inner: fromHex(INNER) }),
      RangeError,
      `VNI ${vni}`,
    );
  }
  t.ok(buildVxlanFrame({ ...BASE, vni: MAX_VNI, srcPort: 50000, inner: fromHex(INNER) }).length > 0);
  t.end();
});

t.test("source port: a documented hash of the inner flow", (t) => {
  const inner = fromHex(INNER);
  // FNV-1a computed independently (Python) over MACs + EtherType, protocol, addresses, ports.
  t.equal(vxlanSourcePort(inner), 52889);
  // The same flow with other payload bytes: same port.
  const other = fromHex(INNER);
  other.fill(0x55, 42);
  t.equal(vxlanSourcePort(other), 52889);
  // TTL, TOS and checksum are not flow fields.
  other[22] = 3;
  other[15] = 0;
  t.equal(vxlanSourcePort(other), 52889);
  // A different UDP source port (another QP's entropy) moves the flow.
  const moved = fromHex(INNER);
  moved[35] = 0x01;
  t.not(vxlanSourcePort(moved), 52889);
  // A fragment leaves the ports out: computed independently as well.
  const frag = fromHex(INNER);
  frag[20]! |= IPV4_FLAG_MF >>> 8;
  t.equal(vxlanSourcePort(frag), 51984);
  frag[34] = 0x77;
  t.equal(vxlanSourcePort(frag), 51984, "port bytes ignored in a fragment");
  // Only the tag's presence counts, not its TCI.
  const a = fromHex(`${INNER_ETH.replace("0800", "8100 6064 0800")} ${INNER_IP} ${INNER_UDP}`);
  const b = fromHex(`${INNER_ETH.replace("0800", "8100 e0c8 0800")} ${INNER_IP} ${INNER_UDP}`);
  t.equal(vxlanSourcePort(a), vxlanSourcePort(b));

  const seen = new Set<number>();
  for (let sport = 0; sport < 4096; sport++) {
    const f = fromHex(INNER);
    f[34] = sport >>> 8;
    f[35] = sport & 0xff;
    const port = vxlanSourcePort(f);
    if (port < 49152 || port > 65535) t.fail(`port ${port} out of range`);
    seen.add(port);
  }
  t.ok(seen.size > 3000, `4096 flows spread over ${seen.size} ports`);
  t.end();
});

t.test("source port never reads past a short or odd inner frame", (t) => {
  const full = fromHex(INNER);
  for (let n = 0; n <= full.length; n++) {
    const port = vxlanSourcePort(guarded(full.slice(0, n)));
    if (port < 49152 || port > 65535) t.fail(`prefix ${n}: port ${port}`);
  }
  // IHL 15 (60-byte header) claimed in a 40-byte frame: ports are not read.
  const bigIhl = fromHex(INNER).slice(0, 40);
  bigIhl[14] = 0x4f;
  t.ok(vxlanSourcePort(guarded(bigIhl)) >= 49152);
  // IHL 0 (bogus): ports not read either.
  const zeroIhl = fromHex(INNER);
  zeroIhl[14] = 0x40;
  t.ok(vxlanSourcePort(guarded(zeroIhl)) >= 49152);
  // Tagged frame cut inside the tag.
  t.ok(vxlanSourcePort(guarded(fromHex("ffffffffffff 020000000001 8100 60"))) >= 49152);
  t.end();
});
