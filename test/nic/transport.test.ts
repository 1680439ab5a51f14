// RC transport between two NICs back to back in the simulator: segmentation, opcodes, AckReq, PSN wrap,
// completions, multi-QP, scheduled posts, stop, commands.

import t from "tap";
import type { MsgOpName } from "../../src/nic/transport/transport.js";
import { ArpOp, buildArpFrame, parseArp } from "../../src/wire/arp.js";
import { parseIp } from "../../src/wire/bytes.js";
import { EtherType, ethType } from "../../src/wire/ethernet.js";
import { Opcode, PSN_MASK, roceUdpSourcePort } from "../../src/wire/roce.js";
import { connect, detail, IP_A, IP_B, MAC_A, must, pair, qpStats, roceOf, runUntil } from "./support/pair.js";

const MB = 1 << 20;
const SIZES = [1, 4096, 4097, MB];

interface Seen {
  readonly t: number;
  readonly from: string;
  readonly opcode: number;
  readonly psn: number;
  readonly destQp: number;
  readonly ackReq: boolean;
  readonly length: number;
  readonly udpSrcPort: number;
  readonly dscp: number;
  readonly ecn: number;
}

/** Records every RoCE frame put on a link (before any loss). */
function tap(p: ReturnType<typeof pair>): Seen[] {
  const seen: Seen[] = [];
  p.sim.onFrame((time, from, _to, frame) => {
    const h = roceOf(frame);
    if (h === null) return;
    seen.push({
      t: time,
      from: from.device,
      opcode: h.bth.opcode,
      psn: h.bth.psn,
      destQp: h.bth.destQp,
      ackReq: h.bth.ackReq,
      length: h.payloadLength,
      udpSrcPort: (frame[34]! << 8) | frame[35]!,
      dscp: frame[15]! >>> 2,
      ecn: frame[15]! & 3,
    });
  });
  return seen;
}

for (const op of ["write", "send"] as const) {
  t.test(`${op.toUpperCase()} of 1 B, one MTU, MTU + 1 and 1 MB`, (t) => {
    const p = pair();
    const seen = tap(p);
    connect(p, 1);
    for (const [i, bytes] of SIZES.entries()) must(p.a, { type: "post", qpn: 1, op, bytes, flowId: `f${i}` });
    const end = runUntil(p.sim, () => p.a.completions.length === SIZES.length, 20_000_000);
    const flows = p.a.completions;
    t.same(
      flows.map((f) => [f.flowId, f.op, f.bytes, f.retransmits]),
      SIZES.map((b, i) => [`f${i}`, op, b, 0]),
      "one completion per message, in order, no retransmission",
    );
    for (const f of flows) t.ok(f.completedAt > f.firstSentAt && f.fctNs === f.completedAt - f.postedAt);
    const total = SIZES.reduce((a, b) => a + b);
    const rx = qpStats(p.b, 1001, end);
    t.equal(rx.bytesDelivered, total, "every byte delivered once");
    t.equal(qpStats(p.a, 1, end).bytesAcked, total, "and acknowledged");
    const cb = p.b.stats(end).counters;
    t.equal(op === "write" ? cb.rx_write_requests : cb.rx_send_requests, 4, "four request messages");
    t.equal(cb.payload_mismatch, 0);
    t.equal(cb.out_of_sequence, 0);
    t.equal(cb.duplicate_request, 0);
    // Opcodes and lengths on the wire.
    const data = seen.filter((s) => s.from === "a");
    const O = op === "write" ? Opcode : null;
    const only = O ? Opcode.RdmaWriteOnly : Opcode.SendOnly;
    const first = O ? Opcode.RdmaWriteFirst : Opcode.SendFirst;
    const middle = O ? Opcode.RdmaWriteMiddle : Opcode.SendMiddle;
    const last = O ? Opcode.RdmaWriteLast : Opcode.SendLast;
    t.equal(data.length, 1 + 1 + 2 + 256);
    t.same(
      data.slice(0, 5).map((d) => [d.opcode, d.length]),
      [
        [only, 1],
        [only, 4096],
        [first, 4096],
        [last, 1],
        [first, 4096],
      ],
    );
    t.ok(
      data.slice(5, 259).every((d) => d.opcode === middle && d.length === 4096),
      "254 middle packets of 4096 bytes",
    );
    t.same([data[259]!.opcode, data[259]!.length], [last, 4096]);
    t.same(
      data.map((d, i) => d.psn === i),
      data.map(() => true),
      "consecutive PSNs from 0",
    );
    // AckReq on every 8th PSN and on the last packet of each message.
    const lastOfMessage = new Set([0, 1, 3, 259]);
    t.ok(
      data.every((d) => d.ackReq === (lastOfMessage.has(d.psn) || (d.psn + 1) % 8 === 0)),
      "AckReq every 8 packets and on the last",
    );
    t.ok(
      data.every((d) => d.dscp === 26 && d.ecn === 2),
      "data: DSCP 26, ECT(0)",
    );
    const acks = seen.filter((s) => s.from === "b");
    t.ok(acks.length > 0 && acks.length <= data.filter((d) => d.ackReq).length, "at most one ACK per AckReq");
    t.ok(
      acks.every((a) => a.opcode === Opcode.Acknowledge && a.dscp === 26),
      "ACKs share the data DSCP by default",
    );
    const lat = detail(p.b.stats(end)).latency;
    t.equal(lat.count, 258, "one latency sample per data packet of 8 bytes or more");
    t.ok(lat.p50 >= 1334 && lat.p50 < 1400, `one-way delay ≈ 334 ns + 1 µs (${lat.p50})`);
    t.end();
  });
}

t.test("READ of 1 B, one MTU, MTU + 1 and 1 MB", (t) => {
  const p = pair();
  const seen = tap(p);
  connect(p, 1);
  for (const [i, bytes] of SIZES.entries())
    must(p.a, { type: "post", qpn: 1, op: "read", bytes, flowId: `r${i}` });
  const end = runUntil(p.sim, () => p.a.completions.length === SIZES.length, 20_000_000);
  t.same(
    p.a.completions.map((f) => [f.flowId, f.op, f.bytes]),
    SIZES.map((b, i) => [`r${i}`, "read", b]),
  );
  const total = SIZES.reduce((a, b) => a + b);
  t.equal(qpStats(p.a, 1, end).readBytesReceived, total, "every byte read once");
  t.equal(qpStats(p.b, 1001, end).bytesSent, total, "the responder sent each byte once");
  t.equal(p.b.stats(end).counters.rx_read_requests, 4);
  t.equal(p.a.stats(end).counters.payload_mismatch, 0);
  const requests = seen.filter((s) => s.from === "a");
  t.same(
    requests.map((r) => [r.opcode, r.psn]),
    [
      [Opcode.RdmaReadRequest, 0],
      [Opcode.RdmaReadRequest, 1],
      [Opcode.RdmaReadRequest, 2],
      [Opcode.RdmaReadRequest, 4],
    ],
    "a READ takes one PSN per response packet",
  );
  const responses = seen.filter((s) => s.from === "b");
  t.same(
    responses.slice(0, 5).map((r) => [r.opcode, r.psn, r.length]),
    [
      [Opcode.RdmaReadResponseOnly, 0, 1],
      [Opcode.RdmaReadResponseOnly, 1, 4096],
      [Opcode.RdmaReadResponseFirst, 2, 4096],
      [Opcode.RdmaReadResponseLast, 3, 1],
      [Opcode.RdmaReadResponseFirst, 4, 4096],
    ],
  );
  t.equal(responses.length, 260);
  t.equal(responses[259]!.opcode, Opcode.RdmaReadResponseLast);
  t.ok(
    responses.every((r) => r.dscp === 26 && r.ecn === 2),
    "responses are data: DSCP 26, ECT(0)",
  );
  const read = p.a.completions[3]!;
  t.ok(read.fctNs > 256 * 334, "a 1 MB read takes at least its wire time");
  t.end();
});

t.test("PSNs wrap around 2^24", (t) => {
  const p = pair();
  const seen = tap(p);
  const psnA = PSN_MASK - 99;
  connect(p, 1, { psnA, psnB: PSN_MASK - 2 });
  const ops: MsgOpName[] = ["write", "read", "send"];
  for (const op of ops) must(p.a, { type: "post", qpn: 1, op, bytes: MB, flowId: op });
  must(p.b, { type: "post", qpn: 1001, op: "write", bytes: MB, flowId: "back" });
  const end = runUntil(p.sim, () => p.a.completions.length === 3 && p.b.completions.length === 1, 20_000_000);
  t.equal(p.a.completions.length, 3, "A's three messages complete");
  t.equal(p.b.completions.length, 1, "B's write completes");
  t.equal(qpStats(p.b, 1001, end).bytesDelivered, 2 * MB);
  t.equal(qpStats(p.a, 1, end).readBytesReceived, MB);
  t.equal(qpStats(p.a, 1, end).bytesDelivered, MB);
  const fromA = seen.filter((s) => s.from === "a" && s.opcode !== Opcode.Acknowledge).map((s) => s.psn);
  t.equal(fromA[0], psnA, "starts at the given PSN");
  t.ok(fromA.includes(PSN_MASK) && fromA.includes(0), "crosses 0xFFFFFF → 0");
  const readPsns = seen.filter((s) => s.opcode === Opcode.RdmaReadResponseFirst).map((s) => s.psn);
  t.same(readPsns, [(psnA + 256) & PSN_MASK], "the READ's PSN range follows the WRITE's");
  for (const nic of [p.a, p.b]) {
    const c = nic.stats(end).counters;
    t.equal(c.out_of_sequence! + c.duplicate_request! + c.retransmitted_packets! + c.payload_mismatch!, 0);
  }
  t.end();
});

t.test("several QPs between one host pair: own UDP source ports, interleaved", (t) => {
  const p = pair();
  const seen = tap(p);
  for (let q = 1; q <= 4; q++) connect(p, q);
  connect(p, 5, { udpSrcPort: 0xd00d });
  for (let q = 1; q <= 5; q++) must(p.a, { type: "post", qpn: q, op: "write", bytes: MB, flowId: `q${q}` });
  const end = runUntil(p.sim, () => p.a.completions.length === 5, 20_000_000);
  t.equal(p.a.completions.length, 5);
  const ports = new Map<number, Set<number>>();
  for (const s of seen.filter((x) => x.from === "a")) {
    const set = ports.get(s.destQp) ?? new Set<number>();
    set.add(s.udpSrcPort);
    ports.set(s.destQp, set);
  }
  for (let q = 1; q <= 4; q++) {
    t.same([...ports.get(q + 1000)!], [roceUdpSourcePort(q, q + 1000)], `QP ${q}: rdma-core's port`);
    t.equal(qpStats(p.b, q + 1000, end).bytesDelivered, MB);
  }
  t.same([...ports.get(1005)!], [0xd00d], "a given port is used");
  const distinct = new Set([...ports.values()].map((s) => [...s][0]));
  t.equal(distinct.size, 5, "five different source ports");
  const firstTen = seen.filter((x) => x.from === "a").slice(0, 10);
  t.equal(new Set(firstTen.map((x) => x.destQp)).size, 5, "round robin over the QPs");
  const done = p.a.completions.map((f) => f.completedAt);
  t.ok(Math.max(...done) - Math.min(...done) < 20_000, "they share the link and finish together");
  t.end();
});

t.test("a post scheduled in the future runs on the NIC's own timer; stop flushes everything", (t) => {
  const p = pair();
  connect(p, 1);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 4096, flowId: "later", at: 500_000 });
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 4096, flowId: "cancelled", at: 900_000 });
  p.sim.run(400_000);
  t.equal(qpStats(p.a, 1, 400_000).bytesSent, 0, "nothing before its time");
  p.sim.run(800_000);
  const f = p.a.completions[0]!;
  t.equal(f.flowId, "later");
  t.equal(f.postedAt, 500_000);
  t.equal(f.firstSentAt, 500_000);
  t.equal(f.status, "success");
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "started" }, 800_000);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "dropped1" }, 800_000);
  must(p.a, { type: "post", qpn: 1, op: "read", bytes: MB, flowId: "dropped2" }, 800_000);
  p.sim.run(810_000);
  const r = p.a.command({ type: "stop" }, 810_000);
  t.same(r, { ok: true, dropped: 4 }, "three posted and one scheduled request stopped");
  t.same(
    p.a.completions.map((c) => [c.flowId, c.status, c.completedAt]),
    [
      ["later", "success", f.completedAt],
      ["started", "stopped", 810_000],
      ["dropped1", "stopped", 810_000],
      ["dropped2", "stopped", 810_000],
      ["cancelled", "stopped", 810_000],
    ],
    "the started message is stopped too, in posting order, at once",
  );
  const sent = qpStats(p.a, 1, 810_000).bytesSent;
  p.sim.run(3_000_000);
  t.equal(qpStats(p.a, 1, 3_000_000).bytesSent, sent, "nothing more is sent");
  t.equal(qpStats(p.a, 1, 3_000_000).state, "error");
  must(p.a, { type: "post", qpn: 1, op: "send", bytes: 5000, flowId: "after" }, 3_000_000);
  t.same(p.a.completions.at(-1), { ...p.a.completions.at(-1)!, flowId: "after", status: "flushed" });
  const c = p.a.stats(3_000_000).counters;
  t.equal(c.req_cqe_flush_error, 5, "every stopped or flushed request counted");
  t.equal(c.req_cqe_error, 0);
  t.equal(c.flows_completed, 1);
  t.end();
});

t.test("a post given a start time already past starts now and is counted late", (t) => {
  const p = pair();
  connect(p, 1);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 4096, flowId: "on-time", at: 0 });
  t.equal(p.a.stats(0).counters.posts_late, 0, "a start at now is on time");
  p.sim.run(100_000);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 4096, flowId: "late", at: 70_000 }, 100_000);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 4096, flowId: "later", at: 95_000 }, 100_000);
  p.sim.run(400_000);
  const late = p.a.completions.find((c) => c.flowId === "late")!;
  t.equal(late.postedAt, 100_000, "started when it arrived, not at the past time");
  const c = p.a.stats(400_000).counters;
  t.equal(c.posts_late, 2, "both late posts counted");
  t.equal(c.post_late_max_ns, 30_000, "the latest by how much");
  t.equal(p.a.completions.length, 3, "every post ran");
  t.end();
});

t.test("commands are validated", (t) => {
  const p = pair();
  connect(p, 1);
  const bad = [
    { type: "create-qp", qpn: 0, remoteQpn: 1, remoteIp: IP_B },
    { type: "create-qp", qpn: 1, remoteQpn: 5, remoteIp: IP_B },
    { type: "create-qp", qpn: 2, remoteQpn: 1 << 24, remoteIp: IP_B },
    { type: "create-qp", qpn: 2, remoteQpn: 5, remoteIp: IP_B, startPsn: 1 << 24 },
    { type: "create-qp", qpn: 2, remoteQpn: 5, remoteIp: IP_B, udpSrcPort: 70000 },
    { type: "post", qpn: 9, op: "write", bytes: 1, flowId: "x" },
    { type: "post", qpn: 1, op: "atomic", bytes: 1, flowId: "x" },
    { type: "post", qpn: 1, op: "write", bytes: 0, flowId: "x" },
    { type: "post", qpn: 1, op: "write", bytes: 2 ** 32, flowId: "x" },
    { type: "configure", settings: { transport: { ackReqEvery: 0 } } },
    { type: "configure", settings: { rxBuffer: { enabled: true, xoff: 10, xon: 20 } } },
  ] as const;
  for (const cmd of bad) {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately malformed commands
    const r = p.a.command(cmd as any, 0);
    t.notOk(r.ok, `${JSON.stringify(cmd)} is refused${r.ok ? "" : `: ${r.error}`}`);
  }
  const ok = p.a.command({ type: "create-qp", qpn: 2, remoteQpn: 1002, remoteIp: IP_B }, 0);
  t.same(ok, { ok: true, udpSrcPort: roceUdpSourcePort(2, 1002) }, "create-qp replies with the UDP port");
  t.end();
});

t.test("ARP requests for our address are answered unless answerArp is off", (t) => {
  for (const answer of [true, false]) {
    const p = pair({ b: { answerArp: answer } });
    const replies: Uint8Array[] = [];
    p.sim.onFrame((_t, from, _to, frame) => {
      if (from.device === "b" && ethType(frame) === EtherType.ARP) replies.push(frame);
    });
    const ask = (targetIp: number) =>
      buildArpFrame({ op: ArpOp.Request, senderMac: MAC_A, senderIp: IP_A, targetMac: 0, targetIp });
    p.sim.at(1000, (now) => {
      p.b.receive(1, ask(IP_B), now);
      p.b.receive(1, ask(parseIp("10.0.0.9")!), now);
    });
    p.sim.run(10_000);
    t.equal(replies.length, answer ? 1 : 0, `answerArp ${answer}`);
    if (answer) {
      const arp = parseArp(replies[0]!, 14);
      t.ok(
        arp.ok && arp.value.op === ArpOp.Reply && arp.value.senderIp === IP_B && arp.value.targetIp === IP_A,
      );
    }
  }
  t.end();
});

t.test("clear-counters and configure", (t) => {
  const p = pair();
  connect(p, 1);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: MB, flowId: "w" });
  p.sim.run(1_000_000);
  t.equal(p.b.stats(1_000_000).counters.rx_packets, 256, "256 data packets arrived");
  must(p.b, { type: "clear-counters" });
  const s = p.b.stats(1_000_000);
  t.equal(s.counters.rx_packets, 0);
  t.equal(s.counters.rx_write_requests, 0);
  t.equal(detail(s).latency.count, 0);
  must(p.a, { type: "configure", settings: { dcqcn: { profile: "paper" }, transport: { ackReqEvery: 4 } } });
  t.equal(qpStats(p.a, 1, 1_000_000).rateBps, 100e9, "DCQCN restarts at line rate");
  t.equal(p.a.config.dcqcn.profile, "paper");
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 64 * 1024, flowId: "w2" }, 1_000_000);
  p.sim.run(2_000_000);
  t.equal(p.b.stats(2_000_000).counters.acks_sent, 4, "AckReq every 4 packets now: 16 packets, 4 ACKs");
  t.end();
});
