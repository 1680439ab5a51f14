// `sim-vs-ns3 --cc hpcc|timely|dctcp`: the flag's parsing and each algorithm's case in both simulators'
// terms — run.py's config lines on HPCC's side, the matching host and switch settings on ours, and the
// wire scale that gives both the same bottleneck time (INT bytes included).
import { readFileSync } from "node:fs";
import t from "tap";
import { writeNs3Input } from "../../scripts/bench/hpcc-ns3.js";
import { BYTE_SCALE, buildCase, WIRE_SCALE } from "../../scripts/bench/ns3-cases.js";
import {
  baseRttNs,
  bdpBytes,
  byteScale,
  ns3IntBytes,
  ourIntBytes,
  parseCcModes,
  wireScale,
} from "../../scripts/bench/ns3-cc.js";
import { fidelityCases } from "../../scripts/bench/ns3-fidelity.js";
import { fidelity } from "../../scripts/bench/sim-vs-ns3-outcomes.js";
import { INT_DEFAULT_MAX_HOPS, IntMode, intBlockLength } from "../../src/wire/int-md.js";
import { tempDir } from "../helpers/temp-dir.js";

t.test("--cc takes the five modes and names what it refuses", (t) => {
  t.same(parseCcModes("hpcc,timely,dctcp"), ["hpcc", "timely", "dctcp"]);
  t.same(parseCcModes("dcqcn, off"), ["dcqcn", "off"]);
  t.throws(
    () => parseCcModes("hpcc,hp"),
    /--cc hpcc,hp: expected a list of dcqcn, off, hpcc, timely, dctcp \(not hp\)/,
  );
  t.throws(() => parseCcModes(""), /--cc : expected/);
  const cases = fidelityCases([16, 64], [4], parseCcModes("hpcc,dctcp"), [], 0.5);
  t.same(
    cases.map((c) => (c.kind === "incast" ? `${c.senders}:${c.cc}` : "")),
    ["16:hpcc", "16:dctcp", "64:hpcc", "64:dctcp"],
  );
  t.end();
});

t.test("the wire scale counts both simulators' INT bytes", (t) => {
  t.equal(wireScale("dcqcn"), WIRE_SCALE, "no INT: the old factor");
  t.ok(Math.abs(WIRE_SCALE - 0.96058) < 1e-4);
  t.equal(ns3IntBytes("hpcc"), 42, "IntHeader NORMAL: 5 hops × 8 bytes + nhop");
  t.equal(ns3IntBytes("timely"), 8, "IntHeader TS");
  t.equal(ns3IntBytes("dctcp"), 0);
  t.equal(ourIntBytes("hpcc"), intBlockLength(IntMode.Collect, INT_DEFAULT_MAX_HOPS));
  t.equal(ourIntBytes("timely"), intBlockLength(IntMode.Timestamp, INT_DEFAULT_MAX_HOPS));
  // HPCC: 1,090 bytes → 87 ns per 1,000 of payload; ours 1,106 + the INT block per 1,024.
  const hp = 87 / 1000 / (((1106 + ourIntBytes("hpcc")) * 8) / 100 / 1024);
  t.ok(Math.abs(wireScale("hpcc") - hp) < 1e-12, `${wireScale("hpcc")}`);
  const ti = 84 / 1000 / (((1106 + ourIntBytes("timely")) * 8) / 100 / 1024);
  t.ok(Math.abs(wireScale("timely") - ti) < 1e-12, `${wireScale("timely")}`);
  t.equal(wireScale("dctcp"), WIRE_SCALE);
  t.end();
});

t.test(
  "--byte-scale: buffer bytes per ns of wire, ours over HPCC's, with each algorithm's INT bytes",
  (t) => {
    t.equal(byteScale("dcqcn"), BYTE_SCALE, "no INT: 1,082 B per 88.48 ns against 1,048 per 83");
    t.ok(Math.abs(BYTE_SCALE - 0.9685) < 1e-4);
    // TIMELY: ours 1,082 + 24 bytes in the buffer for 1,130 on the wire; HPCC's 1,056 for 84 ns.
    const ti = (1082 + ourIntBytes("timely")) / (((1106 + ourIntBytes("timely")) * 8) / 100) / (1056 / 84);
    t.ok(Math.abs(byteScale("timely") - ti) < 1e-12, `${byteScale("timely")}`);
    t.ok(Math.abs(byteScale("timely") - 0.9732) < 1e-4);
    const hp = (1082 + ourIntBytes("hpcc")) / (((1106 + ourIntBytes("hpcc")) * 8) / 100) / (1090 / 87);
    t.ok(Math.abs(byteScale("hpcc") - hp) < 1e-12, `${byteScale("hpcc")}`);
    t.equal(byteScale("dctcp"), BYTE_SCALE);
    t.end();
  },
);

t.test("an HPCC incast: INT on our switch, HPCC's ns-3 parameters on both sides", (t) => {
  const b = buildCase({ kind: "incast", senders: 4, bufferMiB: 32, cc: "hpcc" }, "hpcc-ns3", 3);
  t.same(b.scenario.topology.defaultSwitch.int, { enabled: true });
  const hosts = b.scenario.overrides.hosts[0] as Record<string, unknown>;
  t.equal(hosts.cc, "hpcc");
  t.match(hosts.hpcc, { eta: 0.95, maxStage: 0, fastReact: true, baseRtt: 4164, minRate: 1e9 });
  t.equal(baseRttNs(2), 4164, "third.cc's RTT: 2 × 2 µs + 2 hops × 1,024 bytes at 100 Gb/s");
  t.equal(bdpBytes(6), Math.round((baseRttNs(6) * 100) / 8));
  const start = b.scenario.timeline[0]!;
  t.match(start, { action: { workload: { bytes: Math.round(1_000_000 * wireScale("hpcc")) } } });
  const cfg = readFileSync(writeNs3Input(tempDir("rocelab-ns3-cc-"), b.ns3), "utf8");
  for (const line of [
    "CC_MODE 3",
    "HAS_WIN 1",
    "VAR_WIN 1",
    "FAST_REACT 1",
    "INT_MULTI 4",
    "ACK_HIGH_PRIO 0",
  ])
    t.match(cfg, new RegExp(`^${line}$`, "m"), line);
  t.match(cfg, /^RATE_AI 40Mb\/s$/m, "10 · bw / 25");
  t.match(cfg, /^MI_THRESH 0$/m);
  t.end();
});

t.test("DCTCP marks at one threshold, TIMELY runs without a window", (t) => {
  const d = buildCase({ kind: "incast", senders: 4, bufferMiB: 4, cc: "dctcp" }, "hpcc-ns3", 1);
  t.same(d.scenario.topology.defaultSwitch.ecn, {
    fast: true,
    queues: { "3": { kmin: 300_000, kmax: 300_000, pmax: 1 } },
  });
  // ns-3's window, 52,000 bytes of 1,000-byte payloads, in our wire time: 52,050 × 0.9606.
  const win = Math.round(bdpBytes(2) * wireScale("dctcp"));
  t.equal(win, 49_998);
  t.match(d.scenario.overrides.hosts[0], { cc: "dctcp", dctcp: { g: 1 / 16, window: win } });
  t.notOk(d.scenario.topology.defaultSwitch.int, "no INT for DCTCP");
  const dc = readFileSync(writeNs3Input(tempDir("rocelab-ns3-cc-"), d.ns3), "utf8");
  t.match(dc, /^CC_MODE 8$/m);
  t.match(dc, /^KMIN_MAP 2 100000000000 300 400000000000 1200$/m);
  t.match(dc, /^PMAX_MAP 2 100000000000 1.00 400000000000 1.00$/m);
  t.match(dc, /^EWMA_GAIN 0.0625$/m);
  t.match(dc, /^DCTCP_RATE_AI 615Mb\/s$/m);
  const window = { arrivalsNs: 3e6, stopNs: 20e6 };
  const ti = buildCase({ kind: "fat-tree", bufferMiB: 2, cc: "timely", load: 0.3, ...window }, "hpcc-ns3", 1);
  t.match(ti.scenario.overrides.hosts[0], { cc: "timely", timely: { rai: 100e6, rhai: 500e6 } });
  const tc = readFileSync(writeNs3Input(tempDir("rocelab-ns3-cc-"), ti.ns3), "utf8");
  for (const line of ["CC_MODE 7", "HAS_WIN 0", "ACK_HIGH_PRIO 1", "RATE_HAI 500Mb/s", "ENABLE_QCN 1"])
    t.match(tc, new RegExp(`^${line}$`, "m"), line);
  // The fat tree under HPCC: INT on every switch, the window and T from the longest path (GLOBAL_T 1).
  const hp = buildCase({ kind: "fat-tree", bufferMiB: 2, cc: "hpcc", load: 0.3, ...window }, "hpcc-ns3", 1);
  t.match(hp.scenario.topology.defaultSwitch.int, { enabled: true });
  t.match(hp.scenario.overrides.hosts[0], { cc: "hpcc", hpcc: { baseRtt: baseRttNs(6) } });
  t.equal(baseRttNs(6), 12_492, "6 links: 2 × 6 µs and 6 × 81.92 ns");
  const hc = readFileSync(writeNs3Input(tempDir("rocelab-ns3-cc-"), hp.ns3), "utf8");
  // MULTI_RATE 0: one U for the path, as rocelab's HPCC runs by default (multiRate false).
  for (const line of [
    "CC_MODE 3",
    "HAS_WIN 1",
    "ACK_HIGH_PRIO 0",
    "INT_MULTI 4",
    "ENABLE_TRACE 1",
    "MULTI_RATE 0",
  ])
    t.match(hc, new RegExp(`^${line}$`, "m"), line);
  t.notOk("window" in (hp.scenario.overrides.hosts[0] as { hpcc: object }).hpcc, "window: maxBdp by default");
  // --hpcc-window wire: ns-3's maxBdp of 1,000-byte payloads in our wire time (156,150 × 0.87685).
  const wire = buildCase(
    { kind: "fat-tree", bufferMiB: 2, cc: "hpcc", load: 0.3, ...window, hpccWindow: "wire" },
    "hpcc-ns3",
    1,
  );
  const w = Math.round(bdpBytes(6) * wireScale("hpcc"));
  t.equal(w, 136_920);
  t.match(wire.scenario.overrides.hosts[0], { hpcc: { window: w, baseRtt: baseRttNs(6) } });
  t.same(wire.ns3, hp.ns3, "ns-3's side unchanged");
  t.end();
});

t.test("--perturb-starts: every other fat-tree flow starts that many ns late, nothing else changes", (t) => {
  const [c] = fidelityCases([], [], ["dcqcn"], [2], 0.5, false, { arrivalsNs: 1_000_000, stopNs: 5_000_000 });
  const plain = buildCase(c!, "hpcc-ns3", 1);
  const late = buildCase(c!, "hpcc-ns3", 1, "data", 1, false, 1);
  t.equal(late.scenario.timeline.length, plain.scenario.timeline.length);
  t.ok(plain.scenario.timeline.length > 10, `${plain.scenario.timeline.length} flows`);
  // By flow name (the steps are in time order): f1, f3, … 1 ns late, f0, f2, … not.
  const at = (b: typeof plain) =>
    new Map(
      b.scenario.timeline.map((s) => [(s.action as { workload: { name: string } }).workload.name, s.atNs]),
    );
  const shift = [...at(late)].map(([name, x]) => [name, x - at(plain).get(name)!]);
  t.same(
    shift,
    shift.map(([name]) => [name, Number(String(name).slice(1)) % 2]),
    "odd flows 1 ns late",
  );
  t.same(late.ns3, plain.ns3, "HPCC's input unchanged");
  t.end();
});

t.test("--perturb-starts on an incast: the odd senders start that many ns late", (t) => {
  const c = { kind: "incast", senders: 4, bufferMiB: 4, cc: "hpcc" } as const;
  t.equal(buildCase(c, "hpcc-ns3", 1).scenario.timeline.length, 1, "one incast step as before");
  const late = buildCase(c, "hpcc-ns3", 1, "data", 1, false, 2).scenario.timeline;
  t.same(
    late.map((s) => s.atNs),
    [0, 2],
    "h1, h3 at 0; h2, h4 at 2 ns",
  );
  t.end();
});

t.test(
  "--ecmp: our fat tree's switches hash with the algorithm asked for, HPCC's input unchanged",
  async (t) => {
    const [c] = fidelityCases([], [], ["dctcp"], [2], 0.5, false, {
      arrivalsNs: 1_000_000,
      stopNs: 5_000_000,
    });
    const plain = buildCase(c!, "hpcc-ns3", 1);
    t.equal(plain.scenario.topology.defaultSwitch.ecmp, undefined, "the feature's default (CRC-32)");
    for (const alg of ["crc16", "toeplitz"] as const) {
      const b = buildCase(c!, "hpcc-ns3", 1, "data", 1, false, 0, alg);
      t.same(b.scenario.topology.defaultSwitch.ecmp, { algorithm: alg });
      t.same(
        b.scenario.topology.defaultSwitch.ecn,
        plain.scenario.topology.defaultSwitch.ecn,
        "ECN as before",
      );
      t.same(b.scenario.timeline, plain.scenario.timeline, "the same flows");
      t.same(b.ns3, plain.ns3, "HPCC's input unchanged");
    }
    await t.rejects(
      fidelity({ "fat-tree": "2", ecmp: "md5" }),
      /--ecmp md5: expected one of crc16, crc32, xor32, toeplitz/,
    );
    t.end();
  },
);
