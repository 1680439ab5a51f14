// LACPDU codec (IEEE 802.1AX-2014 §6.4.2.3): the 110-octet layout, round trip, and the errors a receiver
// must report (wrong subtype, TLV type or length, truncation), with reserved octets ignored on receipt.

import t from "tap";
import {
  buildLacpFrame,
  LACP_FRAME_LENGTH,
  LACPDU_LENGTH,
  LacpState,
  parseLacpdu,
  SLOW_PROTOCOLS_ETHERTYPE,
  serializeLacpdu,
} from "../../src/wire/lacp.js";

const pdu = {
  actor: {
    systemPriority: 32768,
    system: 0x0200_0000_0100,
    key: 7,
    portPriority: 32768,
    port: 3,
    state: LacpState.Activity | LacpState.Timeout | LacpState.Aggregation | LacpState.Synchronization,
  },
  partner: { systemPriority: 1, system: 0x0200_0000_0200, key: 9, portPriority: 2, port: 4, state: 0x3d },
  collectorMaxDelay: 0,
};

t.test(
  "an LACP frame is 124 octets: Ethernet to 01:80:c2:00:00:02, EtherType 0x8809, 110-octet PDU",
  async (t) => {
    const f = buildLacpFrame({ ...pdu, src: 0x0200_0000_0101 });
    t.equal(f.length, LACP_FRAME_LENGTH);
    t.equal(LACPDU_LENGTH, 110);
    t.same([...f.subarray(0, 6)], [0x01, 0x80, 0xc2, 0, 0, 2]);
    t.equal((f[12]! << 8) | f[13]!, SLOW_PROTOCOLS_ETHERTYPE);
    // subtype, version, actor TLV header, partner TLV header at 14+22, collector at 14+42, terminator at 14+60
    t.same([f[14], f[15], f[16], f[17]], [1, 1, 1, 20]);
    t.same([f[36], f[37]], [2, 20]);
    t.same([f[56], f[57]], [3, 16]);
    t.same([f[74], f[75]], [0, 0]);
    t.equal(f[16 + 16], pdu.actor.state, "actor state octet");
    t.ok(
      f.subarray(76).every((b) => b === 0),
      "50 reserved octets are zero",
    );
  },
);

t.test("round trip", async (t) => {
  const buf = new Uint8Array(LACPDU_LENGTH + 3);
  t.equal(serializeLacpdu(pdu, buf, 3), 3 + LACPDU_LENGTH);
  const r = parseLacpdu(buf, 3);
  t.ok(r.ok);
  if (r.ok) t.same(r.value, pdu);
});

t.test("errors name what is wrong; reserved octets are ignored", async (t) => {
  const f = buildLacpFrame({ ...pdu, src: 1 });
  const at = 14;
  const bad = (mutate: (b: Uint8Array) => void) => {
    const b = f.slice();
    mutate(b);
    return parseLacpdu(b, at);
  };
  const sub = bad((b) => {
    b[at] = 2; // Marker protocol
  });
  t.equal(!sub.ok && sub.error.code, "bad-value");
  const tlv = bad((b) => {
    b[at + 22] = 5;
  });
  t.match(!tlv.ok && tlv.error.message, /partner TLV type/);
  const len = bad((b) => {
    b[at + 43] = 15;
  });
  t.match(!len.ok && len.error.message, /collector TLV length/);
  const short = parseLacpdu(f.subarray(0, 40), at);
  t.equal(!short.ok && short.error.code, "truncated");
  const reserved = bad((b) => {
    b[at + 19] = 0xff; // actor reserved
    b[at + 100] = 0xaa; // trailing reserved
  });
  t.ok(reserved.ok, "reserved octets do not make a PDU malformed");
});
