// pcap-check on RoCEv2 packets with an INT trailer (docs/int.md): the flagged reserved bit is accepted, the
// trailer decoded and tallied, and a broken shim reported.

import t from "tap";
import { checkFrames } from "../../src/verify/pcap-check.js";
import {
  flagInt,
  IntMode,
  intTrailerLength,
  pushIntHop,
  writeIntTrailer,
} from "../../src/wire/int-trailer.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { buildRoceV2Frame, Opcode } from "../../src/wire/roce.js";

function frame(opcode: Opcode, mode: IntMode) {
  const trailer = new Uint8Array(intTrailerLength(mode, 3));
  writeIntTrailer(trailer, 0, mode, 3, 42);
  const f = buildRoceV2Frame({
    srcMac: 0x02_00_00_00_00_01,
    dstMac: 0x02_00_00_00_00_02,
    srcIp: 0x0a000001,
    dstIp: 0x0a000002,
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: 0xc001,
    opcode,
    destQp: 0x12,
    psn: 7,
    reth: opcode === Opcode.RdmaWriteOnly ? { va: 0x1000n, rkey: 1, dmaLength: 64 } : null,
    aeth: opcode === Opcode.Acknowledge ? { syndrome: 0x1f, msn: 1 } : null,
    payload: opcode === Opcode.RdmaWriteOnly ? new Uint8Array(64) : undefined,
    trailer,
  });
  flagInt(f, 42);
  return f;
}

t.test("INT data packets and echoing ACKs check clean and are tallied", async (t) => {
  const data = frame(Opcode.RdmaWriteOnly, IntMode.Collect);
  pushIntHop(data, data.length, 7, 2, 100e9, 1000, 0, 0);
  pushIntHop(data, data.length, 8, 5, 100e9, 2000, 64, 128);
  const ack = frame(Opcode.Acknowledge, IntMode.Echo);
  const ts = frame(Opcode.RdmaWriteOnly, IntMode.Timestamp);
  const r = checkFrames([data, ack, ts]);
  t.same(r.problems, []);
  t.same(r.int, { collect: 1, echo: 1, timestamp: 1, hops: 2 });
  t.equal(r.counts.ack, 1, "an ACK with an echo is still an ACK");
});

t.test("a broken shim is reported", async (t) => {
  const data = frame(Opcode.RdmaWriteOnly, IntMode.Collect);
  data[data.length - 4 - 4 + 1] = 9; // 9 hops written in 3 slots (the ICRC breaks too)
  const r = checkFrames([data]);
  t.ok(
    r.problems.some((p) => p.message.startsWith("int shim")),
    r.problems.map((p) => p.message).join("; "),
  );
});
