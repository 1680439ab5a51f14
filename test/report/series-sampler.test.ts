// The simulator's direct sampler writes exactly the rows that device stats through SeriesRecorder.sample
// write (the live runtime's path), sample for sample: one fabric, both recorders, the same instants — with
// DCQCN, and with HPCC (whose window and utilisation estimate are rows of qp-rate.csv too).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { createRandom } from "../../src/device/prng.js";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import { FlowDriver } from "../../src/lab/flow-driver.js";
import { SimFabric } from "../../src/lab/sim/sim-fabric.js";
import { Nic } from "../../src/nic/nic.js";
import { generateFlows } from "../../src/nic/workloads.js";
import { SeriesRecorder } from "../../src/report/series-recorder.js";
import { SeriesSampler } from "../../src/report/series-sampler.js";
import { OutputDir } from "../../src/runtime/realtime/safe-files.js";
import { buildNicConfig } from "../../src/scenario/nic-config.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { nicSettings, switchSettings } from "../../src/scenario/schema.js";
import { SettingsLayers } from "../../src/scenario/settings-layers.js";

for (const cc of ["dcqcn", "hpcc"] as const)
  t.test(`SeriesSampler and stats-fed SeriesRecorder write identical CSVs (${cc})`, (t) => {
    const sc = loadScenario("docs/experiments/incast-dcqcn.yaml");
    const topo = sc.topology;
    const o = sc.overrides;
    const settings = new SettingsLayers(
      topo,
      cc === "dcqcn"
        ? o
        : {
            ...o,
            hosts: [...o.hosts, nicSettings.parse({ cc })],
            switches: [...o.switches, switchSettings.parse({ int: { enabled: true } })],
          },
    );
    const fabric = new SimFabric(
      topo,
      (host, address, link, env) =>
        new Nic(
          buildNicConfig({ host, address, link, mtu: topo.mtu }, settings.hostSettings(), {
            answerArp: true,
          }),
          env,
        ),
      { seed: sc.seed, settings },
    );
    const sim = fabric.sim;
    const nics = fabric.hosts as Map<string, Nic>;
    const driver = new FlowDriver(fabric.plan, {
      command: (host, cmd) => {
        nics.get(host)!.command(cmd, sim.now);
      },
      schedule: (at, fn) => sim.at(at, fn),
    });
    const step = sc.timeline[0]!;
    if (step.action.kind !== "start") throw new Error("the scenario starts with a workload");
    driver.add(generateFlows(step.action.workload, step.atNs, createRandom(sc.seed, "w"), driver.newId));
    const direct = new SeriesRecorder();
    const sampler = new SeriesSampler(direct, fabric.switches, nics);
    const viaStats = new SeriesRecorder();
    for (let at = 0; at <= 400_000; at += 2_000) {
      sim.at(at, (now) => {
        sampler.sample(now);
        const stats: AnyDeviceStats[] = [];
        for (const sw of fabric.switches.values()) stats.push(sw.stats(now));
        for (const nic of nics.values()) stats.push(nic.stats(now));
        viaStats.sample(now, stats);
      });
    }
    sim.run(400_000);
    const dir = mkdtempSync(join(tmpdir(), "series-sampler-"));
    const texts = (r: SeriesRecorder): Map<string, string> => {
      const out = new Map<string, string>();
      const handle = OutputDir.existing(dir);
      for (const s of r.all) {
        s.write(handle);
        out.set(s.file, readFileSync(join(dir, s.file), "utf8"));
      }
      handle.close();
      return out;
    };
    let directText: Map<string, string>;
    let statsText: Map<string, string>;
    try {
      directText = texts(direct);
      statsText = texts(viaStats);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    t.ok((directText.get("queue-depth.csv")?.split("\n").length ?? 0) > 50, "queues moved: many rows");
    t.ok((directText.get("qp-rate.csv")?.split("\n").length ?? 0) > 20, `${cc} moved rates: many rows`);
    t.equal(
      directText.get("qp-rate.csv")!.includes(",utilisation,"),
      cc === "hpcc",
      `utilisation rows ${cc === "hpcc" ? "" : "only with HPCC"}`,
    );
    t.equal(statsText.size, 5, "five series");
    for (const [file, text] of statsText) t.equal(directText.get(file), text, file);
    t.end();
  });
