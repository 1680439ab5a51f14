// `npm run fuzz -- live`: the live-port fuzz at length (root). Brings up a lab of the default fabric, sends
// mutated frames into each target port through the real veth path (live-port.ts), prints per target what
// went in, what the port counted and where, the process's memory, and whether the fabric still completes
// RDMA WRITEs afterwards; takes the lab down. Exits 1 on any problem.
//
//   sudo npm run fuzz -- live                               100,000 frames into leaf1:eth3, h1:eth1, spine1:eth1
//   sudo npm run fuzz -- live --frames 20000 --rate 4000 --targets leaf2:eth1 --seed 9 --name fz2

import { parseArgs } from "node:util";
import type { FlowReport } from "../../src/lab/flow-report.js";
import { downLab, LiveLab, upLab } from "../../src/lab/live/live-lab.js";
import { labNameProblem } from "../../src/lab/live/names.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { fuzzLivePort, statsOf } from "./live-port.js";

export async function liveFuzzMain(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      frames: { type: "string", default: "100000" },
      seed: { type: "string", default: "rocelab-live-fuzz" },
      rate: { type: "string", default: "3000" },
      targets: { type: "string", default: "leaf1:eth3,h1:eth1,spine1:eth1" },
      name: { type: "string", default: "fuzz" },
      dilation: { type: "string", default: "1000" },
    },
  });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const frames = Number(values.frames);
  const rate = Number(values.rate);
  const dilation = Number(values.dilation);
  if (!Number.isInteger(frames) || frames < 10)
    throw new Error(`--frames ${values.frames}: an integer >= 10`);
  if (!(rate > 0)) throw new Error(`--rate ${values.rate}: frames per second > 0`);
  if (!(dilation >= 1)) throw new Error(`--dilation ${values.dilation}: >= 1`);
  const bad = labNameProblem(values.name);
  if (bad) throw new Error(`--name ${values.name}: ${bad}`);
  if (process.getuid?.() !== 0) throw new Error("the live fuzz needs root (namespaces, raw sockets)");
  const topo = defaultTopology();
  const targets = values.targets.split(",").map((t) => {
    const m = /^([a-z][a-z0-9]*):eth(\d+)$/.exec(t.trim());
    if (!m || !topo.nodes.some((n) => n.name === m[1]))
      throw new Error(`--targets: "${t}" is not NODE:ethN of the default fabric`);
    return { node: m[1]!, port: Number(m[2]) };
  });
  const lab = values.name;
  out(
    `live fuzz: ${frames.toLocaleString("en-US")} frames per target at ${rate} frames/s, seed "${values.seed}", lab ${lab}`,
  );
  await upLab({ lab, topology: "default", dilation });
  const client = await LiveLab.connect(lab);
  let failed = false;
  try {
    for (const t of targets) {
      const r = await fuzzLivePort(client, lab, topo, { ...t, frames, seed: values.seed, rate });
      const counted = Object.entries(r.rose)
        .filter(([k]) => !k.startsWith("port.") && !/bytes|duration/.test(k))
        .map(([k, v]) => `${k} ${v.toLocaleString("en-US")}`)
        .join(", ");
      out(`\n${r.target} (injected from ${r.from}) in ${r.injected.seconds.toFixed(1)} s`);
      out(
        `  sent ${r.injected.sent}, refused by the sending kernel ${r.injected.refused}, dropped by the receiving kernel ${r.injected.kernelDropped}; the port counted ${r.rxDelta}`,
      );
      out(
        `  process ${r.pid.before} -> ${r.pid.after} (${r.statusAfter}); RSS ${r.rssKb.before} kB, peak ${r.rssKb.peak} kB, after ${r.rssKb.after} kB`,
      );
      out(`  counters that rose: ${counted}`);
      for (const p of r.problems) out(`  PROBLEM ${p}`);
      failed ||= r.problems.length > 0;
    }
    const lossless = async () => {
      let n = 0;
      for (const sw of ["leaf1", "leaf2", "spine1", "spine2"])
        n += (await statsOf(client, sw)).counters.dropped_lossless ?? 0;
      return n;
    };
    const before = await lossless();
    const { workload: name } = await client.apply({
      kind: "incast",
      to: "h5",
      from: 4,
      bytes: 1_000_000,
      qps: 1,
    });
    let flows: FlowReport[] = [];
    for (let i = 0; i < 240; i++) {
      flows = (await client.request<FlowReport[]>("flows")).filter((f) => f.workload === name);
      if (flows.length === 4 && flows.every((f) => f.endNs !== null)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const done = flows.filter((f) => f.endNs !== null).length;
    const dropped = (await lossless()) - before;
    out(
      `\nafter the fuzz: an incast of 4 x 1 MB to h5 completed ${done}/4; lossless drops during it ${dropped}`,
    );
    failed ||= done !== 4 || dropped !== 0;
  } finally {
    await client.close();
    const d = await downLab(lab);
    out(`lab ${lab} down (${d.killed} processes, ${d.namespaces} namespaces)`);
  }
  return failed ? 1 : 0;
}
