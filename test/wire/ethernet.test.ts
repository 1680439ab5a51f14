import t from "tap";
import { fromHex, macToString, parseMac, toHex } from "../../src/wire/bytes.js";
import {
  EtherType,
  ethPayloadOffset,
  ethType,
  parseEthernet,
  serializeEthernet,
  wireBytes,
} from "../../src/wire/ethernet.js";

t.test("untagged header round trip", (t) => {
  const buf = new Uint8Array(14);
  const end = serializeEthernet(
    { dst: parseMac("02:00:00:00:00:02")!, src: parseMac("02:00:00:00:00:01")!, etherType: EtherType.IPv4 },
    buf,
  );
  t.equal(end, 14);
  t.equal(toHex(buf), "020000000002" + "020000000001" + "0800");
  const p = parseEthernet(buf);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.equal(macToString(p.value.dst), "02:00:00:00:00:02");
  t.equal(macToString(p.value.src), "02:00:00:00:00:01");
  t.equal(p.value.etherType, 0x0800);
  t.equal(p.value.vlan, null);
  t.equal(p.value.headerLength, 14);
  t.end();
});

t.test("802.1Q tag: PCP, DEI, VID", (t) => {
  // TCI 0x6064: PCP 3, DEI 0, VID 100.
  const buf = fromHex("ffffffffffff 0a0b0c0d0e0f 8100 6064 0800");
  const p = parseEthernet(buf);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.same(p.value.vlan, { pcp: 3, dei: false, vid: 100 });
  t.equal(p.value.etherType, EtherType.IPv4);
  t.equal(p.value.headerLength, 18);
  t.equal(macToString(p.value.dst), "ff:ff:ff:ff:ff:ff");
  t.equal(ethPayloadOffset(buf), 18);
  t.equal(ethType(buf), EtherType.IPv4);

  const out = new Uint8Array(18);
  serializeEthernet(
    { dst: p.value.dst, src: p.value.src, etherType: EtherType.IPv4, vlan: { pcp: 7, dei: true, vid: 4095 } },
    out,
  );
  t.equal(toHex(out.subarray(12)), "8100" + "ffff" + "0800");
  t.end();
});

t.test("malformed input is a typed error, never a throw", (t) => {
  const short = parseEthernet(new Uint8Array(13));
  t.notOk(short.ok);
  if (!short.ok) t.equal(short.error.code, "truncated");
  const tagCut = parseEthernet(fromHex("ffffffffffff 0a0b0c0d0e0f 8100 60"));
  t.notOk(tagCut.ok);
  if (!tagCut.ok) t.equal(tagCut.error.code, "truncated");
  const len = parseEthernet(fromHex("ffffffffffff 0a0b0c0d0e0f 0040"));
  t.notOk(len.ok);
  if (!len.ok) t.equal(len.error.code, "bad-value");
  const offsetPast = parseEthernet(new Uint8Array(20), 30);
  t.notOk(offsetPast.ok);
  t.end();
});

t.test("MAC text form", (t) => {
  t.equal(parseMac("zz:00:00:00:00:00"), null);
  t.equal(parseMac("02-00-5E-10-00-01"), 0x02005e100001);
  t.equal(macToString(0xffff_ffff_ffff), "ff:ff:ff:ff:ff:ff");
  t.end();
});

t.test("wire time counts padding, FCS, preamble and gap", (t) => {
  t.equal(wireBytes(42), 60 + 4 + 20);
  t.equal(wireBytes(1000), 1024);
  t.end();
});
