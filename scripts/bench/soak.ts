// The live soak: a lab of the default fabric under mixed lossless traffic and seeded chaos (link flaps,
// threshold-profile changes) for a long time, with every process sampled over time: memory (RSS), CPU,
// open file descriptors, event-loop lag and timer lateness. A script, not a test (docs/reliability.md has
// the figures); it passes or fails on nothing, but prints the drift (first sample against last) so a leak
// or a growing lag shows.
//
//   sudo npm run bench -- soak --minutes 30 [--every 10] [--dilation 1000] [--seed 1] [--out FILE]

import { readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { createRandom } from "../../src/device/prng.js";
import type { FlowReport } from "../../src/lab/flow-report.js";
import { downLab, LiveLab, upLab } from "../../src/lab/live/live-lab.js";
import { findLabProcesses } from "../../src/lab/live/provision.js";
import type { LabStatus } from "../../src/lab/live/supervisor.js";
import { writeNewFile } from "../../src/runtime/realtime/safe-files.js";
import { switchChange } from "../../src/scenario/settings-layers.js";
import { defaultTopology, NodeKind } from "../../src/scenario/topology.js";
import {
  type BenchMain,
  describeMachine,
  fmt,
  formatTable,
  isMain,
  readProcessCpu,
  readProcessRss,
  runAsScript,
} from "./common.js";

export interface SoakSample {
  /** Real seconds since the soak started. */
  readonly t: number;
  /** Per process (devices by node name, the supervisor as "supervisor"). */
  readonly procs: Record<
    string,
    { rssMiB: number; cpuS: number; fds: number; lagP99Ms: number; lateMaxUs: number }
  >;
  /** The lab's clock behind real time / dilation, ms of real time (synced clocks). */
  readonly behindMs: number;
  readonly flowsDone: number;
  readonly flowsTotal: number;
  /** Switches' `dropped_lossless`: every drop of a lossless-priority packet, whatever the reason. */
  readonly losslessDrops: number;
  /** Of those, the drops that break the lossless promise: a full PFC headroom (`drop_headroom_exhausted`). */
  readonly headroomDrops: number;
  /** Every switch drop counter that is not zero (`drop_<reason>`, lossless and lossy alike), summed. */
  readonly dropsByReason: Record<string, number>;
}

function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

export const main: BenchMain = async (argv) => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      minutes: { type: "string", default: "30" },
      every: { type: "string", default: "10" },
      dilation: { type: "string", default: "1000" },
      seed: { type: "string", default: "1" },
      name: { type: "string", default: "soak" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: npm run bench -- soak [--minutes M] [--every S] [--dilation D] [--seed N] [--name LAB] [--out FILE]\n",
    );
    return;
  }
  if (process.getuid?.() !== 0) throw new Error("the soak needs root (a live lab)");
  const minutes = Number(values.minutes);
  const every = Number(values.every);
  const dilation = Number(values.dilation);
  if (!(minutes > 0) || !(every >= 1) || !(dilation >= 1))
    throw new Error("--minutes > 0, --every >= 1, --dilation >= 1");
  const lab = values.name;
  const rnd = createRandom(Number(values.seed), "soak");
  const topo = defaultTopology();
  const hosts = topo.nodes.filter((n) => n.kind === NodeKind.Host).map((n) => n.name);
  const switches = topo.nodes.filter((n) => n.kind === NodeKind.Switch).map((n) => n.name);
  const fabric = topo.links.filter((l) => switches.includes(l.a.node) && switches.includes(l.b.node));
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(
    `soak: ${minutes} min of mixed traffic and chaos on the default fabric, dilation ${dilation}, sample every ${every} s`,
  );
  out(describeMachine());
  await upLab({ lab, topology: "default", dilation, seed: Number(values.seed) });
  const client = await LiveLab.connect(lab);
  const samples: SoakSample[] = [];
  const started = performance.now();
  const deadline = started + minutes * 60_000;
  let chaos = 0;
  let workloads = 0;
  try {
    const sample = async (): Promise<SoakSample> => {
      const status = await client.request<LabStatus>("status");
      const flows = await client.request<FlowReport[]>("flows");
      const snap = await client.snapshot();
      let lossless = 0;
      const dropsByReason: Record<string, number> = {};
      for (const s of Object.values(snap.stats)) {
        if (s.kind !== "switch") continue;
        lossless += s.counters.dropped_lossless ?? 0;
        for (const [k, v] of Object.entries(s.counters))
          if (k.startsWith("drop_") && v !== 0) dropsByReason[k] = (dropsByReason[k] ?? 0) + v;
      }
      const procs: SoakSample["procs"] = {};
      for (const d of status.devices) {
        if (d.pid === null) continue;
        const cpu = readProcessCpu(d.pid);
        procs[d.node] = {
          rssMiB: (readProcessRss(d.pid) ?? 0) / 2 ** 20,
          cpuS: cpu ? cpu.user + cpu.system : 0,
          fds: fdCount(d.pid),
          lagP99Ms: d.health?.lagP99Ms ?? 0,
          lateMaxUs: (d.health?.timerLateRecentNs ?? 0) / 1000,
        };
      }
      const sup = findLabProcesses(lab).find((p) => /supervisor/.test(p.cmdline));
      if (sup) {
        const cpu = readProcessCpu(sup.pid);
        procs.supervisor = {
          rssMiB: (readProcessRss(sup.pid) ?? 0) / 2 ** 20,
          cpuS: cpu ? cpu.user + cpu.system : 0,
          fds: fdCount(sup.pid),
          lagP99Ms: 0,
          lateMaxUs: 0,
        };
      }
      return {
        t: (performance.now() - started) / 1000,
        procs,
        behindMs: (status.behindNs * status.dilation) / 1e6,
        flowsDone: flows.filter((f) => f.endNs !== null).length,
        flowsTotal: flows.length,
        losslessDrops: lossless,
        headroomDrops: dropsByReason.drop_headroom_exhausted ?? 0,
        dropsByReason,
      };
    };
    let nextSample = started;
    let nextTraffic = started;
    let nextChaos = started + 20_000;
    while (performance.now() < deadline) {
      const now = performance.now();
      if (now >= nextTraffic) {
        // Mixed lossless traffic: an incast or a permutation, a few MB, every 5 s real.
        const to = hosts[Math.floor(rnd.next() * hosts.length)]!;
        if (rnd.next() < 0.5) await client.apply({ kind: "incast", to, from: 3, bytes: 1_000_000, qps: 1 });
        else
          await client.apply({
            kind: "start",
            workload: {
              type: "permutation",
              name: `soak-perm-${workloads}`,
              hosts,
              bytes: 500_000,
              op: "write",
              qps: 1,
              repeat: 1,
              intervalNs: 0,
            },
          });
        workloads++;
        nextTraffic = now + 5_000;
      }
      if (now >= nextChaos) {
        // Chaos every 30 s real: a fabric link down for 5 s, or a profile change.
        if (rnd.next() < 0.5) {
          const l = fabric[Math.floor(rnd.next() * fabric.length)]!;
          await client.apply({ kind: "link", node: l.a.node, port: l.a.port, up: false });
          setTimeout(
            () =>
              void client.apply({ kind: "link", node: l.a.node, port: l.a.port, up: true }).catch(() => {}),
            5_000,
          );
        } else {
          const profile = (["balanced", "conservative", "aggressive"] as const)[Math.floor(rnd.next() * 3)]!;
          await client.apply({ kind: "set", change: switchChange({ profile }) });
        }
        chaos++;
        nextChaos = now + 30_000;
      }
      if (now >= nextSample) {
        const s = await sample();
        samples.push(s);
        const vals = Object.values(s.procs);
        out(
          `${fmt(s.t / 60, 1)} min: RSS ${fmt(
            vals.reduce((a, p) => a + p.rssMiB, 0),
            0,
          )} MiB (max ${fmt(Math.max(...vals.map((p) => p.rssMiB)), 0)}), fds ${vals.reduce((a, p) => a + p.fds, 0)}, lag p99 max ${fmt(Math.max(...vals.map((p) => p.lagP99Ms)), 1)} ms, late max ${fmt(Math.max(...vals.map((p) => p.lateMaxUs)), 0)} µs, behind ${fmt(s.behindMs, 0)} ms, messages ${s.flowsDone}/${s.flowsTotal}, lossless drops ${s.losslessDrops} (headroom ${s.headroomDrops})`,
        );
        nextSample = now + every * 1000;
      }
      await sleep(250);
    }
    await sleep(10_000); // the last workloads finish
    samples.push(await sample());
  } finally {
    await client.close();
    await downLab(lab);
  }
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const rows = Object.keys(last.procs).map((node) => {
    const a = first.procs[node];
    const b = last.procs[node]!;
    const cpuShare = a ? ((b.cpuS - a.cpuS) / (last.t - first.t)) * 100 : 0;
    return [
      node,
      fmt(a?.rssMiB ?? 0, 1),
      fmt(b.rssMiB, 1),
      fmt(b.rssMiB - (a?.rssMiB ?? 0), 1),
      fmt(cpuShare, 1),
      `${a?.fds ?? 0} -> ${b.fds}`,
      fmt(Math.max(...samples.map((s) => s.procs[node]?.lagP99Ms ?? 0)), 1),
    ];
  });
  out("");
  out(
    `${fmt(last.t / 60, 1)} min, ${workloads} workloads, ${chaos} chaos events; messages ${last.flowsDone}/${last.flowsTotal}, lossless drops ${last.losslessDrops}, of them at a full headroom ${last.headroomDrops}`,
  );
  const reasons = Object.entries(last.dropsByReason);
  out(
    `switch drops by reason (lossless and lossy): ${reasons.length === 0 ? "none" : reasons.map(([k, v]) => `${k.slice(5)} ${v}`).join(", ")}`,
  );
  out(
    formatTable(
      ["process", "RSS first MiB", "RSS last MiB", "drift MiB", "CPU %", "fds", "lag p99 max ms"],
      rows,
    ),
  );
  const file = values.out ?? `soak-${new Date().toISOString().slice(0, 19).replaceAll(":", "")}.json`;
  writeNewFile(
    file,
    `${JSON.stringify({ minutes, dilation, seed: Number(values.seed), workloads, chaos, samples }, null, 1)}\n`,
    { force: true, flag: "--out" },
  );
  out(`samples written to ${file}`);
};

if (isMain(import.meta.url)) runAsScript(main);
