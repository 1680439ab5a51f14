// Live: `connect: on-demand` on a live lab (its own, cmx): each burst connects with RDMA CM on real frames —
// REQ, REP, RTU to QP1, the WRITE, then DREQ, DREP — and the capture of the active side's port holds them
// in that order; rocelab pcap-check and Wireshark's tshark accept every frame; the NICs' CM counters
// (messages per kind, connections and their set-up time) are in the report, as `rocelab stats` shows them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { CM_ATTR_NAMES, parseCmDatagram, UD_SEND_ONLY } from "../../src/wire/cm-mad.js";
import { parsePcap } from "../../src/wire/pcap.js";
import { requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "cmx";
const BURSTS = 2;

t.test("RDMA CM connects each burst on real frames in a live lab", async (t) => {
  const dir = t.testdir({});
  const scenario = join(dir, "cm.yaml");
  writeFileSync(
    scenario,
    [
      "name: live-cm",
      "duration: 400us",
      "sample: 50us",
      "topology:",
      "  nodes: { sw: { kind: switch }, a: { kind: host }, b: { kind: host } }",
      '  links: [["a:eth1", "sw:eth1"], ["b:eth1", "sw:eth2"]]',
      "timeline:",
      "  - at: 20us",
      `    start: { type: flow, from: a, to: b, size: 64KB, repeat: ${BURSTS}, interval: 150us, connect: on-demand }`,
      "",
    ].join("\n"),
  );
  const out = join(dir, "out");
  const r = await rl(
    [
      "run",
      scenario,
      "--runtime",
      "live",
      "--name",
      LAB,
      "--capture",
      "a:eth1",
      "--out",
      out,
      "--quiet",
      "--no-metrics",
    ],
    180_000,
  );
  t.equal(r.exitCode, 0, r.stderr);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Report;
  t.equal(report.summary.flowsCompleted, BURSTS, "every burst completed");
  const c = (d: string, n: string) => report.devices[d]!.counters[n] ?? Number.NaN;
  for (const kind of ["req", "rtu", "dreq"]) {
    t.equal(c("a", `cm_tx_msgs_${kind}`), BURSTS, `a sent ${BURSTS} ${kind.toUpperCase()}`);
    t.equal(c("b", `cm_rx_msgs_${kind}`), BURSTS, `b received ${BURSTS} ${kind.toUpperCase()}`);
  }
  for (const kind of ["rep", "drep"]) {
    t.equal(c("b", `cm_tx_msgs_${kind}`), BURSTS, `b sent ${BURSTS} ${kind.toUpperCase()}`);
    t.equal(c("a", `cm_rx_msgs_${kind}`), BURSTS, `a received ${BURSTS} ${kind.toUpperCase()}`);
  }
  t.equal(c("a", "cm_connects"), BURSTS, "a set up a connection per burst");
  t.equal(c("b", "cm_connects"), 0, "b is the passive side");
  const total = c("a", "cm_connect_time_ns_total");
  const max = c("a", "cm_connect_time_max_ns");
  // Two link crossings each way through one switch at 100 Gb/s: a few µs of emulated time.
  t.ok(
    max > 0 && max < 100_000 && total >= max && total <= BURSTS * max,
    `set-up ${total} ns, max ${max} ns`,
  );

  const pcapFile = join(out, "capture-a-eth1.pcap");
  const parsed = parsePcap(readFileSync(pcapFile));
  if (!parsed.ok) throw new Error("the capture does not parse");
  const seq: string[] = [];
  for (const rec of parsed.value.records) {
    const bth = 14 + 20 + 8;
    if (rec.frame.length > bth + 1 && rec.frame[12] === 0x08 && rec.frame[bth] === UD_SEND_ONLY) {
      const m = parseCmDatagram(rec.frame, bth, rec.frame.length);
      seq.push(m.ok ? CM_ATTR_NAMES[m.value.message.attr]! : "bad");
    } else if (rec.frame.length > 1000 && seq.at(-1) !== "data") seq.push("data");
  }
  // Stamped in the scenario's emulated ns, as the simulator's capture: the first REQ at the first burst's
  // start (20 µs), nothing past the run's 400 µs (kernel time would be ~1.7e18 ns).
  const times = parsed.value.records.map((r) => Number(r.tNs));
  t.ok(
    times.every((x) => x >= 0 && x <= 400_000),
    `every frame stamped in 0 … 400 µs emulated: ${times[0]} … ${times.at(-1)} ns`,
  );
  t.ok(times[0]! >= 20_000, `the first frame at or after the flow's start: ${times[0]} ns`);
  const burst = ["REQ", "REP", "RTU", "data", "DREQ", "DREP"];
  t.same(seq, Array.from({ length: BURSTS }, () => burst).flat(), "REQ REP RTU, data, DREQ DREP per burst");

  const check = await rl(["pcap-check", pcapFile]);
  t.equal(check.exitCode, 0, `pcap-check: ${check.stdout}${check.stderr}`);
  const ts = await execa(
    "tshark",
    [
      "-r",
      pcapFile,
      "-Y",
      "infiniband.mad",
      "-T",
      "fields",
      "-e",
      "infiniband.mad.attributeid",
      "-e",
      "_ws.expert.severity",
      "-e",
      "_ws.malformed",
    ],
    { reject: false },
  );
  t.equal(ts.exitCode, 0, ts.stderr);
  const rows = ts.stdout.split("\n").filter((l) => l.length > 0);
  t.equal(rows.length, 5 * BURSTS, "tshark decodes every CM MAD");
  t.same(
    [...new Set(rows.map((l) => l.split("\t")[0]))].sort(),
    ["0x0010", "0x0013", "0x0014", "0x0015", "0x0016"],
    "REQ REP RTU DREQ DREP by attribute ID",
  );
  t.ok(
    rows.every((l) =>
      l
        .split("\t")
        .slice(1)
        .every((x) => x === ""),
    ),
    "no expert info, nothing malformed",
  );
  const ns = await execa("ip", ["netns", "list"]);
  t.notMatch(ns.stdout, new RegExp(`rl-${LAB}-`), "the lab is gone");
});
