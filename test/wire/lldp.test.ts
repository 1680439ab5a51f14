import t from "tap";
import { fromHex, ipToString, parseIp, parseMac, toHex } from "../../src/wire/bytes.js";
import { EtherType, parseEthernet } from "../../src/wire/ethernet.js";
import {
  ChassisIdSubtype,
  LLDP_DST_MAC,
  LldpTlvType,
  PortIdSubtype,
  parseLldp,
} from "../../src/wire/lldp.js";
import { buildLldpFrame } from "../../src/wire/lldp-frame.js";
import { guarded } from "../helpers/guarded.js";

/** One TLV in hex: 7-bit type, 9-bit length, value. */
function tlv(type: number, valueHex: string): string {
  const value = valueHex.replace(/\s+/g, "");
  return ((type << 9) | (value.length / 2)).toString(16).padStart(4, "0") + value;
}

const CHASSIS_MAC = tlv(1, "04 02aa00000000");
const PORT_IFNAME = tlv(2, "05 65746831"); // "eth1"
const TTL_120 = tlv(3, "0078");
const END = "0000";

// Decoded by Wireshark 4.0 field by field (chassis MAC, port "eth1", TTL 120, port description, system
// name, system description, management address 10.255.0.1, End).
const FULL_FRAME =
  "0180c200000e 02aa00000001 88cc" +
  "0207 04 02aa00000000" +
  "0405 05 65746831" +
  "0602 0078" +
  "0809 746f207370696e6531" +
  "0a05 6c65616631" +
  "0c0e 726f63656c616220737769746368" +
  "100c 05 01 0aff0001 01 00000000 00" +
  "0000";

function parseHex(hex: string, offset = 0) {
  const buf = fromHex(hex);
  return parseLldp(buf, offset, buf.length);
}

t.test("a full frame, byte for byte, and parsed back", (t) => {
  const frame = buildLldpFrame({
    src: parseMac("02:aa:00:00:00:01")!,
    chassisId: { subtype: ChassisIdSubtype.MacAddress, mac: parseMac("02:aa:00:00:00:00")! },
    portId: { subtype: PortIdSubtype.InterfaceName, name: "eth1" },
    ttl: 120,
    portDescription: "to spine1",
    systemName: "leaf1",
    systemDescription: "rocelab switch",
    managementAddress: parseIp("10.255.0.1")!,
  });
  t.equal(toHex(frame), toHex(fromHex(FULL_FRAME)));
  const eth = parseEthernet(frame);
  t.ok(eth.ok && eth.value.dst === LLDP_DST_MAC && eth.value.etherType === EtherType.LLDP);
  const p = parseLldp(frame, 14, frame.length);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  const v = p.value;
  t.same(v.chassisId, { subtype: 4, mac: 0x02aa00000000 });
  t.same(v.portId, { subtype: 5, name: "eth1" });
  t.equal(v.ttl, 120);
  t.equal(v.portDescription, "to spine1");
  t.equal(v.systemName, "leaf1");
  t.equal(v.systemDescription, "rocelab switch");
  t.equal(v.managementAddresses.length, 1);
  const m = v.managementAddresses[0]!;
  t.equal(m.addressSubtype, 1);
  t.equal(ipToString(m.ipv4!), "10.255.0.1");
  t.equal(toHex(m.address), "0aff0001");
  t.equal(m.interfaceSubtype, 1);
  t.equal(m.interfaceNumber, 0);
  t.equal(m.oid.length, 0);
  t.same(v.unknownTlvs, []);
  t.equal(v.length, 70);
  t.end();
});

t.test("a minimal frame is padded to 60 bytes", (t) => {
  const frame = buildLldpFrame({
    src: parseMac("02:aa:00:00:00:01")!,
    chassisId: { subtype: ChassisIdSubtype.Local, id: "leaf1" },
    portId: { subtype: PortIdSubtype.Local, id: "1" },
    ttl: 0,
  });
  // Wireshark: "LA/leaf1 LA/1 0".
  t.equal(
    toHex(frame),
    toHex(
      fromHex(
        `0180c200000e 02aa00000001 88cc 0206 07 6c65616631 0402 07 31 0602 0000 0000 ${"00".repeat(28)}`,
      ),
    ),
  );
  const p = parseLldp(frame, 14);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.same(p.value.chassisId, { subtype: 7, id: "leaf1" });
  t.same(p.value.portId, { subtype: 7, id: "1" });
  t.equal(p.value.ttl, 0, "TTL 0: forget me (shutdown LLDPDU)");
  t.equal(p.value.portDescription, null);
  t.equal(p.value.systemName, null);
  t.equal(p.value.systemDescription, null);
  t.equal(p.value.length, 18);
  t.end();
});

t.test("MAC port ID, raw subtypes and UTF-8 round trip", (t) => {
  const frame = buildLldpFrame({
    src: 1,
    chassisId: { subtype: ChassisIdSubtype.InterfaceName, value: fromHex("6272300a") },
    portId: { subtype: PortIdSubtype.MacAddress, mac: 0x0a0b0c0d0e0f },
    ttl: 65535,
    systemName: "spine-α",
  });
  t.equal(toHex(frame.subarray(14, 14 + 7 + 9)), tlv(1, "06 6272300a") + tlv(2, "03 0a0b0c0d0e0f"));
  const p = parseLldp(frame, 14);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.equal(p.value.chassisId.subtype, ChassisIdSubtype.InterfaceName);
  if ("value" in p.value.chassisId) t.equal(toHex(p.value.chassisId.value), "6272300a");
  t.same(p.value.portId, { subtype: 3, mac: 0x0a0b0c0d0e0f });
  t.equal(p.value.ttl, 65535);
  t.equal(p.value.systemName, "spine-α");

  const rawPort = buildLldpFrame({
    src: 1,
    chassisId: { subtype: ChassisIdSubtype.Local, id: "c" },
    portId: { subtype: PortIdSubtype.AgentCircuitId, value: fromHex("0a0b") },
    ttl: 1,
  });
  t.equal(toHex(rawPort.subarray(18, 23)), tlv(2, "06 0a0b"));

  const aliasPort = parseHex(CHASSIS_MAC + tlv(2, "01 657468302e31") + TTL_120 + END);
  t.ok(aliasPort.ok);
  if (aliasPort.ok && aliasPort.value.portId.subtype === PortIdSubtype.InterfaceAlias) {
    t.equal(toHex(aliasPort.value.portId.value), "657468302e31");
  } else t.fail("interface alias port ID");
  t.end();
});

t.test("TLVs we do not decode come back raw, copied", (t) => {
  const caps = tlv(LldpTlvType.SystemCapabilities, "0014 0010"); // bridge + router, router enabled
  const org = tlv(LldpTlvType.OrganizationallySpecific, "0080c2 0b 08 08"); // 802.1 PFC config
  const reserved = tlv(42, "");
  const buf = fromHex(CHASSIS_MAC + PORT_IFNAME + TTL_120 + caps + org + reserved + END);
  const p = parseLldp(buf);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.same(
    p.value.unknownTlvs.map((x) => [x.type, toHex(x.value)]),
    [
      [7, "00140010"],
      [127, "0080c20b0808"],
      [42, ""],
    ],
  );
  buf.fill(0xee);
  t.equal(toHex(p.value.unknownTlvs[0]!.value), "00140010", "not a view of the receive buffer");
  t.end();
});

t.test("management addresses: several, IPv6 with ifIndex and OID", (t) => {
  const v6 = tlv(8, "11 02 20010db8000000000000000000000001 02 00000007 03 2b0601");
  const v4 = tlv(8, "05 01 0a000001 03 00000001 00");
  const p = parseHex(CHASSIS_MAC + PORT_IFNAME + TTL_120 + v6 + v4 + END);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  const [a, b] = p.value.managementAddresses;
  t.equal(a!.addressSubtype, 2);
  t.equal(a!.ipv4, null);
  t.equal(toHex(a!.address), "20010db8000000000000000000000001");
  t.equal(a!.interfaceSubtype, 2);
  t.equal(a!.interfaceNumber, 7);
  t.equal(toHex(a!.oid), "2b0601");
  t.equal(ipToString(b!.ipv4!), "10.0.0.1");
  t.equal(b!.interfaceNumber, 1);
  t.end();
});

t.test("malformed LLDPDUs", (t) => {
  const long = "61".repeat(300);
  const cases: [string, string, string][] = [
    ["Port ID first", PORT_IFNAME + CHASSIS_MAC + TTL_120 + END, "bad-value"],
    ["TTL second", CHASSIS_MAC + TTL_120 + PORT_IFNAME + END, "bad-value"],
    ["system name third", CHASSIS_MAC + PORT_IFNAME + tlv(5, "61") + TTL_120 + END, "bad-value"],
    ["End before the mandatory TLVs", CHASSIS_MAC + PORT_IFNAME + END, "bad-value"],
    ["empty", "", "truncated"],
    ["no End", CHASSIS_MAC + PORT_IFNAME + TTL_120, "truncated"],
    ["half a TLV header at the end", CHASSIS_MAC + PORT_IFNAME + TTL_120 + "00", "truncated"],
    ["TLV runs past the end", CHASSIS_MAC + PORT_IFNAME + TTL_120 + "0a05 6c65", "truncated"],
    ["End with a length", CHASSIS_MAC + PORT_IFNAME + TTL_120 + "0001 00", "bad-length"],
    ["TTL of 3 bytes", CHASSIS_MAC + PORT_IFNAME + tlv(3, "000078") + END, "bad-length"],
    ["TTL of 1 byte", CHASSIS_MAC + PORT_IFNAME + tlv(3, "78") + END, "bad-length"],
    ["chassis ID with only a subtype", tlv(1, "07") + PORT_IFNAME + TTL_120 + END, "bad-length"],
    ["chassis ID of 300 bytes", tlv(1, `07${long}`) + PORT_IFNAME + TTL_120 + END, "bad-length"],
    ["MAC chassis ID of 5 bytes", tlv(1, "04 0102030405") + PORT_IFNAME + TTL_120 + END, "bad-length"],
    ["MAC port ID of 7 bytes", CHASSIS_MAC + tlv(2, "03 01020304050607") + TTL_120 + END, "bad-length"],
    ["port ID with only a subtype", CHASSIS_MAC + tlv(2, "05") + TTL_120 + END, "bad-length"],
    ["port ID of 300 bytes", CHASSIS_MAC + tlv(2, `05${long}`) + TTL_120 + END, "bad-length"],
    ["chassis subtype 0 (reserved)", tlv(1, "00 01") + PORT_IFNAME + TTL_120 + END, "bad-value"],
    ["chassis subtype 8 (reserved)", tlv(1, "08 01") + PORT_IFNAME + TTL_120 + END, "bad-value"],
    ["port subtype 0 (reserved)", CHASSIS_MAC + tlv(2, "00 01") + TTL_120 + END, "bad-value"],
    ["port subtype 9 (reserved)", CHASSIS_MAC + tlv(2, "09 01") + TTL_120 + END, "bad-value"],
    ["second chassis ID", CHASSIS_MAC + PORT_IFNAME + TTL_120 + CHASSIS_MAC + END, "bad-value"],
    ["second TTL", CHASSIS_MAC + PORT_IFNAME + TTL_120 + TTL_120 + END, "bad-value"],
    [
      "second system name",
      CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(5, "61") + tlv(5, "62") + END,
      "bad-value",
    ],
    ["system name of 300 bytes", CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(5, long) + END, "bad-length"],
    [
      "port description of 256 bytes",
      CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(4, "61".repeat(256)) + END,
      "bad-length",
    ],
    [
      "management address of 8 bytes",
      CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(8, "05 01 0a000001 01 00") + END,
      "bad-length",
    ],
    [
      "management address string length 1",
      CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(8, "01 01 01 00000000 00 0000") + END,
      "bad-length",
    ],
    [
      "management address string length 33",
      CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(8, `21 06 ${"00".repeat(32)} 01 00000000 00`) + END,
      "bad-length",
    ],
    [
      "management address string longer than the TLV",
      CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(8, "0a 01 0a000001 01 00000000") + END,
      "bad-length",
    ],
    [
      "OID length past the TLV",
      CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(8, "05 01 0a000001 01 00000000 03 2b06") + END,
      "bad-length",
    ],
    [
      "OID length short of the TLV",
      CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(8, "05 01 0a000001 01 00000000 01 2b06") + END,
      "bad-length",
    ],
  ];
  for (const [name, hex, code] of cases) {
    const p = parseHex(hex);
    t.notOk(p.ok, name);
    if (!p.ok) {
      t.equal(p.error.code, code, name);
      t.equal(p.error.protocol, "lldp", name);
    }
  }
  const good = fromHex(CHASSIS_MAC + PORT_IFNAME + TTL_120 + END);
  const bounds: [string, number, number][] = [
    ["end past the buffer", 0, good.length + 1],
    ["offset past the end", good.length + 4, good.length],
    ["negative offset", -1, good.length],
    ["end cuts the End TLV", 0, good.length - 1],
  ];
  for (const [name, offset, end] of bounds) {
    const p = parseLldp(good, offset, end);
    t.notOk(p.ok, name);
    if (!p.ok) t.equal(p.error.code, "truncated", name);
  }
  t.ok(parseLldp(good, 0, good.length).ok, "the same bytes parse with sane bounds");
  t.end();
});

t.test("the builder refuses what cannot be encoded", (t) => {
  const base = {
    src: 1,
    chassisId: { subtype: ChassisIdSubtype.Local, id: "leaf1" },
    portId: { subtype: PortIdSubtype.InterfaceName, name: "eth1" },
    ttl: 120,
  } as const;
  t.throws(
    () => buildLldpFrame({ ...base, chassisId: { subtype: ChassisIdSubtype.Local, id: "" } }),
    RangeError,
  );
  t.throws(
    () =>
      buildLldpFrame({ ...base, portId: { subtype: PortIdSubtype.InterfaceName, name: "x".repeat(256) } }),
    RangeError,
  );
  t.throws(() => buildLldpFrame({ ...base, systemName: "é".repeat(128) }), RangeError, "256 bytes in UTF-8");
  t.throws(() => buildLldpFrame({ ...base, ttl: 65536 }), RangeError);
  t.throws(() => buildLldpFrame({ ...base, ttl: -1 }), RangeError);
  const longest = buildLldpFrame({
    ...base,
    portId: { subtype: PortIdSubtype.InterfaceName, name: "x".repeat(255) },
    systemDescription: "d".repeat(255),
  });
  const p = parseLldp(longest, 14);
  t.ok(p.ok, "255-byte ID and string are fine");
  if (p.ok && p.value.portId.subtype === PortIdSubtype.InterfaceName)
    t.equal(p.value.portId.name.length, 255);
  t.end();
});

t.test("no read out of bounds on any prefix", (t) => {
  const frame = fromHex(FULL_FRAME);
  for (let n = 0; n < frame.length; n++) {
    const p = parseLldp(guarded(frame.slice(0, n)), 14);
    if (p.ok || p.error.code !== "truncated") t.fail(`prefix of ${n} bytes: ${p.ok ? "ok" : p.error.code}`);
  }
  t.ok(parseLldp(guarded(frame.slice()), 14).ok, "the whole frame parses through the guard");
  // A management address whose string length points past the TLV, last in the buffer.
  const lastTlv = guarded(
    fromHex(CHASSIS_MAC + PORT_IFNAME + TTL_120 + tlv(8, "20 01 0a000001 01 00000000")),
  );
  const p = parseLldp(lastTlv);
  t.notOk(p.ok);
  if (!p.ok) t.equal(p.error.code, "bad-length");
  t.end();
});
