// The live-port fuzz (scripts/fuzz/live-port.ts): seeded mutated frames injected on a real veth into a
// running switch process and a running NIC process. Each must survive (same process, no crash event), count
// every frame its port received, file the malformed ones as malformed rather than as lossless drops, keep
// its memory bounded, and afterwards still forward and complete RDMA WRITEs. Needs root; the lab is always
// taken down.
import t from "tap";
import { fuzzLivePort, statsOf } from "../../scripts/fuzz/live-port.js";
import type { FlowReport } from "../../src/lab/flow-report.js";
import { LiveLab } from "../../src/lab/live/live-lab.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { labNamespaces, labProcesses, requireRoot, rl, upLab } from "../helpers/live.js";

requireRoot(t);

const LAB = "h4fz";
t.teardown(async () => {
  await rl(["down", "--name", LAB]);
});

t.test("mutated frames into a live switch port and a live NIC port", async (t) => {
  await upLab(t, LAB);
  const lab = await LiveLab.connect(LAB);
  try {
    const topo = defaultTopology();
    for (const [node, port] of [
      ["leaf1", 3],
      ["h1", 1],
    ] as const) {
      const r = await fuzzLivePort(lab, LAB, topo, { node, port, frames: 3000, seed: "h18-live-ci" });
      const rose = Object.entries(r.rose)
        .filter(([k]) => /malformed|not_for_us|ignored|icrc|unknown|dropped|pause/.test(k))
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");
      t.same(
        r.problems,
        [],
        `${r.target} from ${r.from}: ${r.injected.sent} frames in (${r.injected.refused} refused, ${r.injected.kernelDropped} dropped by the receiving kernel), port counted ${r.rxDelta}; RSS ${r.rssKb.before} -> ${r.rssKb.peak} kB; ${rose}`,
      );
      t.ok(r.injected.sent >= 2500, `most frames reached the wire (${r.injected.sent})`);
      t.ok(Object.keys(r.injected.byMutation).length >= 15, "every kind of mutation was sent");
      t.equal(r.pid.after, r.pid.before, `${node}: the same process`);
    }
    // Still a working fabric: an incast through the fuzzed leaf, h1 (the fuzzed NIC) among the senders.
    const lossless = async () => {
      const n: number[] = [];
      for (const sw of ["leaf1", "leaf2", "spine1", "spine2"])
        n.push((await statsOf(lab, sw)).counters.dropped_lossless ?? 0);
      return n;
    };
    const before = await lossless();
    const { workload: name } = await lab.apply({ kind: "incast", to: "h5", from: 4, bytes: 256_000, qps: 1 });
    let flows: FlowReport[] = [];
    for (let i = 0; i < 120; i++) {
      flows = (await lab.request<FlowReport[]>("flows")).filter((f) => f.workload === name);
      if (flows.length === 4 && flows.every((f) => f.endNs !== null)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    t.same(
      flows.map((f) => [f.src, f.endNs !== null]).sort(),
      [
        ["h1", true],
        ["h2", true],
        ["h3", true],
        ["h4", true],
      ],
      "the four WRITEs to h5 completed after the fuzz",
    );
    t.same(await lossless(), before, "no lossless drop during the incast");
  } finally {
    await lab.close();
  }
  const down = await rl(["down", "--name", LAB]);
  t.equal(down.exitCode, 0, down.stderr);
  t.same(await labNamespaces(LAB), [], "no namespaces left");
  t.same(labProcesses(LAB), [], "no processes left (the injectors included)");
});
