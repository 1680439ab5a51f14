import t from "tap";
import { fromHex, parseIp, readU16, toHex } from "../../src/wire/bytes.js";
import { EtherType, parseEthernet } from "../../src/wire/ethernet.js";
import { computeIcrcV2, verifyIcrcV2 } from "../../src/wire/icrc.js";
import { Ecn, IpProtocol, parseIpv4 } from "../../src/wire/ipv4.js";
import {
  AETH_CREDITS_UNLIMITED,
  AethSyndrome,
  aethKind,
  aethValue,
  BTH_LENGTH,
  buildCnpFrame,
  buildRoceV2Frame,
  DEFAULT_PKEY,
  Opcode,
  opcodeLayout,
  opcodeName,
  PSN_MASK,
  padCountFor,
  parseAeth,
  parseBth,
  parseReth,
  parseRoce,
  psnAdd,
  psnDiff,
  psnLessThan,
  type RoceV2FrameSpec,
  roceTransportLength,
  roceUdpSourcePort,
  roceV2FrameLength,
  serializeAeth,
  serializeBth,
  serializeReth,
  serializeRoceTransport,
  serializeRoceV2Frame,
} from "../../src/wire/roce.js";
import { NVIDIA_CNP, WRITE_ONLY_FRAME } from "../helpers/vectors.js";

const MAC_A = 0x02_00_00_00_00_01;
const MAC_B = 0x02_00_00_00_00_02;
const IP_A = parseIp("10.0.0.1")!;
const IP_B = parseIp("10.0.0.2")!;
/** Ethernet 14 + IPv4 20 + UDP 8: where the BTH of an untagged RoCEv2 frame starts. */
const BTH_AT = 42;

const text = (s: string) => new TextEncoder().encode(s);

t.test("BTH: every field from a byte vector, and back", (t) => {
  // Opcode SEND ONLY; SE, M, PadCnt 2, TVer 0; P_Key 0x1234; FECN; DestQP 0xabcdef; AckReq; PSN 0xfedcba.
  const vector = "04e01234 80abcdef 80fedcba";
  const p = parseBth(fromHex(vector));
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.same(p.value, {
    opcode: Opcode.SendOnly,
    se: true,
    migReq: true,
    padCount: 2,
    tver: 0,
    pkey: 0x1234,
    fecn: true,
    becn: false,
    destQp: 0xabcdef,
    ackReq: true,
    psn: 0xfedcba,
  });
  const out = new Uint8Array(BTH_LENGTH);
  t.equal(serializeBth(p.value, out), BTH_LENGTH);
  t.equal(toHex(out), vector.replace(/ /g, ""));
  t.end();
});

t.test("BTH: each flag lands on its own bit", (t) => {
  const base = { opcode: 0, destQp: 0, psn: 0, pkey: 0 };
  const cases: [string, object, string][] = [
    ["nothing", {}, "000000000000000000000000"],
    ["SE", { se: true }, "008000000000000000000000"],
    ["MigReq", { migReq: true }, "004000000000000000000000"],
    ["PadCnt 3", { padCount: 3 }, "003000000000000000000000"],
    ["PadCnt 1", { padCount: 1 }, "001000000000000000000000"],
    ["FECN", { fecn: true }, "000000008000000000000000"],
    ["BECN", { becn: true }, "000000004000000000000000"],
    ["AckReq", { ackReq: true }, "000000000000000080000000"],
    ["P_Key", { pkey: 0xabcd }, "0000abcd0000000000000000"],
    ["DestQP", { destQp: 0x123456 }, "000000000012345600000000"],
    ["PSN", { psn: 0x654321 }, "000000000000000000654321"],
  ];
  for (const [name, fields, hex] of cases) {
    const out = new Uint8Array(BTH_LENGTH);
    serializeBth({ ...base, ...fields }, out);
    t.equal(toHex(out), hex, name);
  }
  const defaults = new Uint8Array(BTH_LENGTH);
  serializeBth({ opcode: Opcode.Acknowledge, destQp: 1, psn: 2 }, defaults);
  t.equal(toHex(defaults), "1100ffff0000000100000002", "P_Key defaults to 0xFFFF, flags to 0");
  t.end();
});

t.test("BTH: the NVIDIA CNP header; reserved bits ignored on receive, zero on send", (t) => {
  const cnp = parseBth(fromHex("8100ffff400000d200000000"));
  t.ok(cnp.ok);
  if (cnp.ok) {
    t.equal(cnp.value.opcode, Opcode.Cnp);
    t.equal(cnp.value.becn, true);
    t.equal(cnp.value.fecn, false);
    t.equal(cnp.value.pkey, DEFAULT_PKEY);
    t.equal(cnp.value.destQp, 0xd2);
    t.equal(cnp.value.psn, 0);
    t.equal(cnp.value.ackReq, false);
  }
  // Resv6 (byte 4, bits 5..0) and Resv7 (byte 8, bits 6..0) all set.
  const reserved = parseBth(fromHex("04003fff 3f000001 7f000002"));
  t.ok(reserved.ok);
  if (!reserved.ok) return t.end();
  t.equal(reserved.value.fecn, false);
  t.equal(reserved.value.becn, false);
  t.equal(reserved.value.ackReq, false);
  t.equal(reserved.value.destQp, 1);
  t.equal(reserved.value.psn, 2);
  const out = new Uint8Array(BTH_LENGTH);
  serializeBth(reserved.value, out);
  t.equal(toHex(out), "04003fff0000000100000002");
  t.end();
});

t.test("BTH: malformed", (t) => {
  const short = parseBth(fromHex("0400ffff000000010000"));
  t.notOk(short.ok);
  if (!short.ok) t.equal(short.error.code, "truncated");
  t.notOk(parseBth(new Uint8Array(12), 1).ok, "12 bytes but the header starts at 1");
  for (let tver = 1; tver < 16; tver++) {
    const buf = fromHex("0400ffff0000000100000002");
    buf[1] = tver;
    const p = parseBth(buf);
    if (p.ok || p.error.code !== "bad-version" || p.error.offset !== 1) t.fail(`TVer ${tver} not rejected`);
  }
  const tver = parseBth(fromHex("04f5ffff0000000100000002"));
  t.notOk(tver.ok);
  if (!tver.ok) t.same([tver.error.protocol, tver.error.code], ["bth", "bad-version"]);
  t.end();
});

t.test("RETH and AETH byte vectors", (t) => {
  const rethHex = "fedcba9876543210deadbeef00010000";
  const reth = parseReth(fromHex(rethHex));
  t.ok(reth.ok);
  if (reth.ok) {
    t.same(reth.value, { va: 0xfedcba9876543210n, rkey: 0xdeadbeef, dmaLength: 0x10000 });
    const out = new Uint8Array(16);
    t.equal(serializeReth(reth.value, out), 16);
    t.equal(toHex(out), rethHex);
  }
  const rethShort = parseReth(new Uint8Array(15));
  t.notOk(rethShort.ok);
  if (!rethShort.ok) t.same([rethShort.error.protocol, rethShort.error.code], ["reth", "truncated"]);

  const aeth = parseAeth(fromHex("60123456"));
  t.ok(aeth.ok);
  if (aeth.ok) {
    t.same(aeth.value, { syndrome: AethSyndrome.NakPsnSequenceError, msn: 0x123456 });
    const out = new Uint8Array(4);
    t.equal(serializeAeth(aeth.value, out), 4);
    t.equal(toHex(out), "60123456");
  }
  const aethShort = parseAeth(fromHex("1fffff"));
  t.notOk(aethShort.ok);
  if (!aethShort.ok) t.same([aethShort.error.protocol, aethShort.error.code], ["aeth", "truncated"]);
  t.end();
});

t.test("AETH syndromes", (t) => {
  t.equal(AethSyndrome.ack(AETH_CREDITS_UNLIMITED), 0x1f);
  t.equal(AethSyndrome.AckUnlimited, 0x1f);
  t.equal(AethSyndrome.ack(0), 0x00);
  t.equal(AethSyndrome.ack(7), 0x07);
  t.equal(AethSyndrome.rnrNak(0), 0x20);
  t.equal(AethSyndrome.rnrNak(0x0e), 0x2e);
  t.equal(AethSyndrome.rnrNak(0x1f), 0x3f);
  t.equal(AethSyndrome.rnrNak(0x3f), 0x3f, "timer code is 5 bits");
  t.same(
    [
      AethSyndrome.NakPsnSequenceError,
      AethSyndrome.NakInvalidRequest,
      AethSyndrome.NakRemoteAccessError,
      AethSyndrome.NakRemoteOperationalError,
    ],
    [0x60, 0x61, 0x62, 0x63],
  );
  const kinds: Record<string, number> = { ack: 0, "rnr-nak": 0, nak: 0, reserved: 0 };
  for (let s = 0; s < 256; s++) {
    const k = aethKind(s);
    kinds[k] = kinds[k]! + 1;
    const expected = s < 0x20 ? "ack" : s < 0x40 ? "rnr-nak" : s >= 0x60 && s < 0x80 ? "nak" : "reserved";
    if (k !== expected) t.fail(`syndrome 0x${s.toString(16)}: ${k}, expected ${expected}`);
  }
  t.same(kinds, { ack: 32, "rnr-nak": 32, nak: 32, reserved: 160 });
  t.equal(aethKind(AethSyndrome.NakRemoteOperationalError), "nak");
  t.equal(aethValue(AethSyndrome.NakRemoteAccessError), 2);
  t.equal(aethValue(AethSyndrome.rnrNak(0x12)), 0x12);
  t.equal(aethValue(AethSyndrome.ack(9)), 9);
  t.end();
});

t.test("opcode table matches the RC opcodes and their headers", (t) => {
  // [opcode, name, header bytes incl. BTH, RETH, AETH, ImmDt, payload, position]
  const table: [number, string, number, boolean, boolean, boolean, boolean, string][] = [
    [0x00, "RC SEND FIRST", 12, false, false, false, true, "first"],
    [0x01, "RC SEND MIDDLE", 12, false, false, false, true, "middle"],
    [0x02, "RC SEND LAST", 12, false, false, false, true, "last"],
    [0x03, "RC SEND LAST WITH IMMEDIATE", 16, false, false, true, true, "last"],
    [0x04, "RC SEND ONLY", 12, false, false, false, true, "only"],
    [0x05, "RC SEND ONLY WITH IMMEDIATE", 16, false, false, true, true, "only"],
    [0x06, "RC RDMA WRITE FIRST", 28, true, false, false, true, "first"],
    [0x07, "RC RDMA WRITE MIDDLE", 12, false, false, false, true, "middle"],
    [0x08, "RC RDMA WRITE LAST", 12, false, false, false, true, "last"],
    [0x09, "RC RDMA WRITE LAST WITH IMMEDIATE", 16, false, false, true, true, "last"],
    [0x0a, "RC RDMA WRITE ONLY", 28, true, false, false, true, "only"],
    [0x0b, "RC RDMA WRITE ONLY WITH IMMEDIATE", 32, true, false, true, true, "only"],
    [0x0c, "RC RDMA READ REQUEST", 28, true, false, false, false, "only"],
    [0x0d, "RC RDMA READ RESPONSE FIRST", 16, false, true, false, true, "first"],
    [0x0e, "RC RDMA READ RESPONSE MIDDLE", 12, false, false, false, true, "middle"],
    [0x0f, "RC RDMA READ RESPONSE LAST", 16, false, true, false, true, "last"],
    [0x10, "RC RDMA READ RESPONSE ONLY", 16, false, true, false, true, "only"],
    [0x11, "RC ACKNOWLEDGE", 16, false, true, false, false, "only"],
    [0x81, "RoCEv2 CNP", 28, false, false, false, false, "only"],
  ];
  t.same(
    table.map((row) => row[0]),
    Object.values(Opcode),
    "Opcode lists exactly these values",
  );
  for (const [op, name, headerLength, reth, aeth, immDt, payload, position] of table) {
    t.equal(opcodeName(op), name);
    t.same(opcodeLayout(op), {
      name,
      reth,
      aeth,
      immDt,
      cnpReserved: op === 0x81,
      payload,
      position,
      headerLength,
    });
  }
  const known = new Set(table.map((row) => row[0]));
  let unknown = 0;
  for (let op = 0; op < 256; op++) {
    if (known.has(op)) continue;
    if (opcodeLayout(op) !== null) t.fail(`opcode 0x${op.toString(16)} should be unknown`);
    unknown++;
  }
  t.equal(unknown, 256 - 19);
  t.equal(opcodeName(0x12), "UNKNOWN OPCODE 0x12");
  t.equal(opcodeName(0x80), "UNKNOWN OPCODE 0x80", "0x80 is the CNP transport prefix, not the CNP");
  t.equal(opcodeLayout(0x1_0a), opcodeLayout(0x0a), "only the low 8 bits are an opcode");
  t.end();
});

t.test("PSN arithmetic wraps at 2^24", (t) => {
  t.equal(PSN_MASK, 0xffffff);
  t.equal(psnAdd(0xffffff, 1), 0);
  t.equal(psnAdd(0xfffffe, 5), 3);
  t.equal(psnAdd(0, -1), 0xffffff);
  t.equal(psnAdd(10, -3), 7);
  t.equal(psnAdd(0x123456, 0x1000000), 0x123456, "a full turn is the identity");
  t.equal(psnDiff(0, 0xffffff), 1);
  t.equal(psnDiff(0xffffff, 0), -1);
  t.equal(psnDiff(3, 0xfffffe), 5);
  t.equal(psnDiff(0x7fffff, 0), 0x7fffff, "largest forward distance");
  t.equal(psnDiff(0x800000, 0), -0x800000, "half a turn counts as behind");
  t.equal(psnDiff(0, 0x800000), -0x800000);
  t.equal(psnDiff(5, 5), 0);
  t.equal(psnDiff(100, 40), 60);
  t.equal(psnDiff(40, 100), -60);
  t.ok(psnLessThan(0xffffff, 0));
  t.ok(psnLessThan(0xfffff0, 0x10));
  t.notOk(psnLessThan(0, 0xffffff));
  t.notOk(psnLessThan(5, 5));
  t.ok(psnLessThan(1, 2));
  for (const a of [0, 1, 0x7fffff, 0x800000, 0xfffffe, 0xffffff]) {
    for (const n of [-0x800000, -1, 0, 1, 1000, 0x7fffff]) {
      if (psnDiff(psnAdd(a, n), a) !== n) t.fail(`psnDiff(psnAdd(${a}, ${n}), ${a})`);
    }
  }
  t.end();
});

t.test("parseRoce on the reference vectors", (t) => {
  const frame = fromHex(WRITE_ONLY_FRAME);
  const p = parseRoce(frame, BTH_AT, frame.length);
  t.ok(p.ok);
  if (p.ok) {
    const r = p.value;
    t.equal(r.bth.opcode, Opcode.RdmaWriteOnly);
    t.equal(r.bth.destQp, 0x11);
    t.equal(r.bth.psn, 100);
    t.equal(r.bth.ackReq, true);
    t.same(r.reth, { va: 0x7f0000001000n, rkey: 0x1234, dmaLength: 8 });
    t.equal(r.aeth, null);
    t.equal(r.immDt, null);
    t.equal(r.cnpReserved, null);
    t.equal(r.headerLength, 28);
    t.equal(r.payloadOffset, BTH_AT + 28);
    t.equal(r.payloadLength, 8);
    t.equal(r.padCount, 0);
    t.equal(r.icrc, 0x157aa9b4);
    t.equal(
      new TextDecoder().decode(frame.subarray(r.payloadOffset, r.payloadOffset + r.payloadLength)),
      "ABCDEFGH",
    );
  }
  const cnp = fromHex(NVIDIA_CNP);
  const c = parseRoce(cnp, 28, cnp.length);
  t.ok(c.ok);
  if (c.ok) {
    t.equal(c.value.bth.opcode, Opcode.Cnp);
    t.equal(c.value.bth.becn, true);
    t.equal(toHex(c.value.cnpReserved!), "00".repeat(16));
    t.equal(c.value.payloadLength, 0);
    t.equal(c.value.payloadOffset, 28 + 28);
    t.equal(c.value.icrc, 0xef1bfcda);
  }
  t.end();
});

t.test("the builder reproduces the reference frames byte for byte", (t) => {
  const write = buildRoceV2Frame({
    srcMac: MAC_A,
    dstMac: MAC_B,
    srcIp: IP_A,
    dstIp: IP_B,
    dscp: 0,
    ecn: Ecn.Ect0,
    ttl: 64,
    identification: 1,
    udpSrcPort: 0xc123,
    opcode: Opcode.RdmaWriteOnly,
    destQp: 0x11,
    psn: 100,
    ackReq: true,
    reth: { va: 0x7f0000001000n, rkey: 0x1234, dmaLength: 8 },
    payload: text("ABCDEFGH"),
  });
  t.equal(toHex(write), WRITE_ONLY_FRAME.replace(/ /g, ""));

  const cnp = buildCnpFrame({
    srcMac: MAC_A,
    dstMac: MAC_B,
    srcIp: parseIp("22.22.22.8")!,
    dstIp: parseIp("22.22.22.7")!,
    udpSrcPort: 56238,
    destQp: 0xd2,
    dscp: 34,
    ecn: Ecn.Ect1,
    ttl: 0x20,
    identification: 0x98c6,
  });
  t.equal(toHex(cnp.subarray(14)), NVIDIA_CNP.replace(/ /g, ""));
  t.equal(toHex(cnp.subarray(0, 14)), "020000000002" + "020000000001" + "0800");
  t.end();
});

t.test("CNP defaults: DSCP 48, Not-ECT, 74 bytes; a tag adds 4", (t) => {
  const cnp = buildCnpFrame({
    srcMac: MAC_B,
    dstMac: MAC_A,
    srcIp: IP_B,
    dstIp: IP_A,
    udpSrcPort: 0xd000,
    destQp: 0x000123,
  });
  t.equal(cnp.length, 74);
  const ip = parseIpv4(cnp, 14);
  t.ok(ip.ok);
  if (ip.ok) {
    t.equal(ip.value.dscp, 48);
    t.equal(ip.value.ecn, Ecn.NotEct);
    t.equal(ip.value.ttl, 64);
    t.equal(ip.value.dontFragment, true);
    t.equal(ip.value.totalLength, 60);
  }
  t.equal(readU16(cnp, 36), 4791);
  t.equal(readU16(cnp, 38), 40, "UDP length");
  const r = parseRoce(cnp, BTH_AT, cnp.length);
  t.ok(r.ok);
  if (r.ok) {
    t.same(r.value.bth, {
      opcode: 0x81,
      se: false,
      migReq: false,
      padCount: 0,
      tver: 0,
      pkey: 0xffff,
      fecn: false,
      becn: true,
      destQp: 0x123,
      ackReq: false,
      psn: 0,
    });
    t.equal(toHex(r.value.cnpReserved!), "00".repeat(16));
  }
  t.ok(verifyIcrcV2(cnp, 14, cnp.length));

  const tagged = buildCnpFrame({
    srcMac: MAC_B,
    dstMac: MAC_A,
    vlan: { pcp: 6, dei: false, vid: 10 },
    srcIp: IP_B,
    dstIp: IP_A,
    udpSrcPort: 0xd000,
    destQp: 0x000123,
  });
  t.equal(tagged.length, 78);
  t.equal(toHex(tagged.subarray(12, 18)), "8100c00a0800");
  t.equal(toHex(tagged.subarray(18)), toHex(cnp.subarray(14)), "the tag changes nothing after it");
  t.end();
});

t.test("non-zero CNP reserved bytes are reported, not rejected", (t) => {
  const cnp = fromHex(NVIDIA_CNP);
  cnp[40] = 0xaa;
  cnp[55] = 0x01;
  const r = parseRoce(cnp, 28, cnp.length);
  t.ok(r.ok);
  if (!r.ok) return t.end();
  t.equal(toHex(r.value.cnpReserved!), "aa" + "00".repeat(14) + "01");
  cnp[40] = 0;
  t.equal(r.value.cnpReserved![0], 0xaa, "a copy, not a view of the frame");
  t.end();
});

/** A spec for `opcode` with every optional field away from its default. */
function specFor(opcode: Opcode, payload: Uint8Array, vlan = false): RoceV2FrameSpec {
  const layout = opcodeLayout(opcode)!;
  return {
    srcMac: MAC_A,
    dstMac: MAC_B,
    vlan: vlan ? { pcp: 3, dei: true, vid: 0x123 } : null,
    srcIp: IP_A,
    dstIp: IP_B,
    dscp: 26,
    ecn: Ecn.Ect0,
    ttl: 63,
    identification: 0xbeef,
    udpSrcPort: 0xe001,
    opcode,
    destQp: 0xabcdef,
    psn: 0xfffffe,
    ackReq: true,
    se: true,
    migReq: true,
    pkey: 0x8001,
    fecn: true,
    becn: false,
    reth: layout.reth ? { va: 0xfedcba9876543210n, rkey: 0xdeadbeef, dmaLength: 0x10000 } : null,
    aeth: layout.aeth ? { syndrome: AethSyndrome.ack(AETH_CREDITS_UNLIMITED), msn: 0x123456 } : null,
    immDt: layout.immDt ? 0xcafef00d : null,
    payload: layout.payload ? payload : new Uint8Array(0),
  };
}

t.test("round trip: every opcode, payload lengths around the padding, tagged and untagged", (t) => {
  const big = new Uint8Array(5000);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7 + 3) & 0xff;
  let frames = 0;
  for (const opcode of Object.values(Opcode)) {
    const layout = opcodeLayout(opcode)!;
    const lengths = layout.payload ? [0, 1, 2, 3, 4, 5, 6, 7, 8, 1023, 1024, 4093, 4096] : [0];
    for (const length of lengths) {
      for (const vlan of [false, true]) {
        // A view into a bigger buffer at an odd offset, as the devices hand payloads over.
        const payload = big.subarray(11, 11 + length);
        const spec = specFor(opcode, payload, vlan);
        const frame = buildRoceV2Frame(spec);
        const label = `${opcodeName(opcode)} ${length} B${vlan ? " tagged" : ""}`;
        const pad = (4 - (length % 4)) % 4;
        const ipAt = vlan ? 18 : 14;
        const eth = parseEthernet(frame);
        const ip = parseIpv4(frame, ipAt);
        const roce = parseRoce(frame, ipAt + 28, frame.length);
        if (!eth.ok || !ip.ok || !roce.ok) {
          t.fail(`${label}: does not parse`);
          continue;
        }
        t.same(
          {
            frameLength: frame.length,
            etherType: eth.value.etherType,
            vlan: eth.value.vlan,
            ip: [ip.value.dscp, ip.value.ecn, ip.value.ttl, ip.value.identification, ip.value.dontFragment],
            protocol: ip.value.protocol,
            totalLength: ip.value.totalLength,
            udp: [readU16(frame, ipAt + 20), readU16(frame, ipAt + 22), readU16(frame, ipAt + 24)],
            udpChecksum: readU16(frame, ipAt + 26),
            bth: roce.value.bth,
            reth: roce.value.reth,
            aeth: roce.value.aeth,
            immDt: roce.value.immDt,
            headerLength: roce.value.headerLength,
            payloadOffset: roce.value.payloadOffset,
            payloadLength: roce.value.payloadLength,
            padCount: roce.value.padCount,
            icrcOk: verifyIcrcV2(frame, ipAt, frame.length),
            icrc: roce.value.icrc === computeIcrcV2(frame, ipAt, frame.length),
          },
          {
            frameLength: ipAt + 20 + 8 + layout.headerLength + length + pad + 4,
            etherType: EtherType.IPv4,
            vlan: vlan ? { pcp: 3, dei: true, vid: 0x123 } : null,
            ip: [26, Ecn.Ect0, 63, 0xbeef, true],
            protocol: IpProtocol.UDP,
            totalLength: frame.length - ipAt,
            udp: [0xe001, 4791, frame.length - ipAt - 20],
            udpChecksum: 0,
            bth: {
              opcode,
              se: true,
              migReq: true,
              padCount: pad,
              tver: 0,
              pkey: 0x8001,
              fecn: true,
              becn: false,
              destQp: 0xabcdef,
              ackReq: true,
              psn: 0xfffffe,
            },
            reth: spec.reth,
            aeth: spec.aeth,
            immDt: spec.immDt,
            headerLength: layout.headerLength,
            payloadOffset: ipAt + 28 + layout.headerLength,
            payloadLength: length,
            padCount: pad,
            icrcOk: true,
            icrc: true,
          },
          label,
        );
        const at = roce.value.payloadOffset;
        t.equal(toHex(frame.subarray(at, at + length)), toHex(payload), `${label}: payload`);
        t.equal(toHex(frame.subarray(at + length, at + length + pad)), "00".repeat(pad), `${label}: pad`);
        frames++;
      }
    }
  }
  t.equal(frames, 2 * (16 * 13 + 3), "16 payload opcodes × 13 lengths, 3 without payload");
  t.end();
});

t.test("the payload is copied once: later changes to the source do not reach the frame", (t) => {
  const source = text("0123456789abcdefXYZ");
  const spec = specFor(Opcode.SendOnly, source.subarray(3, 10));
  const frame = buildRoceV2Frame(spec);
  source.fill(0x21);
  const r = parseRoce(frame, BTH_AT, frame.length);
  t.ok(r.ok);
  if (!r.ok) return t.end();
  t.equal(r.value.payloadLength, 7);
  t.equal(
    new TextDecoder().decode(frame.subarray(r.value.payloadOffset, r.value.payloadOffset + 7)),
    "3456789",
  );
  t.end();
});

t.test("IPv4 defaults: TTL 64, identification 0", (t) => {
  const { ttl: _ttl, identification: _id, ...rest } = specFor(Opcode.SendOnly, text("abcd"));
  const frame = buildRoceV2Frame(rest);
  const ip = parseIpv4(frame, 14);
  t.ok(ip.ok);
  if (ip.ok) t.same([ip.value.ttl, ip.value.identification], [64, 0]);
  t.end();
});

t.test("immediate data 0 is data, not absence", (t) => {
  const frame = buildRoceV2Frame({ ...specFor(Opcode.SendOnlyWithImmediate, text("x")), immDt: 0 });
  const r = parseRoce(frame, BTH_AT, frame.length);
  t.ok(r.ok);
  if (r.ok) t.equal(r.value.immDt, 0);
  t.end();
});

t.test("serializeRoceTransport writes into a caller's buffer and leaves room for the ICRC", (t) => {
  const spec = specFor(Opcode.RdmaWriteFirst, text("hello"));
  const length = roceTransportLength(spec);
  t.equal(length, 28 + 5 + 3 + 4);
  const buf = new Uint8Array(length + 10).fill(0xee);
  const end = serializeRoceTransport(spec, buf, 5);
  t.equal(end, 5 + length - 4);
  t.equal(toHex(buf.subarray(end - 3, end)), "000000", "pad zeroed over stale bytes");
  t.equal(buf[4], 0xee, "nothing before the offset");
  t.equal(buf[end], 0xee, "ICRC left to the caller");
  const r = parseRoce(buf, 5, end + 4);
  t.ok(r.ok);
  if (r.ok) t.same([r.value.padCount, r.value.payloadLength, r.value.reth], [3, 5, spec.reth]);
  const cnpBuf = new Uint8Array(32).fill(0xee);
  serializeRoceTransport({ opcode: Opcode.Cnp, destQp: 5, psn: 0, becn: true }, cnpBuf, 0);
  t.equal(toHex(cnpBuf.subarray(12, 28)), "00".repeat(16), "CNP reserved bytes zeroed over stale bytes");
  t.equal(padCountFor(0), 0);
  t.equal(padCountFor(1), 3);
  t.equal(padCountFor(2), 2);
  t.equal(padCountFor(3), 1);
  t.equal(padCountFor(4096), 0);
  t.end();
});

t.test("serializeRoceV2Frame writes the same bytes into a dirty slab at an offset", (t) => {
  const slab = new Uint8Array(3000).fill(0xa5);
  let off = 7;
  for (const opcode of Object.values(Opcode)) {
    for (const vlan of [false, true]) {
      const spec = specFor(opcode, text("abcdefghij").subarray(0, 1 + (opcode % 10)), vlan);
      const built = buildRoceV2Frame(spec);
      t.equal(roceV2FrameLength(spec), built.length);
      const end = serializeRoceV2Frame(spec, slab, off);
      t.equal(end - off, built.length, `${opcodeName(opcode)}: length`);
      t.equal(toHex(slab.subarray(off, end)), toHex(built), `${opcodeName(opcode)}: bytes`);
      t.ok(verifyIcrcV2(slab, off + (vlan ? 18 : 14), end));
      off = end;
    }
  }
  t.equal(slab[off], 0xa5, "nothing written past the last frame");
  const spec = specFor(Opcode.SendOnly, text("abc"));
  t.throws(
    () => serializeRoceV2Frame(spec, new Uint8Array(100), 100 - roceV2FrameLength(spec) + 1),
    RangeError,
  );
  t.equal(serializeRoceV2Frame(spec, new Uint8Array(100), 100 - roceV2FrameLength(spec)), 100, "exact fit");
  t.end();
});

t.test("the builder rejects specs it cannot build", (t) => {
  const base = specFor(Opcode.SendOnly, text("abc"));
  t.throws(() => buildRoceV2Frame({ ...base, opcode: 0x12 as Opcode }), RangeError, "unknown opcode");
  t.throws(() => buildRoceV2Frame({ ...base, opcode: 0x10a as Opcode }), RangeError, "not a byte");
  t.throws(() => buildRoceV2Frame({ ...base, opcode: Opcode.RdmaWriteOnly, reth: null }), /needs a RETH/);
  t.throws(
    () => buildRoceV2Frame({ ...base, opcode: Opcode.Acknowledge, payload: undefined }),
    /needs an AETH/,
  );
  t.throws(() => buildRoceV2Frame({ ...base, opcode: Opcode.SendLastWithImmediate }), /needs immediate data/);
  t.throws(
    () => buildRoceV2Frame({ ...base, opcode: Opcode.Acknowledge, aeth: { syndrome: 0x1f, msn: 0 } }),
    /carries no payload/,
  );
  // IPv4 20 + UDP 8 + BTH 12 + ICRC 4 leave 65491 bytes, and payload + pad is a multiple of 4: 65488.
  t.throws(() => buildRoceV2Frame({ ...base, payload: new Uint8Array(65489) }), /exceeds the IPv4 maximum/);
  t.equal(
    buildRoceV2Frame({ ...base, payload: new Uint8Array(65488) }).length,
    14 + 65532,
    "the largest payload builds",
  );
  // Headers the opcode does not carry are ignored.
  const extra = buildRoceV2Frame({ ...base, reth: { va: 1n, rkey: 2, dmaLength: 3 }, immDt: 7 });
  t.equal(toHex(extra), toHex(buildRoceV2Frame(base)));
  t.end();
});

t.test("parseRoce: each malformed case has its own error", (t) => {
  const write = fromHex(WRITE_ONLY_FRAME);
  const sendOnly = (payload: string) => buildRoceV2Frame(specFor(Opcode.SendOnly, text(payload)));
  const ack = buildRoceV2Frame(specFor(Opcode.Acknowledge, new Uint8Array(0)));
  const imm = buildRoceV2Frame(specFor(Opcode.SendOnlyWithImmediate, new Uint8Array(0)));
  const cnp = fromHex(NVIDIA_CNP);
  const patched = (frame: Uint8Array, at: number, value: number) => {
    const copy = frame.slice();
    copy[at] = value;
    return copy;
  };
  // Four extra bytes in front of the ICRC of an ACK: extra "payload" on an opcode that has none.
  const ackWithPayload = new Uint8Array(ack.length + 4);
  ackWithPayload.set(ack);
  ackWithPayload.set(ack.subarray(ack.length - 4), ack.length);

  const cases: [string, Uint8Array, number, number, string, string][] = [
    ["end past the buffer", write, BTH_AT, write.length + 1, "bth", "truncated"],
    ["11 bytes of BTH", write, BTH_AT, BTH_AT + 11, "bth", "truncated"],
    ["end before the BTH", write, BTH_AT, BTH_AT - 5, "bth", "truncated"],
    ["negative offset", write, -1, write.length, "bth", "truncated"],
    ["TVer 1", patched(write, BTH_AT + 1, 0x01), BTH_AT, write.length, "bth", "bad-version"],
    ["opcode 0x12 (atomic ACK)", patched(write, BTH_AT, 0x12), BTH_AT, write.length, "bth", "bad-value"],
    ["opcode 0x80", patched(write, BTH_AT, 0x80), BTH_AT, write.length, "bth", "bad-value"],
    ["opcode 0x64 (UD SEND ONLY)", patched(write, BTH_AT, 0x64), BTH_AT, write.length, "bth", "bad-value"],
    ["RETH cut short", write, BTH_AT, BTH_AT + 12 + 10, "reth", "truncated"],
    ["RETH with no room for the ICRC", write, BTH_AT, BTH_AT + 28 + 3, "reth", "truncated"],
    ["AETH cut short", ack, BTH_AT, BTH_AT + 12 + 3, "aeth", "truncated"],
    ["ImmDt with no room for the ICRC", imm, BTH_AT, BTH_AT + 16 + 2, "immdt", "truncated"],
    ["CNP without its 16 bytes", cnp, 28, 28 + 12 + 15, "cnp", "truncated"],
    ["CNP with reserved bytes but no ICRC", cnp, 28, 28 + 28 + 3, "cnp", "truncated"],
    ["BTH and no ICRC", sendOnly(""), BTH_AT, BTH_AT + 12 + 3, "icrc", "truncated"],
    [
      "PadCnt 3, no payload",
      patched(sendOnly(""), BTH_AT + 1, 0x30),
      BTH_AT,
      BTH_AT + 16,
      "bth",
      "bad-length",
    ],
    ["PadCnt 2 on an ACK", patched(ack, BTH_AT + 1, 0x20), BTH_AT, ack.length, "bth", "bad-length"],
    ["payload + pad of 7 bytes", write, BTH_AT, write.length - 1, "bth", "bad-length"],
    ["payload + pad of 5 bytes", sendOnly("abcde"), BTH_AT, BTH_AT + 12 + 5 + 4, "bth", "bad-length"],
    ["ACK with payload", ackWithPayload, BTH_AT, ackWithPayload.length, "bth", "bad-length"],
  ];
  for (const [name, buf, offset, end, protocol, code] of cases) {
    const p = parseRoce(buf, offset, end);
    t.notOk(p.ok, name);
    if (!p.ok) t.same([p.error.protocol, p.error.code], [protocol, code], `${name}: ${p.error.message}`);
  }
  // Specific offsets for the ones a reader is most likely to look up.
  const padErr = parseRoce(patched(sendOnly(""), BTH_AT + 1, 0x30), BTH_AT, BTH_AT + 16);
  if (!padErr.ok) t.equal(padErr.error.offset, BTH_AT + 1, "PadCnt error points at the BTH flags");
  const rethErr = parseRoce(write, BTH_AT, BTH_AT + 12 + 10);
  if (!rethErr.ok) t.equal(rethErr.error.offset, BTH_AT + 12, "RETH error points at the RETH");
  // The same bytes are fine when the bounds are right.
  t.ok(parseRoce(sendOnly("abcde"), BTH_AT, BTH_AT + 12 + 8 + 4).ok);
  t.ok(parseRoce(ack, BTH_AT, ack.length).ok);
  t.end();
});

/** A result as text (bigints included), to compare two parses. */
function show(p: ReturnType<typeof parseRoce>): string {
  return JSON.stringify(p, (_k, v) =>
    typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? toHex(v) : v,
  );
}

t.test("never throws, never reads past `end`: random and mutated input", (t) => {
  let seed = 0x2545f491;
  const rand = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const templates = Object.values(Opcode).map((op) =>
    buildRoceV2Frame(specFor(op, text("payload!!").subarray(0, 1 + (op % 9)))),
  );
  let okCount = 0;
  let errCount = 0;
  for (let i = 0; i < 20000; i++) {
    let buf: Uint8Array;
    let offset: number;
    let end: number;
    if (i % 2 === 0) {
      buf = new Uint8Array(rand(80));
      for (let j = 0; j < buf.length; j++) buf[j] = rand(256);
      // Bias the first bytes towards opcodes we speak and TVer 0, so the deeper checks run.
      if (buf.length > 1) buf[0] = rand(4) === 0 ? rand(256) : [0x00, 0x06, 0x0b, 0x0c, 0x11, 0x81][rand(6)]!;
      if (buf.length > 1 && rand(4) !== 0) buf[1] = buf[1]! & 0xf0;
      offset = rand(6) - 2;
      end = rand(buf.length + 4) - 2;
    } else {
      buf = templates[rand(templates.length)]!.slice();
      for (let k = rand(3); k > 0; k--) buf[BTH_AT + rand(buf.length - BTH_AT)] = rand(256);
      offset = BTH_AT;
      end = buf.length - rand(12);
    }
    let p: ReturnType<typeof parseRoce>;
    try {
      p = parseRoce(buf, offset, end);
    } catch (e) {
      t.fail(`threw on ${toHex(buf)} at ${offset}..${end}: ${e}`);
      continue;
    }
    if (p.ok) okCount++;
    else errCount++;
    // Garbage after `end` must not change the answer (when `end` is inside the buffer).
    if (end >= 0 && end <= buf.length) {
      const longer = new Uint8Array(end + 7);
      longer.set(buf.subarray(0, end));
      for (let j = end; j < longer.length; j++) longer[j] = rand(256);
      const q = parseRoce(longer, offset, end);
      const r = parseRoce(buf.subarray(0, end), offset, end);
      if (show(q) !== show(p) || show(r) !== show(p))
        t.fail(`bytes past end changed the result: ${toHex(buf)}`);
    }
  }
  t.ok(okCount > 1000, `accepted some (${okCount})`);
  t.ok(errCount > 1000, `rejected some (${errCount})`);
  t.end();
});

t.test("UDP source port follows rdma_get_udp_sport", (t) => {
  // QPNs 0x11, 0x12: product 0x132, no bits above 20, so flow label 0x132 and port 0xC000 | 0x132.
  t.equal(roceUdpSourcePort(0x11, 0x12), 0xc132);
  // 0xABCDEF × 0x123456 = 0x0C379A59BA4A. Label = 0x9BA4A ^ 0x379A5 ^ 0x0C = 0xAC3E3.
  // Port: low 14 bits 0x03E3 ^ (label >> 14 = 0x2B) = 0x03C8, | 0xC000 = 0xC3C8.
  t.equal(roceUdpSourcePort(0xabcdef, 0x123456), 0xc3c8);
  t.equal(roceUdpSourcePort(0x123456, 0xabcdef), 0xc3c8, "symmetric: both ends agree");
  // 0xFFFFFF² = 0xFFFFFE000001. Label = 0x00001 ^ 0xFFFE0 ^ 0xFF = 0xFFF1E; 0x3F1E ^ 0x3F = 0x3F21.
  t.equal(roceUdpSourcePort(0xffffff, 0xffffff), 0xff21);
  t.equal(roceUdpSourcePort(0, 0x1234), 0xc000, "a zero product gives label 0");
  // Explicit flow labels ignore the QPNs. 0x12345: 0x2345 ^ 0x4 = 0x2341.
  t.equal(roceUdpSourcePort(0x11, 0x12, 0x12345), 0xe341);
  t.equal(roceUdpSourcePort(0xabcdef, 0x123456, 0x12345), 0xe341);
  t.equal(roceUdpSourcePort(1, 1, 0xfffff), 0xffc0);
  t.equal(roceUdpSourcePort(1, 1, 0x100000), 0xc000, "bits above the 20-bit label are ignored");
  // Against the kernel's 64-bit formula, in BigInt, over many QPN pairs.
  const kernel = (l: number, r: number): number => {
    let v = BigInt(l) * BigInt(r);
    v ^= v >> 20n;
    v ^= v >> 40n;
    const fl = Number(v & 0xfffffn);
    return ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000;
  };
  let seed = 12345;
  for (let i = 0; i < 5000; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const l = seed & 0xffffff;
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const r = (seed >>> 3) & 0xffffff;
    const port = roceUdpSourcePort(l, r);
    if (port !== kernel(l, r) || port < 0xc000 || port > 0xffff)
      t.fail(`qpns 0x${l.toString(16)} 0x${r.toString(16)}`);
  }
  t.end();
});
