// Reading HPCC's ns-3 outputs (FCT, PFC, the binary trace) and putting them in rocelab's terms for
// `sim-vs-ns3 --buffers …`. The trace records are built here byte by byte in trace-format.h's layout.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { ns3Incast, writeNs3Input } from "../../scripts/bench/hpcc-ns3.js";
import {
  ns3NodeOfIp,
  PauseLog,
  parseNs3Flows,
  parseNs3Pfc,
  parseNs3Trace,
  readNs3TraceFile,
} from "../../scripts/bench/hpcc-ns3-output.js";
import {
  BYTE_SCALE,
  buildCase,
  caseName,
  FAT_TREE_ARRIVALS_NS,
  FAT_TREE_DURATION_NS,
  runOurs,
  WIRE_SCALE,
} from "../../scripts/bench/ns3-cases.js";
import {
  fidelityCases,
  metricsOf,
  ns3Outcome,
  pairedRatioCell,
  ratioCell,
  spreadCell,
} from "../../scripts/bench/ns3-fidelity.js";
import { tempDir } from "../helpers/temp-dir.js";

/** A SimSetting header with `ports` entries, then the records. */
function trace(ports: number, records: readonly Uint8Array[]): Uint8Array {
  const head = new Uint8Array(4 + ports * 11 + 4);
  new DataView(head.buffer).setUint32(0, ports, true);
  const out = new Uint8Array(head.length + records.length * 56);
  out.set(head);
  records.forEach((r, i) => {
    out.set(r, head.length + i * 56);
  });
  return out;
}

function record(r: {
  event: number;
  nodeType?: number;
  qidx?: number;
  qlen?: number;
  size?: number;
  proto?: number;
  ecn?: number;
  ackFlags?: number;
}): Uint8Array {
  const b = new Uint8Array(56);
  const v = new DataView(b.buffer);
  v.setUint8(11, r.qidx ?? 3);
  v.setUint32(12, r.qlen ?? 0, true);
  v.setUint16(24, r.size ?? 1048, true);
  v.setUint8(26, r.proto ?? 0x11);
  v.setUint8(27, r.event);
  v.setUint8(28, r.ecn ?? 0);
  v.setUint8(29, r.nodeType ?? 1);
  v.setUint16(36, r.ackFlags ?? 0, true);
  return b;
}

t.test("the trace: the queue a data packet joined, CE marks and CNP-flagged ACKs at switches", (t) => {
  const buf = trace(3, [
    record({ event: 1, qlen: 50_000 }), // joins 50,000 bytes: 51,048
    record({ event: 1, qlen: 70_000, qidx: 0, size: 60 }), // the high-priority queue: not a data queue
    record({ event: 1, qlen: 90_000, nodeType: 0 }), // a host's queue: not a switch
    record({ event: 2, ecn: 3 }), // a CE-marked data packet leaves
    record({ event: 2, ecn: 1 }),
    record({ event: 2, proto: 0xfc, ackFlags: 1, qidx: 0, size: 60 }), // ACK with the CNP flag
    record({ event: 2, proto: 0xfd, ackFlags: 1, qidx: 0, size: 60 }), // NACK with it
    record({ event: 2, proto: 0xfc, ackFlags: 0, qidx: 0, size: 60 }),
  ]);
  t.same(parseNs3Trace(buf), { queuePeakBytes: 51_048, cnps: 2, ceMarked: 1, records: 8 });
  t.throws(() => parseNs3Trace(buf.subarray(0, buf.length - 1)), /not a header of 3 ports and whole 56-byte/);
  // The same from a file, read a chunk at a time (a fat tree's trace of every switch runs to hundreds of MB).
  const dir = tempDir("rocelab-ns3-trace-");
  writeFileSync(join(dir, "mix.tr"), buf);
  t.same(readNs3TraceFile(join(dir, "mix.tr")), parseNs3Trace(buf), "the file read in chunks: the same");
  writeFileSync(join(dir, "short.tr"), buf.subarray(0, buf.length - 1));
  t.throws(() => readNs3TraceFile(join(dir, "short.tr")), /not a header of 3 ports and whole 56-byte/);
  t.end();
});

t.test("the PFC file: pauses and resumes received", (t) => {
  t.same(parseNs3Pfc("2000 2 0 1 1\n2500 2 0 1 0\n2600 3 0 1 1\n"), {
    pauses: 2,
    resumes: 1,
    longPauses: [0, 0, 0],
  });
  t.throws(() => parseNs3Pfc("2000 2 0 1\n"), /line 1/);
  t.end();
});

t.test("pause lengths: each pause of a device's port until its resume, at least 20, 40 and 80 µs", (t) => {
  // node 2 port 1: 50 µs; node 3 port 1: 90 µs; node 2 port 2: 19.999 µs; node 4 port 1 never resumed.
  const text = [
    "0 2 1 1 1",
    "0 2 1 2 1",
    "10000 3 1 1 1",
    "19999 2 1 2 0",
    "20000 4 1 1 1",
    "50000 2 1 1 0",
    "100000 3 1 1 0",
  ].join("\n");
  t.same(parseNs3Pfc(text).longPauses, [2, 2, 1]);
  const ours = new PauseLog();
  const ev = (kind: string, t: number, port: number) => ({ kind, t, device: "sw", port, priority: 3 });
  for (const e of [
    ev("pfc-xoff", 0, 1),
    ev("pfc-xoff", 1000, 2),
    ev("pfc-xon", 41_000, 2),
    ev("pfc-xon", 80_000, 1),
  ])
    ours.onEvent(e);
  t.equal(ours.pauses, 2, "XOFF assertions");
  t.same(ours.counts, [2, 2, 1], "80 µs on port 1, 40 µs on port 2");
  t.end();
});

t.test("our run counts its long pauses: the 16:1 incast at 2 MiB without congestion control", (t) => {
  // docs/fidelity.md ("Why rocelab has fewer long pauses"): 385 pauses, every one of 20 µs or more, 291 of
  // 40 µs or more and none of 80 (HPCC's ns-3: 377 pauses; 306, 225 and 69).
  const b = buildCase({ kind: "incast", senders: 16, bufferMiB: 2, cc: "off" }, "hpcc-ns3", 1);
  const o = runOurs(b);
  t.equal(o.pauses, 385);
  t.same(o.longPauses, [385, 291, 0]);
  t.same(metricsOf(o).longPauses, [385, 291, 0]);
  t.end();
});

t.test("FCT lines: node ids from HPCC's addresses, sizes, FCT and standalone FCT", (t) => {
  t.equal(ns3NodeOfIp(0x0b000201), 2);
  t.equal(ns3NodeOfIp(0x0b010101), 257, "node 257 wraps into the second octet");
  t.same(parseNs3Flows("0b000301 0b000101 10000 100 5000 1200 9000 3000\n"), [
    { src: 3, dst: 1, bytes: 5000, startNs: 1200, fctNs: 9000, idealNs: 3000 },
  ]);
  t.end();
});

t.test("HPCC's outcome matched to its input flows; one without an FCT line is unfinished", (t) => {
  const input = [
    { src: 2, dst: 1, bytes: 5000, startNs: 0 },
    { src: 2, dst: 1, bytes: 5000, startNs: 10 },
    { src: 3, dst: 1, bytes: 20_000_000, startNs: 0 },
  ];
  const o = ns3Outcome(
    {
      wallMs: 1,
      cpuMs: 1,
      flows: [
        { src: 2, dst: 1, bytes: 5000, startNs: 10, fctNs: 8000, idealNs: 4000 },
        { src: 2, dst: 1, bytes: 5000, startNs: 0, fctNs: 6000, idealNs: 4000 },
      ],
      pauses: 4,
      resumes: 4,
      drops: 2,
      trace: { queuePeakBytes: 9000, cnps: 3, ceMarked: 3, records: 10 },
    },
    input,
  );
  t.same(
    o.flows.map((f) => f.fctNs),
    [6000, 8000, null],
    "in order of start; the 20 MB flow never finished",
  );
  t.equal(o.dataPackets, 10, "5 + 5 packets of 1000 bytes delivered");
  const m = metricsOf(o);
  t.equal(m.fctMax, Number.POSITIVE_INFINITY, "an unfinished flow is counted, as +∞");
  t.same([m.done, m.total], [2, 3]);
  t.equal(m.buckets[0]!.p50, 1.5, "slowdowns 1.5 and 2 under 100 KB: the lower median (nearest rank)");
  t.equal(m.buckets[3]!.p99, Number.POSITIVE_INFINITY, "≥ 10 MB: the unfinished one");
  t.equal(m.cnpFraction, 0.3);
  t.equal(m.drops, 2, "the lossless drops HPCC printed");
  t.end();
});

t.test("ratios and spreads of the means over seeds", (t) => {
  t.equal(ratioCell([102, 104], [100, 100]), "1.03*", "3 apart, standard error 1: a difference");
  t.equal(ratioCell([90, 116], [100, 100]), "1.03", "3 apart, standard error 13: within the spread");
  t.equal(ratioCell([103], [100]), "1.03", "one seed: no verdict");
  t.equal(ratioCell([0, 0], [0, 0]), "=");
  t.equal(ratioCell([12, 14], [0, 0]), "13.00 / 0.00*", "a ratio to 0 shows both figures");
  t.equal(spreadCell([1000, 3000], 1000, 1), "2.0 (1.0–3.0)");
  // Paired: ratios 1.1, 1.2, 1.3: mean 1.2, sd 0.1, ± 4.30 × 0.1 / √3 = 0.25.
  t.equal(pairedRatioCell([11, 24, 39], [10, 20, 30]), "1.20 (0.95–1.45)");
  t.equal(pairedRatioCell([11, 12, 13], [10, 10, 10]), "1.20 (0.95–1.45)");
  t.equal(pairedRatioCell([21, 22, 23], [10, 10, 10]), "2.20 (1.95–2.45)*", "the interval leaves out 1");
  t.equal(pairedRatioCell([1, 2], [1, Number.POSITIVE_INFINITY]), "1.50 / unfinished");
  t.equal(pairedRatioCell([0, 0, 0], [86, 300, 2970]), "0.00 / 1,119", "a ratio to 0 shows both means");
  t.equal(spreadCell([5, 5]), "5");
  t.equal(spreadCell([Number.NaN, Number.NaN]), "no flow", "a size bucket empty in every seed");
  t.equal(pairedRatioCell([Number.NaN], [Number.NaN]), "no flow");
  t.equal(spreadCell([2, Number.NaN, 4], 1, 1), "3.0 (2.0–4.0)", "a seed without such a flow left out");
  t.equal(
    pairedRatioCell([11, Number.NaN, 12, 13], [10, Number.NaN, 10, 10]),
    "1.20 (0.95–1.45)",
    "paired over the seeds that have one",
  );
  t.end();
});

t.test("the cases: each buffer and CC for every incast, then the fat tree", (t) => {
  const cs = fidelityCases([16], [2, 4], ["dcqcn", "off"], [2], 0.5);
  t.equal(cs.length, 6);
  t.same(cs[0], { kind: "incast", senders: 16, bufferMiB: 2, cc: "dcqcn" });
  const window = { arrivalsNs: FAT_TREE_ARRIVALS_NS, stopNs: FAT_TREE_DURATION_NS };
  t.same(cs[5], { kind: "fat-tree", bufferMiB: 2, cc: "off", load: 0.5, ...window }, "10 ms, 60 ms");
  const short = fidelityCases([], [], ["hpcc", "timely"], [2], 0.5, false, {
    arrivalsNs: 3e6,
    stopNs: 20e6,
  });
  t.same(
    short.map((c) => caseName(c)),
    [
      "fat tree, web search 50 %, arrivals 3 ms, stop 20 ms, 2 MiB, HPCC",
      "fat tree, web search 50 %, arrivals 3 ms, stop 20 ms, 2 MiB, TIMELY",
    ],
    "--arrivals / --stop: one fat-tree case per algorithm, the window in its name",
  );
  t.equal(caseName(cs[5]!), "fat tree, web search 50 %, 2 MiB, CC off", "the default window unnamed");
  t.end();
});

t.test("an incast case in both simulators' terms: the same buffer, wire bytes and CC", (t) => {
  const b = buildCase({ kind: "incast", senders: 4, bufferMiB: 4, cc: "off" }, "hpcc-ns3", 7);
  t.equal(b.scenario.seed, 7);
  t.same(
    b.scenario.topology.defaultSwitch.buffer,
    { size: 4 * 1024 * 1024, mmu: "hpcc-ns3" },
    "4 MiB, as HPCC's BUFFER_SIZE 4",
  );
  t.same(b.ns3, { ...ns3Incast(4, 1_000_000, { bufferMiB: 4, cc: "off", trace: [0] }), stopS: b.ns3.stopS });
  // Our frames carry 1,024 bytes in 88.48 ns of wire, HPCC's 1,000 in 83 (1,048 bytes, truncated to ns).
  t.ok(Math.abs(WIRE_SCALE - 0.96058) < 1e-4, `${WIRE_SCALE}`);
  const dir = tempDir("rocelab-ns3-case-");
  const cfg = readFileSync(writeNs3Input(dir, b.ns3), "utf8");
  t.match(cfg, /^ENABLE_QCN 0$/m, "no ECN marking with CC off");
  t.match(cfg, /^BUFFER_SIZE 4$/m);
  t.match(cfg, /^ENABLE_TRACE 1$/m, "the switch traced for its queue and CNPs");
  t.equal(readFileSync(join(dir, "trace.txt"), "utf8"), "1\n0\n");
  t.end();
});

t.test("--byte-scale: our byte settings hold HPCC's wire time; HPCC's input is unchanged", (t) => {
  // 1,082 buffer bytes per 88.48 ns of wire here, 1,048 per 83 ns in HPCC's: 12.229 / 12.627 bytes per ns.
  t.ok(Math.abs(BYTE_SCALE - 0.9685) < 1e-4, `${BYTE_SCALE}`);
  const c = { kind: "incast", senders: 4, bufferMiB: 2, cc: "dcqcn" } as const;
  const plain = buildCase(c, "hpcc-ns3", 1);
  const scaled = buildCase(c, "hpcc-ns3", 1, "data", BYTE_SCALE);
  const sw = scaled.scenario.topology.defaultSwitch;
  t.same(sw.buffer, { size: 2_031_089, reserve: 3967, mmu: "hpcc-ns3", headroom: 36_319 });
  t.same(sw.pfc, { resumeOffset: 2975 }, "HPCC's resume_offset, 3 KiB");
  t.same(sw.ecn, { fast: true, queues: { "3": { kmin: 387_399, kmax: 1_549_598, pmax: 0.2 } } });
  t.same(scaled.ns3, plain.ns3, "HPCC's side as configured");
  t.same(plain.scenario.topology.defaultSwitch.buffer, { size: 2 * 1024 * 1024, mmu: "hpcc-ns3" });
  const ours = buildCase(c, "default", 1, "data", BYTE_SCALE).scenario.topology.defaultSwitch.buffer;
  t.same(ours, { size: 2_031_089, reserve: 3967 }, "the default's automatic headroom is ours already");
  t.end();
});

t.test("the fat tree in HPCC's formats: hosts first, the same flows at the same times", (t) => {
  const window = { arrivalsNs: FAT_TREE_ARRIVALS_NS, stopNs: FAT_TREE_DURATION_NS };
  const c = { kind: "fat-tree", bufferMiB: 2, cc: "dcqcn", load: 0.3, ...window } as const;
  const b = buildCase(c, "default", 1);
  t.equal(b.ns3.nodes, 36, "k = 4: 16 hosts and 20 switches");
  t.same(
    b.ns3.switches,
    Array.from({ length: 20 }, (_, i) => 16 + i),
  );
  t.same(b.ns3.trace, b.ns3.switches, "every switch traced, for the queue peak");
  t.equal(b.ns3.stopS, 0.06);
  const short = buildCase({ ...c, arrivalsNs: 2e6, stopNs: 15e6 }, "default", 1);
  t.equal(short.scenario.durationNs, 15e6, "--stop: our run's length");
  t.equal(short.ns3.stopS, 0.015, "and HPCC's stop time");
  t.ok(
    short.ns3.flows.length > 0 && short.ns3.flows.every((f) => f.startNs < 2e6),
    "--arrivals: every flow starts within it",
  );
  t.equal(b.ns3.links.length, 48);
  t.ok(b.ns3.flows.length > 50, `${b.ns3.flows.length} web-search flows in 10 ms`);
  t.ok(
    b.ns3.flows.every((f, i) => i === 0 || f.startNs >= b.ns3.flows[i - 1]!.startNs),
    "in order of start",
  );
  const steps = b.scenario.timeline.filter((s) => s.action.kind === "start");
  t.equal(steps.length, b.ns3.flows.length, "one scenario flow per HPCC flow");
  const dir = tempDir("rocelab-ns3-fat-");
  writeNs3Input(dir, b.ns3);
  const flows = readFileSync(join(dir, "flow.txt"), "utf8").trim().split("\n");
  t.equal(Number(flows[0]), b.ns3.flows.length);
  t.match(flows[1]!, /^\d+ \d+ 3 100 \d+ 0\.\d{9}$/, "src dst pg dport bytes start-seconds");
  t.end();
});

t.test(
  "--scale-flows: our fat-tree flows carry HPCC's bytes in its wire time, bucketed by HPCC's size",
  (t) => {
    const window = { arrivalsNs: FAT_TREE_ARRIVALS_NS, stopNs: FAT_TREE_DURATION_NS };
    const c = { kind: "fat-tree", bufferMiB: 2, cc: "off", load: 0.3, ...window } as const;
    const plain = buildCase(c, "hpcc-ns3", 3);
    const scaled = buildCase(c, "hpcc-ns3", 3, "data", 1, true);
    t.same(scaled.ns3.flows, plain.ns3.flows, "HPCC's input is unchanged");
    t.equal(plain.unscaled, undefined, "no map without the option");
    const sizes = (b: typeof plain): number[] =>
      b.scenario.timeline.flatMap((s) =>
        s.action.kind === "start" && s.action.workload.type === "flow" ? [s.action.workload.bytes] : [],
      );
    t.same(
      sizes(plain),
      plain.ns3.flows.map((f) => f.bytes),
      "as configured: the same bytes",
    );
    t.same(
      sizes(scaled),
      plain.ns3.flows.map((f) => Math.max(1, Math.round(f.bytes * WIRE_SCALE))),
      `scaled: ${WIRE_SCALE.toFixed(4)} × each`,
    );
    t.same(
      [...scaled.unscaled!.values()],
      plain.ns3.flows.map((f) => f.bytes),
      "every flow's HPCC size kept for its bucket",
    );
    t.ok(WIRE_SCALE > 0.95 && WIRE_SCALE < 0.97);
    t.end();
  },
);

t.test("our ideal FCT: the base RTT and the message with our per-packet overhead", (t) => {
  // The bench takes it from src/report/ideal-fct.ts (what `rocelab compare` divides by). One sender through
  // one switch (2 hops) writing WIRE_SCALE × 1 MB = 960,580 bytes: 939 packets, the first with a RETH, the
  // last of 68 bytes; 2 × 2 µs + 2 × 81.92 ns + (bytes + 939 × 82 + 16) × 0.08 ns.
  const b = buildCase({ kind: "incast", senders: 1, bufferMiB: 32, cc: "off" }, "hpcc-ns3", 1);
  const [f] = runOurs(b).flows;
  const bytes = Math.round(1_000_000 * WIRE_SCALE);
  const packets = Math.ceil(bytes / 1024);
  t.equal(f!.bytes, bytes);
  t.equal(Math.round(f!.idealNs), Math.round(4000 + 163.84 + (bytes + packets * 82 + 16) * 0.08));
  t.ok(f!.fctNs! >= f!.idealNs * 0.93, "a lone flow finishes near its ideal");
  t.end();
});
