// pcap-check on RoCEv2 packets with a P4.org INT block (docs/int.md): the block is decoded and tallied,
// the BTH's reserved bits stay clear, and a probe marker whose block does not add up is reported.

import t from "tap";
import { checkFrames } from "../../src/verify/pcap-check.js";
import { writeIcrcV2 } from "../../src/wire/icrc.js";
import {
  copyIntEcho,
  IntMode,
  intBlockLength,
  pushIntHop,
  writeIntCollect,
  writeIntTimestamp,
} from "../../src/wire/int-md.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { buildRoceV2Frame, Opcode } from "../../src/wire/roce.js";

function frame(opcode: Opcode, int: Uint8Array) {
  return buildRoceV2Frame({
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
    int,
  });
}

const AT = 42 + 28;
const hop = (switchId: number, ts: number) => ({
  switchId,
  ingressPort: 1,
  egressPort: 2,
  queueId: 3,
  qLen: 128,
  ts,
  txBytes: 64,
  rateBps: 100e9,
});

t.test("INT data packets and echoing ACKs check clean and are tallied", async (t) => {
  const collect = new Uint8Array(intBlockLength(IntMode.Collect, 3));
  writeIntCollect(collect, 0, 3);
  const data = frame(Opcode.RdmaWriteOnly, collect);
  pushIntHop(data, AT, data.length, hop(7, 1000));
  pushIntHop(data, AT, data.length, hop(8, 2000));
  const echo = new Uint8Array(intBlockLength(IntMode.Echo, 3));
  copyIntEcho(echo, data, AT, collect.length);
  const ack = frame(Opcode.Acknowledge, echo);
  const stamp = new Uint8Array(intBlockLength(IntMode.Timestamp, 0));
  writeIntTimestamp(stamp, 0, 42);
  const ts = frame(Opcode.RdmaWriteOnly, stamp);
  const r = checkFrames([data, ack, ts]);
  t.same(r.problems, []);
  t.same(r.int, { collect: 1, echo: 1, timestamp: 1, hops: 4, exceeded: 0 });
  t.equal(r.counts.ack, 1, "an ACK with an echo is still an ACK");
});

t.test(
  "a probe marker whose block does not add up, and a hop without a link rate, are reported",
  async (t) => {
    const collect = new Uint8Array(intBlockLength(IntMode.Collect, 3));
    writeIntCollect(collect, 0, 3);
    const data = frame(Opcode.RdmaWriteOnly, collect);
    data[AT + 14] = 5; // Hop ML 5: not the 7 words of this domain's hop
    writeIcrcV2(data, 14, data.length);
    const zero = frame(Opcode.RdmaWriteOnly, collect);
    pushIntHop(zero, AT, zero.length, { ...hop(9, 1), rateBps: 0 });
    const r = checkFrames([data, zero]);
    const messages = r.problems.map((p) => p.message);
    t.ok(
      messages.some((m) => m.startsWith("int: INT probe marker")),
      messages.join("; "),
    );
    t.ok(
      messages.some((m) => m.includes("link rate 0")),
      messages.join("; "),
    );
  },
);
