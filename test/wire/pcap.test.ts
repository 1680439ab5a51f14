import t from "tap";
import { fromHex, toHex } from "../../src/wire/bytes.js";
import {
  PCAP_DEFAULT_SNAPLEN,
  PCAP_GLOBAL_HEADER_LENGTH,
  PCAP_MAGIC_MICROSECONDS,
  PCAP_MAGIC_NANOSECONDS,
  PCAP_RECORD_HEADER_LENGTH,
  type PcapFormat,
  PcapLinkType,
  parsePcap,
  pcapHeader,
  pcapRecord,
  serializePcap,
} from "../../src/wire/pcap.js";
import { WireErrorCode } from "../../src/wire/result.js";
import { guarded } from "../helpers/guarded.js";

// Global headers as libpcap writes them: magic, version 2.4, thiszone 0, sigfigs 0, snaplen 262144,
// link type 1 (Ethernet), every field in the writer's byte order.
const HEADER_LE_US = "d4c3b2a1 0200 0400 00000000 00000000 00000400 01000000";
const HEADER_BE_US = "a1b2c3d4 0002 0004 00000000 00000000 00040000 00000001";
const HEADER_LE_NS = "4d3cb2a1 0200 0400 00000000 00000000 00000400 01000000";
const HEADER_BE_NS = "a1b23c4d 0002 0004 00000000 00000000 00040000 00000001";

// 2023-11-14T22:13:20.123456789Z: 1700000000 s = 0x6553f100, 123456 µs = 0x0001e240, 123456789 ns = 0x075bcd15.
const T = 1_700_000_000_123_456_789n;
const FRAME = fromHex("010203");
const RECORD_LE_US = "00f15365 40e20100 03000000 03000000 010203";
const RECORD_BE_US = "6553f100 0001e240 00000003 00000003 010203";
const RECORD_LE_NS = "00f15365 15cd5b07 03000000 03000000 010203";
const RECORD_BE_NS = "6553f100 075bcd15 00000003 00000003 010203";

const FORMATS: { name: string; format: PcapFormat; header: string; record: string }[] = [
  { name: "little-endian µs", format: {}, header: HEADER_LE_US, record: RECORD_LE_US },
  { name: "big-endian µs", format: { bigEndian: true }, header: HEADER_BE_US, record: RECORD_BE_US },
  { name: "little-endian ns", format: { nanosecond: true }, header: HEADER_LE_NS, record: RECORD_LE_NS },
  {
    name: "big-endian ns",
    format: { nanosecond: true, bigEndian: true },
    header: HEADER_BE_NS,
    record: RECORD_BE_NS,
  },
];

t.test("constants", (t) => {
  t.equal(PCAP_MAGIC_MICROSECONDS, 0xa1b2c3d4);
  t.equal(PCAP_MAGIC_NANOSECONDS, 0xa1b23c4d);
  t.equal(PCAP_GLOBAL_HEADER_LENGTH, 24);
  t.equal(PCAP_RECORD_HEADER_LENGTH, 16);
  t.equal(PCAP_DEFAULT_SNAPLEN, 262144);
  t.equal(PcapLinkType.Ethernet, 1);
  t.end();
});

t.test("global header and record bytes, every byte order and resolution", (t) => {
  for (const f of FORMATS) {
    t.equal(toHex(pcapHeader(f.format)), toHex(fromHex(f.header)), `${f.name} header`);
    t.equal(toHex(pcapRecord(FRAME, T, f.format)), toHex(fromHex(f.record)), `${f.name} record`);
  }
  // The default is the little-endian microsecond file tcpdump writes on x86.
  t.equal(toHex(pcapHeader().subarray(0, 4)), "d4c3b2a1");
  t.end();
});

t.test("serializePcap is the header followed by the records", (t) => {
  for (const f of FORMATS) {
    const file = serializePcap([{ frame: FRAME, tNs: T }], f.format);
    t.equal(toHex(file), toHex(fromHex(f.header + f.record)), f.name);
  }
  t.equal(toHex(serializePcap([])), toHex(fromHex(HEADER_LE_US)), "no records: the header alone");
  t.end();
});

t.test("round trips in every format", (t) => {
  const frames = [
    { frame: fromHex("ffffffffffff020000000001 0806" + "00".repeat(46)), tNs: 0n },
    { frame: new Uint8Array(4154).fill(0xa5), tNs: 999n },
    { frame: fromHex("00"), tNs: T },
    { frame: new Uint8Array(0), tNs: 4_294_967_295_999_999_999n },
  ];
  for (const f of FORMATS) {
    const p = parsePcap(guarded(serializePcap(frames, f.format)));
    t.ok(p.ok, f.name);
    if (!p.ok) continue;
    t.equal(p.value.linkType, PcapLinkType.Ethernet);
    t.equal(p.value.nanosecond, f.format.nanosecond ?? false);
    t.equal(p.value.bigEndian, f.format.bigEndian ?? false);
    t.equal(p.value.versionMajor, 2);
    t.equal(p.value.versionMinor, 4);
    t.equal(p.value.snapLength, 262144);
    t.equal(p.value.fcsLength, null);
    t.equal(p.value.records.length, frames.length);
    p.value.records.forEach((r, i) => {
      const sent = frames[i]!;
      t.equal(toHex(r.frame), toHex(sent.frame), `${f.name} frame ${i + 1}`);
      t.equal(r.originalLength, sent.frame.length);
      // A µs file keeps whole microseconds (truncated, as libpcap does).
      const expected = f.format.nanosecond ? sent.tNs : (sent.tNs / 1000n) * 1000n;
      t.equal(r.tNs, expected, `${f.name} time ${i + 1}`);
    });
  }
  t.end();
});

t.test("number timestamps, and the streaming writer concatenates into a valid file", (t) => {
  const parts = [pcapHeader(), pcapRecord(FRAME, 1000), pcapRecord(FRAME, 2000)];
  const file = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    file.set(p, at);
    at += p.length;
  }
  const p = parsePcap(file);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.same(
    p.value.records.map((r) => r.tNs),
    [1000n, 2000n],
  );
  t.end();
});

t.test("frames longer than the snapshot length are cut, with the original length kept", (t) => {
  const big = new Uint8Array(100).map((_, i) => i);
  const rec = pcapRecord(big, 0n, { snapLength: 64 });
  t.equal(rec.length, 16 + 64);
  const file = serializePcap([{ frame: big, tNs: 5000n }], { snapLength: 64 });
  const p = parsePcap(file);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.equal(p.value.snapLength, 64);
  t.equal(p.value.records[0]!.frame.length, 64);
  t.equal(p.value.records[0]!.originalLength, 100);
  t.equal(toHex(p.value.records[0]!.frame), toHex(big.subarray(0, 64)));
  // An explicit original length (a copy cut by the caller) is written as given.
  const q = parsePcap(serializePcap([{ frame: FRAME, tNs: 0n, originalLength: 1500 }]));
  t.equal(q.ok && q.value.records[0]!.originalLength, 1500);
  t.end();
});

t.test("other link types, and the FCS length in the link-type field", (t) => {
  const sll = parsePcap(pcapHeader({ linkType: PcapLinkType.LinuxSll }));
  t.equal(sll.ok && sll.value.linkType, 113);
  t.equal(sll.ok && sll.value.records.length, 0);
  // libpcap: bit 26 says an FCS length is present, the top 4 bits give it in 16-bit words (2 = 4 bytes).
  const withFcs = fromHex(HEADER_LE_US);
  withFcs.set([0x01, 0x00, 0x00, 0x24], 20);
  const p = parsePcap(withFcs);
  t.ok(p.ok);
  t.equal(p.ok && p.value.linkType, 1);
  t.equal(p.ok && p.value.fcsLength, 4);
  t.end();
});

t.test("a snapshot length of 0 means no limit", (t) => {
  const file = serializePcap([{ frame: new Uint8Array(300), tNs: 0n }]);
  file.fill(0, 16, 20);
  const p = parsePcap(file);
  t.ok(p.ok);
  t.equal(p.ok && p.value.records[0]!.frame.length, 300);
  t.end();
});

t.test("malformed files: typed errors, no throw, no out-of-bounds read", (t) => {
  const good = serializePcap([
    { frame: fromHex("0102030405060708"), tNs: 1000n },
    { frame: fromHex("aabbccdd"), tNs: 2000n },
  ]);
  const check = (bytes: Uint8Array, code: string, offset: number, pattern: RegExp, what: string) => {
    const p = parsePcap(guarded(bytes));
    t.notOk(p.ok, what);
    if (p.ok) return;
    t.equal(p.error.protocol, "pcap", what);
    t.equal(p.error.code, code, what);
    t.equal(p.error.offset, offset, what);
    t.match(p.error.message, pattern, what);
  };
  check(new Uint8Array(0), WireErrorCode.Truncated, 0, /global header needs 24 bytes, 0 left/, "empty file");
  check(fromHex("d4c3b2"), WireErrorCode.Truncated, 0, /needs 24 bytes, 3 left/, "3 bytes");
  check(good.subarray(0, 20), WireErrorCode.Truncated, 0, /needs 24 bytes, 20 left/, "header cut short");
  check(
    fromHex("7b0a2020"),
    WireErrorCode.BadValue,
    0,
    /magic 0x7b0a2020: not a pcap file/,
    "short text file",
  );
  const text = new TextEncoder().encode('{\n  "name": "rocelab",\n  "version": "0.1.0"\n}\n');
  check(text, WireErrorCode.BadValue, 0, /not a pcap file/, "a JSON file");
  const ng = fromHex("0a0d0d0a 1c000000 4d3c2b1a 01000000 ffffffffffffffff 1c000000");
  check(ng, WireErrorCode.BadValue, 0, /pcapng/, "pcapng");
  // A magic with one byte off is no magic at all.
  const offByOne = good.slice();
  offByOne[0] = 0xd5;
  check(offByOne, WireErrorCode.BadValue, 0, /magic 0xd5c3b2a1/, "bad magic");

  const v1 = good.slice();
  v1[4] = 1;
  check(v1, WireErrorCode.BadVersion, 4, /version 1\.4, expected 2\.x/, "version 1.4");

  // Record 2 header cut after 10 of its 16 bytes.
  const record2 = 24 + 16 + 8;
  check(
    good.subarray(0, record2 + 10),
    WireErrorCode.Truncated,
    record2,
    /record 2 header needs 16 bytes, 10 left/,
    "record header cut short",
  );
  // Record 2 data cut: its captured length says 4, 2 are there.
  check(
    good.subarray(0, good.length - 2),
    WireErrorCode.Truncated,
    record2 + 8,
    /record 2: captured length 4 but only 2 bytes/,
    "record data cut short",
  );
  // Record 1 claims more bytes than the file holds.
  const beyond = good.slice();
  beyond.set([0x00, 0x01, 0x00, 0x00], 24 + 8);
  check(
    beyond,
    WireErrorCode.Truncated,
    32,
    /record 1: captured length 256 but only 28 bytes/,
    "incl_len beyond the file",
  );
  // Record 1 claims more than the snapshot length (set to 6 here).
  const overSnap = good.slice();
  overSnap.set([6, 0, 0, 0], 16);
  check(
    overSnap,
    WireErrorCode.BadLength,
    32,
    /record 1: captured length 8 exceeds the snapshot length 6/,
    "incl_len > snaplen",
  );
  // The same in a big-endian file: the fields are read in its order.
  const bigEndian = serializePcap([{ frame: fromHex("0102030405060708"), tNs: 1n }], {
    bigEndian: true,
    snapLength: 4,
  });
  // The writer cut the frame to 4; claim 8 to break it.
  bigEndian.set([0, 0, 0, 8], 32);
  check(
    bigEndian,
    WireErrorCode.BadLength,
    32,
    /captured length 8 exceeds the snapshot length 4/,
    "big-endian incl_len > snaplen",
  );
  t.end();
});

t.test("every truncation of a valid file parses or fails cleanly", (t) => {
  const file = serializePcap(
    [
      { frame: new Uint8Array(60).fill(1), tNs: 1n },
      { frame: new Uint8Array(7).fill(2), tNs: 2n },
    ],
    { nanosecond: true, bigEndian: true },
  );
  const boundaries = new Set([24, 24 + 16 + 60, file.length]);
  for (let n = 0; n <= file.length; n++) {
    const p = parsePcap(guarded(file.subarray(0, n)));
    t.equal(p.ok, boundaries.has(n), `length ${n}`);
  }
  t.end();
});

t.test("cutShort: a file that ends inside a record gives the whole records and counts the rest", (t) => {
  const file = serializePcap(
    [
      { frame: new Uint8Array(60).fill(1), tNs: 1n },
      { frame: new Uint8Array(7).fill(2), tNs: 2n },
    ],
    { nanosecond: true, bigEndian: false },
  );
  const first = 24 + 16 + 60;
  for (let n = 24; n <= file.length; n++) {
    const p = parsePcap(guarded(file.subarray(0, n)), { cutShort: true });
    if (!p.ok) {
      t.fail(`length ${n}: ${p.error.message}`);
      continue;
    }
    const whole = n === file.length ? 2 : n >= first ? 1 : 0;
    t.equal(p.value.records.length, whole, `length ${n}: ${whole} whole records`);
    t.equal(
      p.value.cutShortBytes,
      n - (whole === 2 ? file.length : whole === 1 ? first : 24),
      `length ${n}: the rest`,
    );
  }
  // Without the option the same cut is still an error, as before.
  const cut = parsePcap(file.subarray(0, file.length - 3));
  t.notOk(cut.ok);
  if (!cut.ok) t.equal(cut.error.code, WireErrorCode.Truncated);
  t.end();
});

t.test("the writer refuses impossible input (caller bugs)", (t) => {
  t.throws(() => pcapRecord(FRAME, -1n), RangeError);
  t.throws(() => pcapRecord(FRAME, -1), RangeError);
  t.throws(() => pcapRecord(FRAME, 1.5), RangeError);
  t.throws(() => pcapRecord(FRAME, 2 ** 60), RangeError, "unsafe number: pass a bigint");
  t.throws(() => pcapRecord(FRAME, 4_294_967_296n * 1_000_000_000n), RangeError, "past 2106");
  t.throws(() => pcapRecord(FRAME, 0n, {}, 2), RangeError, "original length below the captured length");
  t.throws(() => pcapHeader({ snapLength: 0 }), RangeError);
  t.throws(() => pcapHeader({ linkType: 0x10000 }), RangeError);
  t.end();
});
