// rocelab run --runtime live: the same scenario format and report as the simulator, on a live lab.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import type { Report } from "../../src/lab/report.js";
import { requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

t.test("a scenario runs live and reports like the simulator", async (t) => {
  const dir = t.testdir({});
  const scenario = join(dir, "pair.yaml");
  writeFileSync(
    scenario,
    [
      "name: live-pair",
      "duration: 2ms",
      "sample: 50us",
      "topology:",
      "  nodes: { sw: { kind: switch }, a: { kind: host }, b: { kind: host }, c: { kind: host } }",
      '  links: [["a:eth1", "sw:eth1"], ["b:eth1", "sw:eth2"], ["c:eth1", "sw:eth3"]]',
      "timeline:",
      "  - at: 20us",
      "    start: { type: incast, to: c, from: [a, b], size: 2MB }",
      "",
    ].join("\n"),
  );
  const out = join(dir, "out");
  const r = await rl(["run", scenario, "--runtime", "live", "--out", out, "--quiet"], 180_000);
  t.equal(r.exitCode, 0, r.stderr);
  t.match(r.stdout, /scenario live-pair \(live, dilation 1000/);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Report;
  t.equal(report.runtime, "live");
  t.equal(report.dilation, 1000);
  t.equal(report.summary.flowsCompleted, 2, "both WRITEs completed");
  t.equal(report.summary.drops.lossless, 0);
  t.ok(report.summary.goodputBps > 0, `goodput into c ${(report.summary.goodputBps / 1e9).toFixed(1)} Gb/s`);
  for (const f of report.flows) {
    t.ok(
      f.startNs >= 20_000 && f.startNs < 2_000_000,
      `flow ${f.id} starts in scenario time (${f.startNs} ns)`,
    );
  }
  t.ok(report.devices.sw!.kind === "switch" && report.devices.a!.kind === "nic", "every device reported");
  for (const file of Object.values(report.files)) t.ok(existsSync(join(out, file)), `${file} written`);
  t.ok(readFileSync(join(out, "queue-depth.csv"), "utf8").split("\n").length > 3, "queue depth sampled");
  const { stdout } = await execa("ip", ["netns", "list"]);
  t.notMatch(stdout, /rl-run\d+-/, "the scenario's lab is gone");
});
