import t from "tap";
import { fromHex, toHex } from "../../src/wire/bytes.js";
import { EtherType } from "../../src/wire/ethernet.js";
import { verifyIcrcV1 } from "../../src/wire/icrc.js";
import { AethSyndrome, Opcode, opcodeLayout, opcodeName } from "../../src/wire/roce.js";
import {
  buildRoceV1Frame,
  GRH_LENGTH,
  parseGrh,
  parseRoceV1Frame,
  type RoceV1FrameSpec,
  serializeGrh,
} from "../../src/wire/rocev1.js";

const MAC_A = 0x02_00_00_00_00_01;
const MAC_B = 0x02_00_00_00_00_02;
// Link-local GIDs derived from the MACs (EUI-64: flip the U/L bit, insert ff:fe), as RoCEv1 uses.
const GID_A = fromHex("fe80000000000000 000000fffe000001");
const GID_B = fromHex("fe80000000000000 000000fffe000002");

// A GRH: IPVer 6, traffic class 0x12, flow label 0x34567, payload length 0x18, next header 0x1B, hop
// limit 0x40, the two GIDs.
const GRH_HEX =
  "61234567 0018 1b 40 fe80000000000000000000fffe000001 fe80000000000000000000fffe000002".replace(/ /g, "");

// RC SEND ONLY, DestQP 0x11, PSN 5, AckReq, "hello" + 3 pad bytes, behind that GRH. ICRC computed with
// Python's zlib.crc32 (see icrc.test.ts).
const ROCEV1_SEND_ONLY = `020000000002 020000000001 8915 ${GRH_HEX} 0430ffff00000011 80000005 68656c6c6f 000000 c343bedf`;

t.test("GRH: every field from a byte vector, and back", (t) => {
  const buf = fromHex(GRH_HEX + "00".repeat(0x18));
  const p = parseGrh(buf);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.equal(p.value.trafficClass, 0x12);
  t.equal(p.value.flowLabel, 0x34567);
  t.equal(p.value.payloadLength, 0x18);
  t.equal(p.value.nextHeader, 0x1b);
  t.equal(p.value.hopLimit, 0x40);
  t.equal(toHex(p.value.sgid), toHex(GID_A));
  t.equal(toHex(p.value.dgid), toHex(GID_B));
  const out = new Uint8Array(GRH_LENGTH);
  t.equal(serializeGrh(p.value, out), GRH_LENGTH);
  t.equal(toHex(out), GRH_HEX);
  buf[8] = 0;
  t.equal(p.value.sgid[0], 0xfe, "GIDs are copies");
  t.end();
});

t.test("GRH: field edges and defaults", (t) => {
  const out = new Uint8Array(GRH_LENGTH + 4);
  serializeGrh({ payloadLength: 4, sgid: GID_A, dgid: GID_B, trafficClass: 0xff, flowLabel: 0xfffff }, out);
  t.equal(toHex(out.subarray(0, 8)), "6fffffff00041b40", "TC and flow label all ones; default hop limit 64");
  serializeGrh({ payloadLength: 4, sgid: GID_A, dgid: GID_B, trafficClass: 0xa0, flowLabel: 0x0000b }, out);
  t.equal(toHex(out.subarray(0, 4)), "6a00000b");
  const p = parseGrh(out);
  t.ok(p.ok);
  if (p.ok) t.same([p.value.trafficClass, p.value.flowLabel], [0xa0, 0x0000b]);
  t.throws(() => serializeGrh({ payloadLength: 0, sgid: new Uint8Array(4), dgid: GID_B }, out), RangeError);
  t.end();
});

t.test("GRH: malformed", (t) => {
  const good = fromHex(GRH_HEX + "00".repeat(0x18));
  const cases: [string, Uint8Array, string][] = [
    ["39 bytes", good.subarray(0, 39), "truncated"],
    ["IPVer 4", Uint8Array.from(good, (b, i) => (i === 0 ? 0x41 : b)), "bad-version"],
    ["next header 0x11 (UDP)", Uint8Array.from(good, (b, i) => (i === 6 ? 0x11 : b)), "bad-value"],
    ["payload length beyond the buffer", good.subarray(0, GRH_LENGTH + 0x17), "truncated"],
  ];
  for (const [name, buf, code] of cases) {
    const p = parseGrh(buf);
    t.notOk(p.ok, name);
    if (!p.ok) t.same([p.error.protocol, p.error.code], ["grh", code], `${name}: ${p.error.message}`);
  }
  t.ok(parseGrh(fromHex(GRH_HEX + "00".repeat(0x18 + 6))).ok, "bytes after the payload are padding");
  t.notOk(parseGrh(good, 1).ok, "shifted by one");
  t.end();
});

t.test("the builder reproduces the vector; the parser reads it back", (t) => {
  const frame = buildRoceV1Frame({
    srcMac: MAC_A,
    dstMac: MAC_B,
    sgid: GID_A,
    dgid: GID_B,
    trafficClass: 0x12,
    flowLabel: 0x34567,
    hopLimit: 0x40,
    opcode: Opcode.SendOnly,
    destQp: 0x11,
    psn: 5,
    ackReq: true,
    payload: new TextEncoder().encode("hello"),
  });
  t.equal(toHex(frame), ROCEV1_SEND_ONLY.replace(/ /g, ""));
  const p = parseRoceV1Frame(frame);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.equal(p.value.ethernet.etherType, EtherType.RoCEv1);
  t.equal(p.value.grhOffset, 14);
  t.equal(p.value.grh.payloadLength, 24);
  t.equal(p.value.roce.bth.opcode, Opcode.SendOnly);
  t.equal(p.value.roce.bth.padCount, 3);
  t.equal(p.value.roce.payloadOffset, 14 + 40 + 12);
  t.equal(p.value.roce.payloadLength, 5);
  t.equal(p.value.roce.icrc, 0xdfbe43c3);
  t.end();
});

t.test("builder defaults and limits", (t) => {
  const frame = buildRoceV1Frame({
    srcMac: MAC_A,
    dstMac: MAC_B,
    sgid: GID_A,
    dgid: GID_B,
    opcode: Opcode.Acknowledge,
    destQp: 1,
    psn: 2,
    aeth: { syndrome: AethSyndrome.AckUnlimited, msn: 3 },
  });
  t.equal(frame.length, 14 + 40 + 16 + 4);
  t.equal(
    toHex(frame.subarray(14, 22)),
    "60000000" + "0014" + "1b" + "40",
    "TC 0, flow label 0, hop limit 64",
  );
  t.equal(toHex(frame.subarray(54, 70)), "1100ffff" + "00000001" + "00000002" + "1f000003");
  t.ok(parseRoceV1Frame(frame).ok);
  const base = {
    srcMac: MAC_A,
    dstMac: MAC_B,
    sgid: GID_A,
    dgid: GID_B,
    opcode: Opcode.SendOnly,
    destQp: 1,
    psn: 0,
  };
  // GRH payload: BTH 12 + payload + pad + ICRC 4 <= 65535, so at most 65516 bytes of payload.
  t.equal(buildRoceV1Frame({ ...base, payload: new Uint8Array(65516) }).length, 14 + 40 + 65532);
  t.throws(() => buildRoceV1Frame({ ...base, payload: new Uint8Array(65517) }), /exceeds 65535/);
  t.throws(() => buildRoceV1Frame({ ...base, dgid: GID_B.subarray(1) }), RangeError, "15-byte GID");
  t.throws(() => buildRoceV1Frame({ ...base, opcode: Opcode.RdmaReadRequest }), /needs a RETH/);
  t.end();
});

function specFor(opcode: Opcode, payload: Uint8Array, vlan: boolean): RoceV1FrameSpec {
  const layout = opcodeLayout(opcode)!;
  return {
    srcMac: MAC_A,
    dstMac: MAC_B,
    vlan: vlan ? { pcp: 5, dei: false, vid: 7 } : null,
    sgid: GID_A,
    dgid: GID_B,
    trafficClass: 0x68,
    flowLabel: 0xabcde,
    hopLimit: 1,
    opcode,
    destQp: 0x000abc,
    psn: 0xffffff,
    ackReq: false,
    se: true,
    becn: true,
    reth: layout.reth ? { va: 0x1000n, rkey: 0x42, dmaLength: 4096 } : null,
    aeth: layout.aeth ? { syndrome: AethSyndrome.rnrNak(0x0e), msn: 0xffffff } : null,
    immDt: layout.immDt ? 0x01020304 : null,
    payload: layout.payload ? payload : undefined,
  };
}

t.test("round trip: every opcode, tagged and untagged, with ICRC", (t) => {
  const bytes = new Uint8Array(1030).map((_, i) => i & 0xff);
  let frames = 0;
  for (const opcode of Object.values(Opcode)) {
    const layout = opcodeLayout(opcode)!;
    for (const length of layout.payload ? [0, 1, 2, 3, 4, 1025] : [0]) {
      for (const vlan of [false, true]) {
        const spec = specFor(opcode, bytes.subarray(5, 5 + length), vlan);
        const frame = buildRoceV1Frame(spec);
        const label = `${opcodeName(opcode)} ${length} B${vlan ? " tagged" : ""}`;
        const p = parseRoceV1Frame(frame);
        if (!p.ok) {
          t.fail(`${label}: ${p.error.message}`);
          continue;
        }
        const grhAt = vlan ? 18 : 14;
        const pad = (4 - (length % 4)) % 4;
        const r = p.value.roce;
        t.same(
          {
            length: frame.length,
            grh: [
              p.value.grh.trafficClass,
              p.value.grh.flowLabel,
              p.value.grh.hopLimit,
              p.value.grh.payloadLength,
            ],
            grhOffset: p.value.grhOffset,
            vlan: p.value.ethernet.vlan,
            bth: [r.bth.opcode, r.bth.se, r.bth.becn, r.bth.destQp, r.bth.psn, r.bth.padCount, r.bth.pkey],
            reth: r.reth,
            aeth: r.aeth,
            immDt: r.immDt,
            payload: toHex(frame.subarray(r.payloadOffset, r.payloadOffset + r.payloadLength)),
            icrc: verifyIcrcV1(frame, grhAt, frame.length),
          },
          {
            length: grhAt + 40 + layout.headerLength + length + pad + 4,
            grh: [0x68, 0xabcde, 1, layout.headerLength + length + pad + 4],
            grhOffset: grhAt,
            vlan: vlan ? { pcp: 5, dei: false, vid: 7 } : null,
            bth: [opcode, true, true, 0xabc, 0xffffff, pad, 0xffff],
            reth: spec.reth,
            aeth: spec.aeth,
            immDt: spec.immDt,
            payload: toHex(bytes.subarray(5, 5 + length)),
            icrc: true,
          },
          label,
        );
        frames++;
      }
    }
  }
  t.equal(frames, 2 * (16 * 6 + 3));
  t.end();
});

t.test("parseRoceV1Frame: malformed frames", (t) => {
  const good = fromHex(ROCEV1_SEND_ONLY);
  const patched = (at: number, value: number) => {
    const copy = good.slice();
    copy[at] = value;
    return copy;
  };
  const cases: [string, Uint8Array, string, string][] = [
    ["short Ethernet header", good.subarray(0, 10), "ethernet", "truncated"],
    ["IPv4 EtherType", patched(13, 0x00).map((b, i) => (i === 12 ? 0x08 : b)), "ethernet", "bad-value"],
    ["GRH cut", good.subarray(0, 14 + 30), "grh", "truncated"],
    ["IPVer 4", patched(14, 0x41), "grh", "bad-version"],
    ["next header UDP", patched(14 + 6, 0x11), "grh", "bad-value"],
    ["frame shorter than the GRH payload length", good.subarray(0, good.length - 1), "grh", "truncated"],
    ["payload length too small for the BTH", patched(14 + 5, 10), "bth", "truncated"],
    ["payload length not leaving a multiple of 4", patched(14 + 5, 23), "bth", "bad-length"],
    ["TVer 2", patched(14 + 40 + 1, 0x32), "bth", "bad-version"],
    ["unknown opcode", patched(14 + 40, 0x12), "bth", "bad-value"],
    ["payload bit flipped", patched(14 + 40 + 12, 0x69), "icrc", "bad-checksum"],
    ["ICRC byte flipped", patched(good.length - 1, 0xde), "icrc", "bad-checksum"],
  ];
  for (const [name, frame, protocol, code] of cases) {
    const p = parseRoceV1Frame(frame);
    t.notOk(p.ok, name);
    if (!p.ok) t.same([p.error.protocol, p.error.code], [protocol, code], `${name}: ${p.error.message}`);
  }
  // Variant fields do not break the ICRC.
  t.ok(parseRoceV1Frame(patched(14 + 7, 0x01)).ok, "hop limit changed");
  t.ok(parseRoceV1Frame(patched(14 + 1, 0xff)).ok, "traffic class / flow label changed");
  t.ok(parseRoceV1Frame(patched(14 + 40 + 4, 0x40)).ok, "BECN set");
  // Verification can be turned off.
  t.ok(parseRoceV1Frame(patched(14 + 40 + 12, 0x69), { verifyIcrc: false }).ok);
  // Ethernet padding after the packet is ignored.
  const padded = new Uint8Array(good.length + 8).fill(0x33);
  padded.set(good);
  const p = parseRoceV1Frame(padded);
  t.ok(p.ok);
  if (p.ok) t.equal(p.value.roce.payloadLength, 5);
  t.end();
});

t.test("never throws on truncations and random bytes", (t) => {
  const good = fromHex(ROCEV1_SEND_ONLY);
  let seed = 99;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let rejected = 0;
  for (let i = 0; i < 5000; i++) {
    const frame = good.slice(0, rand(good.length + 1));
    for (let k = rand(4); k > 0 && frame.length > 0; k--) frame[rand(frame.length)] = rand(256);
    try {
      if (!parseRoceV1Frame(frame).ok) rejected++;
    } catch (e) {
      t.fail(`threw on ${toHex(frame)}: ${e}`);
    }
  }
  t.ok(rejected > 4000, `rejected ${rejected}`);
  t.end();
});
