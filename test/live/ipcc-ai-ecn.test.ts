// IPCC and AI ECN in the live lab: the same feature code in real switch processes, over real veth. One
// switch, three hosts, dilation 1000. IPCC: with ECN marking off, the switch's own CNPs reach the senders'
// QPs (no receiver sends any). AI ECN central: the switch publishes features, the analyser in the lab
// pushes thresholds over the control socket, each change reported with its reason, always under XOFF.
// Needs root; the lab is torn down by runScenarioLive, also when the run fails.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { runScenarioLive } from "../../src/run/run-live.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { requireRoot, rl } from "../helpers/live.js";
import { tempDir } from "../helpers/temp-dir.js";

requireRoot(t);

const LAB = "h13l";
const TOPOLOGY = `name: tiny
description: one switch, three hosts
defaults:
  link: { rate: 100G, delay: 1us }
nodes:
  leaf1: { kind: switch }
  h1: { kind: host }
  h2: { kind: host }
  h3: { kind: host }
links:
  - ["h1:eth1", "leaf1:eth1"]
  - ["h2:eth1", "leaf1:eth2"]
  - ["h3:eth1", "leaf1:eth3"]
`;

function scenario(name: string, switches: string, timeline: string) {
  const dir = tempDir("h13-live-");
  writeFileSync(join(dir, "topo.yaml"), TOPOLOGY);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\ndescription: live check\ntopology: topo.yaml\nseed: 1\nduration: 3ms\nsample: 500us\n` +
      `overrides:\n  hosts: { dcqcn: nvidia }\n  switches: ${switches}\ntimeline:\n${timeline}`,
  );
  return { file, out: join(dir, "out") };
}

const queue3 = (report: Awaited<ReturnType<typeof runScenarioLive>>, port: string) =>
  (
    report.devices.leaf1 as unknown as {
      ports: Record<string, { queues: Record<string, Record<string, number>> }>;
    }
  ).ports[port]!.queues["3"]!;

t.test("IPCC: the live switch's CNPs cut the senders' rates", async (t) => {
  await rl(["topology", "--help"]); // builds dist/ for the device processes
  const sc = scenario(
    "h13-ipcc",
    `{ ipcc: { enabled: true }, ecn: { queues: { "3": null } } }`,
    "  - at: 10us\n    start: { type: incast, name: warmup, to: h3, from: [h1, h2], size: 16KB }\n" +
      "  - at: 300us\n    start: { type: incast, name: incast, to: h3, from: [h1, h2], size: 4MB }\n",
  );
  const report = await runScenarioLive(loadScenario(sc.file), { dilation: 1000, lab: LAB, outDir: sc.out });
  const nic = (h: string, c: string) => report.devices[h]!.counters[c] ?? 0;
  const sent = queue3(report, "eth3").ipcc_cnp_sent ?? 0;
  t.ok(sent > 0, `leaf1 sent ${sent} CNPs for its queue towards h3`);
  for (const h of ["h1", "h2"])
    t.ok(nic(h, "rp_cnp_handled") > 0, `${h} handled ${nic(h, "rp_cnp_handled")}`);
  for (const h of ["h1", "h2", "h3"]) {
    t.equal(nic(h, "np_cnp_sent"), 0, `${h}: no receiver CNP (nothing marked)`);
    t.equal(nic(h, "rp_cnp_ignored"), 0, `${h}: no CNP for an unknown QP`);
  }
  t.equal(report.summary.drops.lossless, 0);
  t.end();
});

t.test("AI ECN central: the lab's analyser sets the live switch's thresholds, safely", async (t) => {
  const sc = scenario(
    "h13-aiecn",
    "{ ecn: { ai: { mode: central } } }",
    "  - at: 10us\n    start: { type: flow, name: mice, from: h1, to: h3, size: 16KB, repeat: 40, interval: 50us }\n" +
      "  - at: 1ms\n    start: { type: incast, name: elephants, to: h3, from: [h1, h2], size: 4MB }\n",
  );
  const events: { kind: string; detail?: string }[] = [];
  const report = await runScenarioLive(loadScenario(sc.file), { dilation: 1000, lab: LAB, outDir: sc.out });
  const { readFileSync } = await import("node:fs");
  for (const line of readFileSync(join(sc.out, "events.jsonl"), "utf8").split("\n")) {
    if (line) events.push(JSON.parse(line));
  }
  const features = events.filter((e) => e.detail?.startsWith('{"aiEcn":"features"'));
  const changes = events.filter((e) => e.detail?.startsWith("ecn thresholds queue 3"));
  t.ok(features.length > 0, `${features.length} feature reports from the switch`);
  t.ok(changes.length > 0, `${changes.length} threshold changes pushed`);
  t.ok(
    changes.every((e) => /\(ai-ecn central level \d+ \(/.test(e.detail ?? "")),
    "each with its reason",
  );
  const kmax = queue3(report, "eth3").ecn_kmax_bytes ?? 0;
  const last = Number(/kmax (\d+)/.exec(changes.at(-1)?.detail ?? "")?.[1]);
  t.equal(kmax, last, `stats show the last Kmax pushed (${kmax})`);
  const xoff = JSON.parse(features.at(-1)!.detail!).xoff as number;
  t.ok(kmax < xoff, `Kmax ${kmax} under the XOFF bound ${Math.round(xoff)}`);
  t.end();
});

t.test(
  "AI ECN model: the live switch matches a trained pattern or corrects online, as the simulator does",
  async (t) => {
    const sc = scenario(
      "h39-aiecn-model",
      "{ profile: balanced, ecn: { ai: { mode: model } } }",
      "  - at: 10us\n    start: { type: flow, name: mice, from: h1, to: h3, size: 16KB, repeat: 40, interval: 50us }\n" +
        "  - at: 500us\n    start: { type: incast, name: elephants, to: h3, from: [h1, h2], size: 4MB }\n",
    );
    const { runScenarioSim } = await import("../../src/run/run-sim.js");
    const { readFileSync } = await import("node:fs");
    const decisions = (lines: readonly { detail?: string }[]) =>
      lines.filter((e) => e.detail?.startsWith("ai-ecn model queue 3"));
    const simEvents: { detail?: string }[] = [];
    const sim = runScenarioSim(loadScenario(sc.file), { onEvent: (e) => simEvents.push(e) }).report;
    const live = await runScenarioLive(loadScenario(sc.file), { dilation: 1000, lab: LAB, outDir: sc.out });
    const liveEvents = readFileSync(join(sc.out, "events.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { detail?: string });
    const acted = (r: typeof live) =>
      (r.devices.leaf1!.counters.ai_ecn_model_matches ?? 0) +
      (r.devices.leaf1!.counters.ai_ecn_model_corrections ?? 0);
    t.ok(acted(sim) > 0, `simulator: leaf1 matched or corrected ${acted(sim)} times`);
    t.ok(acted(live) > 0, `live: leaf1 matched or corrected ${acted(live)} times`);
    const changes = decisions(liveEvents);
    t.ok(changes.length > 0, `${changes.length} threshold changes on the live switch`);
    t.ok(
      changes.every((e) => /\((pattern [\w-]+, distance|online correction level)/.test(e.detail ?? "")),
      "each with its reason: a trained pattern or the online correction",
    );
    t.ok(decisions(simEvents).length > 0, `and ${decisions(simEvents).length} in the simulator`);
    const kmax = queue3(live, "eth3").ecn_kmax_bytes ?? 0;
    const last = Number(/kmax (\d+)/.exec(changes.at(-1)?.detail ?? "")?.[1]);
    t.equal(kmax, last, `stats show the last Kmax the model set (${kmax})`);
    t.end();
  },
);
