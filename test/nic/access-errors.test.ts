// The responder's access and opcode checks on the wire (IBTA Vol. 1 9.7.5.1, 9.9.3.1 responder class C):
// a WRITE or READ outside the registered region draws NAK Remote Access Error (AETH 0x62), an RC request
// opcode the NIC does not execute (immediate data, atomics, reserved) NAK Invalid Request (0x61), each
// after the PSN check; a zero-length transfer is not checked (C9-88); an opcode of another transport is
// dropped without an answer. Then the requester's side: its completion for each.

import t from "tap";
import { writeIcrcV2 } from "../../src/wire/icrc.js";
import { AethSyndrome, Opcode } from "../../src/wire/roce.js";
import { acksFromB, boxed, forged, REGION_B, reth, withOpcode } from "./support/forge.js";
import { must, qpStats, roceOf, runUntil } from "./support/pair.js";

const MTU = 4096;
const GIB4 = 1n << 32n;

t.test("a WRITE or READ outside the region: NAK Remote Access Error 0x62 for its PSN", (t) => {
  const cases = [
    { what: "a WRITE below the region", opcode: Opcode.RdmaWriteOnly, length: 256, va: REGION_B - 4096n },
    { what: "a WRITE past its end", opcode: Opcode.RdmaWriteOnly, length: 256, va: REGION_B + GIB4 - 100n },
    {
      what: "a WRITE First past its end",
      opcode: Opcode.RdmaWriteFirst,
      length: MTU,
      va: REGION_B + GIB4 - 8192n,
    },
    { what: "a READ past its end", opcode: Opcode.RdmaReadRequest, length: 0, va: REGION_B + GIB4 - 1n },
    {
      what: "a WRITE into another QP's region",
      opcode: Opcode.RdmaWriteOnly,
      length: 64,
      va: REGION_B + GIB4,
    },
  ];
  for (const k of cases) {
    const p = boxed();
    const acks = acksFromB(p);
    // The RETH's DMA length: the packet's payload, or 3 MTUs for the First and the READ.
    const dma = k.opcode === Opcode.RdmaWriteOnly ? k.length : 3 * MTU;
    p.box!.inject(
      2,
      forged({ opcode: k.opcode, psn: 0, length: k.length, reth: reth(dma, undefined, k.va) }),
    );
    p.sim.run(100_000);
    t.same(
      acks.map(([psn, syn]) => [psn, syn]),
      [[0, AethSyndrome.NakRemoteAccessError]],
      `${k.what}: one NAK 0x62 for PSN 0`,
    );
    const c = p.b.stats(100_000).counters;
    t.equal(c.resp_remote_access_errors, 1, `${k.what}: resp_remote_access_errors`);
    t.equal(c.resp_cqe_error, 1);
    t.equal((c.rx_write_requests ?? 0) + (c.rx_read_requests ?? 0), 0, "nothing executed");
    t.equal(qpStats(p.b, 1001, 100_000).state, "error", `${k.what}: B's QP is in the error state`);
  }
  t.end();
});

t.test("inside the region up to its last byte, and zero-length transfers, are executed", (t) => {
  const p = boxed();
  const acks = acksFromB(p);
  // The last 256 bytes of the region.
  p.box!.inject(
    2,
    forged({
      opcode: Opcode.RdmaWriteOnly,
      psn: 0,
      length: 256,
      reth: reth(256, undefined, REGION_B + GIB4 - 256n),
    }),
  );
  // C9-88: a zero-length WRITE checks neither R_Key nor VA.
  p.box!.inject(2, forged({ opcode: Opcode.RdmaWriteOnly, psn: 1, length: 0, reth: reth(0, 0x1234, 0n) }));
  p.sim.run(100_000);
  t.same(
    acks.map(([psn, syn]) => [psn, syn]),
    [
      [0, AethSyndrome.AckUnlimited],
      [1, AethSyndrome.AckUnlimited],
    ],
    "both ACKed",
  );
  const c = p.b.stats(100_000).counters;
  t.equal(c.rx_write_requests, 2);
  t.equal(c.resp_remote_access_errors, 0);
  t.equal(qpStats(p.b, 1001, 100_000).state, "rts");
  t.end();
});

t.test("the requester: a READ whose VA is spoiled on the way completes remote_access at once", (t) => {
  const p = boxed();
  // The middlebox moves A's READ request's VA one region up (ICRC recomputed: the bytes are valid).
  p.box!.dropIf = (frame, from) => {
    const h = roceOf(frame);
    if (from === 1 && h?.bth.opcode === Opcode.RdmaReadRequest) {
      const va = h.payloadOffset - 16;
      frame[va + 3] = frame[va + 3]! + 1;
      writeIcrcV2(frame, 14, frame.length);
    }
    return false;
  };
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 8 * MTU, flowId: "w" });
  must(p.a, { type: "post", qpn: 1, op: "read", bytes: 8 * MTU, flowId: "r" });
  must(p.a, { type: "post", qpn: 1, op: "send", bytes: 100, flowId: "s" });
  const end = runUntil(p.sim, () => p.a.completions.length === 3, 50_000_000, 10_000);
  t.same(
    p.a.completions.map((x) => [x.flowId, x.status]),
    [
      ["w", "success"],
      ["r", "remote_access"],
      ["s", "flushed"],
    ],
  );
  t.ok(end < 100_000, `within a round trip (${end} ns)`);
  t.equal(p.a.stats(end).counters.req_remote_access_errors, 1);
  t.equal(p.b.stats(end).counters.resp_remote_access_errors, 1);
  t.end();
});

t.test("unsupported and reserved RC request opcodes: NAK Invalid Request 0x61, not malformed", (t) => {
  const cases = [
    { what: "SEND Only with Immediate (0x05)", opcode: 0x05 },
    { what: "RDMA WRITE Only with Immediate (0x0b)", opcode: 0x0b },
    { what: "Compare & Swap (0x13)", opcode: 0x13 },
    { what: "Fetch & Add (0x14)", opcode: 0x14 },
    { what: "reserved RC opcode 0x15", opcode: 0x15 },
    { what: "SEND Only with Invalidate (0x17)", opcode: 0x17 },
    { what: "reserved RC opcode 0x1f", opcode: 0x1f },
  ];
  for (const k of cases) {
    const p = boxed();
    const acks = acksFromB(p);
    // 28 bytes: an AtomicETH's size, and room for any immediate data.
    p.box!.inject(2, withOpcode(forged({ opcode: Opcode.SendOnly, psn: 0, length: 28 }), k.opcode));
    p.sim.run(100_000);
    t.same(
      acks.map(([psn, syn]) => [psn, syn]),
      [[0, AethSyndrome.NakInvalidRequest]],
      `${k.what}: one NAK 0x61 for PSN 0`,
    );
    const c = p.b.stats(100_000).counters;
    t.equal(c.rx_invalid_request, 1, `${k.what}: rx_invalid_request`);
    t.equal(c.drop_malformed, 0, `${k.what}: not malformed`);
    t.equal(c.resp_cqe_error, 1);
    t.equal(qpStats(p.b, 1001, 100_000).state, "error", `${k.what}: B's QP is in the error state`);
  }
  t.end();
});

t.test(
  "the PSN check comes first: an unsupported opcode ahead is out of sequence, behind a duplicate",
  (t) => {
    const p = boxed();
    const acks = acksFromB(p);
    // Ahead of the expected PSN 0: NAK PSN-sequence error for PSN 0, the QP stays ready.
    p.box!.inject(2, withOpcode(forged({ opcode: Opcode.SendOnly, psn: 5, length: 28 }), 0x14));
    p.sim.run(50_000);
    t.same(acks.at(-1)!.slice(0, 2), [0, AethSyndrome.NakPsnSequenceError], "ahead: NAK PSN-sequence error");
    t.equal(qpStats(p.b, 1001, 50_000).state, "rts");
    // PSN 0 arrives (a real SEND), then the atomic at PSN 0 again: a duplicate, ACKed.
    p.box!.inject(2, forged({ opcode: Opcode.SendOnly, psn: 0, length: 28 }));
    p.sim.run(100_000);
    p.box!.inject(2, withOpcode(forged({ opcode: Opcode.SendOnly, psn: 0, length: 28 }), 0x14));
    p.sim.run(150_000);
    t.same(
      acks.slice(1).map(([psn, syn]) => [psn, syn]),
      [
        [0, AethSyndrome.AckUnlimited],
        [0, AethSyndrome.AckUnlimited],
      ],
      "the SEND ACKed, the duplicate re-ACKed",
    );
    const c = p.b.stats(150_000).counters;
    t.equal(c.duplicate_request, 1);
    t.equal(c.rx_invalid_request, 0);
    t.equal(qpStats(p.b, 1001, 150_000).state, "rts", "no error: the PSN check decided");
    t.end();
  },
);

t.test("an opcode of another transport (UC SEND Only 0x24) for an RC QP is dropped unanswered", (t) => {
  const p = boxed();
  const acks = acksFromB(p);
  p.box!.inject(2, withOpcode(forged({ opcode: Opcode.SendOnly, psn: 0, length: 28 }), 0x24));
  p.sim.run(100_000);
  t.same(acks, [], "no NAK");
  const c = p.b.stats(100_000).counters;
  t.equal(c.drop_malformed, 1, "counted as malformed (no layout here)");
  t.equal(qpStats(p.b, 1001, 100_000).state, "rts");
  t.end();
});

t.test("the requester: a SEND turned into SEND with Immediate completes invalid_request", (t) => {
  const p = boxed();
  p.box!.dropIf = (frame, from) => {
    const h = roceOf(frame);
    if (from === 1 && h?.bth.opcode === Opcode.SendOnly)
      frame.set(withOpcode(frame, Opcode.SendOnlyWithImmediate));
    return false;
  };
  must(p.a, { type: "post", qpn: 1, op: "send", bytes: 100, flowId: "s" });
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 100, flowId: "w" });
  const end = runUntil(p.sim, () => p.a.completions.length === 2, 50_000_000, 10_000);
  t.same(
    p.a.completions.map((x) => [x.flowId, x.status]),
    [
      ["s", "invalid_request"],
      ["w", "flushed"],
    ],
  );
  t.equal(p.a.stats(end).counters.req_remote_invalid_request, 1);
  t.equal(p.b.stats(end).counters.rx_invalid_request, 1);
  t.end();
});
