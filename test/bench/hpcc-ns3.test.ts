// The HPCC ns-3 side of `npm run bench -- sim-vs-ns3 --ns3 DIR`: the incast in HPCC's input formats and
// its FCT output read back. HPCC's simulator itself is not part of the project; these check our side.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { ns3Binary, parseNs3Fct, timeProcess, writeNs3Incast } from "../../scripts/bench/hpcc-ns3.js";
import { tempDir } from "../helpers/temp-dir.js";

t.test("the N-to-1 incast in HPCC's topology, flow and config formats", (t) => {
  const dir = tempDir("rocelab-ns3-test-");
  const cfg = writeNs3Incast(dir, 4, 1_000_000);
  const topo = readFileSync(join(dir, "topology.txt"), "utf8").trim().split("\n");
  t.equal(topo[0], "6 1 5", "6 nodes, 1 switch, 5 links");
  t.equal(topo[1], "0", "node 0 is the switch");
  t.same(topo.slice(2), [
    "0 1 100Gbps 0.001ms 0",
    "0 2 100Gbps 0.001ms 0",
    "0 3 100Gbps 0.001ms 0",
    "0 4 100Gbps 0.001ms 0",
    "0 5 100Gbps 0.001ms 0",
  ]);
  const flows = readFileSync(join(dir, "flow.txt"), "utf8").trim().split("\n");
  t.same(
    flows,
    ["4", "2 1 3 100 1000000 0", "3 1 3 100 1000000 0", "4 1 3 100 1000000 0", "5 1 3 100 1000000 0"],
    "senders 2..5 write 1 MB each to node 1 on priority 3 at t = 0",
  );
  const c = readFileSync(cfg, "utf8");
  t.match(c, /^CC_MODE 1$/m, "DCQCN");
  t.match(c, /^KMIN_MAP 2 100000000000 400 /m, "Kmin 400 KB at 100 Gb/s");
  t.match(c, /^KMAX_MAP 2 100000000000 1600 /m, "Kmax 1600 KB");
  t.match(c, /^PMAX_MAP 2 100000000000 0.20 /m, "Pmax 20 %");
  t.match(c, /^RATE_AI 20Mb\/s$/m, "run.py's AI for dcqcn at 100 Gb/s (5 × 100 / 25)");
  t.match(c, /^RATE_HAI 200Mb\/s$/m, "and HAI (50 × 100 / 25)");
  t.match(c, /^SIMULATOR_STOP_TIME 0.002$/m, "twice the transfer at line rate plus 200 µs, at least 2 ms");
  t.match(
    readFileSync(writeNs3Incast(dir, 64, 1_000_000), "utf8"),
    /^SIMULATOR_STOP_TIME 0.01044$/m,
    "64 MB: 2 × 5.12 ms + 0.2 ms",
  );
  t.match(c, new RegExp(`^FCT_OUTPUT_FILE ${join(dir, "fct.txt")}$`, "m"));
  t.end();
});

t.test("HPCC's FCT file: the last completion and the median FCT", (t) => {
  const text = [
    "0b000201 0b000101 10000 100 1000000 0 5000 4000",
    "0b000301 0b000101 10000 100 1000000 1000 7000 4000",
    "0b000401 0b000101 10000 100 1000000 0 6000 4000",
  ].join("\n");
  t.same(parseNs3Fct(`${text}\n`), { flows: 3, lastDoneNs: 8000, medianFctNs: 6000 });
  t.throws(
    () => parseNs3Fct("0b000201 0b000101 10000 100 1000000 0\n"),
    /line 1: expected 2 hex addresses and 6 numbers/,
  );
  t.throws(
    () => parseNs3Fct("0b000201 zz 10000 100 1000000 0 5000 4000\n"),
    /line 1/,
    "an address that is not hex",
  );
  t.same(parseNs3Fct(""), { flows: 0, lastDoneNs: 0, medianFctNs: 0 });
  t.end();
});

t.test("a directory without a built simulator is refused, naming what to build", (t) => {
  t.throws(
    () => ns3Binary("/nonexistent/simulation"),
    /no \/nonexistent\/simulation\/build\/scratch\/third; pass the simulation\/ directory of a built HPCC ns-3/,
  );
  t.end();
});

t.test(
  "a timed process: its CPU time, and a failure with its status and the end of its output",
  async (t) => {
    const dir = tempDir("rocelab-ns3-time-");
    const ok = await timeProcess("sh", ["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"], dir);
    t.ok(
      ok.cpuMs > 0 && ok.wallMs > 0,
      `a busy loop took CPU (${ok.cpuMs} ms) and time (${ok.wallMs.toFixed(0)} ms)`,
    );
    await t.rejects(
      timeProcess("sh", ["-c", 'echo "no such config: $0" >&2; exit 3', "x; echo injected"], dir),
      /sh exited with status 3:\nno such config: x; echo injected/,
      "the arguments reach the command as they are, not through a shell line",
    );
  },
);
