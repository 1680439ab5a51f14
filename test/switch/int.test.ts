// The switch `int` feature on its own (src/switch/features/int.ts): a transit hop writes its record into
// the INT-MD block of a RoCEv2 packet as the packet leaves the egress queue — switch id, ingress and egress
// port, queue, bytes still queued on the port, the dequeue time, the bytes the port sent before it, the
// link rate (HPCC's ns-3 SwitchNotifyDequeue) — keeps the ICRC valid, sets E and counts `int_hops_full`
// when no slot is left, and leaves every other packet as it came.

import t from "tap";
import { IntCounter } from "../../src/switch/features/int.js";
import { verifyIcrcV2 } from "../../src/wire/icrc.js";
import {
  copyIntEcho,
  emptyIntHop,
  IntMode,
  intBlockLength,
  intExceeded,
  intHopCount,
  intHopOffset,
  pushIntHop,
  readIntHop,
  writeIntCollect,
  writeIntTimestamp,
} from "../../src/wire/int-md.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { buildRoceV2Frame, Opcode } from "../../src/wire/roce.js";
import { peerIp, peerMac, portMac, RATE_BPS, SwitchHarness } from "./harness.js";

const SWITCH_ID = 0x77;
/** Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16. */
const AT = 70;
const BTH = 42;

function collect(slots: number): Uint8Array {
  const b = new Uint8Array(intBlockLength(IntMode.Collect, slots));
  writeIntCollect(b, 0, slots);
  return b;
}

/** A RDMA WRITE ONLY from the peer of port 1 to the peer of port 2, with `int` after its RETH. */
function write(psn: number, int: Uint8Array | null, payload = 1000): Uint8Array {
  return buildRoceV2Frame({
    srcMac: peerMac(1),
    dstMac: portMac(1),
    srcIp: peerIp(1),
    dstIp: peerIp(2),
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: 0xc001,
    opcode: Opcode.RdmaWriteOnly,
    destQp: 0x12,
    psn,
    reth: { va: 0x1000n, rkey: 1, dmaLength: payload },
    payload: new Uint8Array(payload).fill(psn),
    int,
  });
}

function bench(enabled = true): SwitchHarness {
  return new SwitchHarness({ settings: { int: { enabled, switchId: SWITCH_ID } } }).start();
}

t.test(
  "each packet gets the record of its dequeue: ports, queue, backlog, time, bytes sent, rate",
  async (t) => {
    const h = bench();
    const frames = [write(1, collect(5)), write(2, collect(5)), write(3, collect(5), 500)];
    const arrived = h.now;
    for (const f of frames) h.deliver(1, f);
    h.run(h.now + 1_000_000);
    const out = h.data(2);
    t.equal(out.length, 3, "all three forwarded");
    // Port 2 sent one frame before these: its 60-byte ARP request at start.
    let sentBefore = 60;
    for (let i = 0; i < 3; i++) {
      const f = out[i]!.frame;
      const len = 164;
      t.ok(verifyIcrcV2(f, 14, f.length), `packet ${i}: ICRC valid after the switch wrote into it`);
      t.equal(intHopCount(f, AT, len), 1, `packet ${i}: one record`);
      const r = readIntHop(f, intHopOffset(AT, len, 0), emptyIntHop());
      // What is still queued on port 2 when packet i leaves: the packets behind it (all delivered at once).
      let backlog = 0;
      for (let j = i + 1; j < 3; j++) backlog += frames[j]!.length;
      t.same(
        r,
        {
          switchId: SWITCH_ID,
          ingressPort: 1,
          egressPort: 2,
          queueId: 3,
          qLen: i === 0 ? 0 : backlog,
          // Dequeued on arrival, then each as the one before it finished serialising (the bench
          // records a transmission when its last bit leaves).
          ts: i === 0 ? arrived : out[i - 1]!.t,
          txBytes: sentBefore,
          rateBps: RATE_BPS,
        },
        `packet ${i}: the record`,
      );
      sentBefore += frames[i]!.length;
    }
    t.ok(out[1]!.t > out[0]!.t, "the second packet waited for the first");
    t.equal(h.portCounter(2, IntCounter.stamped.name), 3);
    t.equal(h.portCounter(2, IntCounter.full.name), 0);
  },
);

t.test("a full stack gets E, no record, and is counted in int_hops_full", async (t) => {
  const h = bench();
  const f = write(1, collect(1));
  pushIntHop(f, AT, f.length, { ...emptyIntHop(), switchId: 1, rateBps: 25e9 });
  h.deliver(1, f);
  h.run(h.now + 100_000);
  const out = h.data(2)[0]!.frame;
  t.ok(intExceeded(out, AT), "E set");
  t.equal(readIntHop(out, intHopOffset(AT, 52, 0), emptyIntHop()).switchId, 1, "the earlier record kept");
  t.ok(verifyIcrcV2(out, 14, out.length), "ICRC valid");
  t.equal(h.portCounter(2, IntCounter.full.name), 1);
  t.equal(h.portCounter(2, IntCounter.stamped.name), 0);
});

t.test("packets that do not ask, and switches with INT off, are left as they came", async (t) => {
  const stamp = new Uint8Array(intBlockLength(IntMode.Timestamp, 0));
  writeIntTimestamp(stamp, 0, 99);
  const asking = write(9, collect(2));
  const echo = new Uint8Array(intBlockLength(IntMode.Echo, 2));
  copyIntEcho(echo, asking, AT, 108);
  const others = [write(4, null), write(5, stamp), write(6, echo)];
  const h = bench();
  for (const f of others) h.deliver(1, f);
  h.run(h.now + 1_000_000);
  const out = h.data(2);
  t.equal(out.length, 3);
  for (let i = 0; i < 3; i++) {
    t.same(out[i]!.frame.subarray(BTH), others[i]!.subarray(BTH), `packet ${i}: transport bytes untouched`);
  }
  t.equal(h.portCounter(2, IntCounter.stamped.name), 0);
  const off = bench(false);
  off.deliver(1, asking);
  off.run(off.now + 100_000);
  const passed = off.data(2)[0]!.frame;
  t.same(passed.subarray(BTH), write(9, collect(2)).subarray(BTH), "INT off: the block stays empty");
  t.equal(off.portCounter(2, IntCounter.stamped.name), 0);
});
