import t from "tap";
import { readU64 } from "../../src/wire/bytes.js";
import { Ecn } from "../../src/wire/ipv4.js";
import {
  AETH_CREDITS_UNLIMITED,
  AethSyndrome,
  buildRoceV2Frame,
  Opcode,
  opcodeLayout,
  parseRoce,
} from "../../src/wire/roce.js";
import { decodeRoce, RoceDecodeError, RoceView } from "../../src/wire/roce-view.js";

const BTH_AT = 42;

/** A frame of `opcode` with every header its layout has, the fields non-default. */
function frameOf(opcode: Opcode, payloadLength: number): Uint8Array {
  const layout = opcodeLayout(opcode)!;
  return buildRoceV2Frame({
    srcMac: 0x02_00_00_00_00_01,
    dstMac: 0x02_00_00_00_00_02,
    vlan: null,
    srcIp: 0x0a_00_00_01,
    dstIp: 0x0a_00_00_02,
    dscp: 26,
    ecn: Ecn.Ect0,
    ttl: 63,
    identification: 0xbeef,
    udpSrcPort: 0xe001,
    opcode,
    destQp: 0xabcdef ^ opcode,
    psn: 0xfffffe - opcode,
    ackReq: (opcode & 1) === 1,
    se: true,
    migReq: (opcode & 2) === 2,
    pkey: 0x8001,
    fecn: (opcode & 4) === 4,
    becn: false,
    reth: layout.reth
      ? { va: 0xfedcba9876543210n + BigInt(opcode), rkey: 0xdeadbeef, dmaLength: opcode }
      : null,
    aeth: layout.aeth ? { syndrome: AethSyndrome.ack(AETH_CREDITS_UNLIMITED), msn: 0x123456 + opcode } : null,
    immDt: layout.immDt ? 0xcafef00d : null,
    payload: layout.payload ? new Uint8Array(payloadLength).fill(opcode) : new Uint8Array(0),
  });
}

/** What `parseRoce` returns, read back out of a view, to compare the two decoders field by field. */
function fromView(v: RoceView, buf: Uint8Array): unknown {
  return {
    bth: {
      opcode: v.opcode,
      se: v.se,
      migReq: v.migReq,
      padCount: v.padCount,
      tver: v.tver,
      pkey: v.pkey,
      fecn: v.fecn,
      becn: v.becn,
      destQp: v.destQp,
      ackReq: v.ackReq,
      psn: v.psn,
    },
    reth: v.hasReth ? { va: readU64(buf, v.rethOffset), rkey: v.rkey, dmaLength: v.dmaLength } : null,
    aeth: v.hasAeth ? { syndrome: v.syndrome, msn: v.msn } : null,
    immDt: v.hasImmDt ? v.immDt : null,
    cnpReserved: v.cnpReservedOffset >= 0 ? buf.slice(v.cnpReservedOffset, v.cnpReservedOffset + 16) : null,
    payloadOffset: v.payloadOffset,
    payloadLength: v.payloadLength,
    padCount: v.padCount,
    icrc: v.icrc,
    headerLength: v.layout!.headerLength,
    intLength: v.intLength,
  };
}

t.test("one view decoded again and again agrees with parseRoce on every packet", (t) => {
  let seed = 0x9e3779b9;
  const rand = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const templates = Object.values(Opcode).flatMap((op) => [
    frameOf(op, 0),
    frameOf(op, 1 + op),
    frameOf(op, 64),
  ]);
  // One view for every packet: a field left over from the previous packet would show as a difference.
  const v = new RoceView();
  let accepted = 0;
  let refused = 0;
  for (let i = 0; i < 30000; i++) {
    const buf = templates[rand(templates.length)]!.slice();
    for (let k = rand(3); k > 0; k--) buf[BTH_AT + rand(buf.length - BTH_AT)] = rand(256);
    const offset = rand(8) === 0 ? rand(60) - 4 : BTH_AT;
    const end = buf.length - rand(12);
    const p = parseRoce(buf, offset, end);
    const ok = decodeRoce(v, buf, offset, end);
    if (ok !== p.ok) {
      t.fail(`decodeRoce ${ok}, parseRoce ${p.ok} at packet ${i}`);
      continue;
    }
    if (p.ok) {
      accepted++;
      if (v.error !== RoceDecodeError.None) t.fail(`error ${v.error} on an accepted packet ${i}`);
      if (JSON.stringify(fromView(v, buf), big) !== JSON.stringify(p.value, big))
        t.fail(`fields differ at packet ${i}: ${JSON.stringify(fromView(v, buf), big)}`);
    } else {
      refused++;
      if (v.offset !== p.error.offset)
        t.fail(`refusal offset ${v.offset} vs ${p.error.offset} at packet ${i}`);
    }
  }
  t.ok(accepted > 3000, `accepted ${accepted}`);
  t.ok(refused > 5000, `refused ${refused}`);
  t.end();
});

t.test("a refusal names its reason, and the view reports no packet fields as valid", (t) => {
  const write = frameOf(Opcode.RdmaWriteOnly, 8);
  const v = new RoceView();
  t.notOk(decodeRoce(v, write, BTH_AT, write.length + 1));
  t.equal(v.error, RoceDecodeError.PastBuffer);
  t.notOk(decodeRoce(v, write, BTH_AT, BTH_AT + 12 + 10));
  t.equal(v.error, RoceDecodeError.ExtensionTruncated);
  t.equal(v.errorHeader, "reth");
  t.equal(v.offset, BTH_AT + 12);
  const tver = write.slice();
  tver[BTH_AT + 1] = 0x01;
  t.notOk(decodeRoce(v, tver, BTH_AT, tver.length));
  t.equal(v.error, RoceDecodeError.BadTver);
  t.equal(v.layout, null, "no layout after a BTH refusal");
  t.ok(decodeRoce(v, write, BTH_AT, write.length));
  t.equal(v.error, RoceDecodeError.None);
  t.equal(v.payloadLength, 8);
  t.equal(v.dmaLength, Opcode.RdmaWriteOnly);
  t.end();
});

function big(_k: string, x: unknown): unknown {
  if (typeof x === "bigint") return `${x}n`;
  if (x instanceof Uint8Array) return [...x];
  return x;
}
