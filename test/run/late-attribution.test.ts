// pfc.attributeLateness must not call a network drop the machine's: in the simulator (no process can be
// late) a fabric whose headroom is too small for its cables drops the same frames with the setting on or
// off, and every one of them stays in dropped_lossless.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";

function run(dir: string, attributeLateness: boolean) {
  const file = join(dir, `late-${attributeLateness}.yaml`);
  writeFileSync(
    file,
    [
      "name: small-headroom",
      `topology: ${JSON.stringify(resolve("docs/examples/incast-3leaf.yaml"))}`,
      "seed: 1",
      "duration: 1ms",
      "sample: 100us",
      "overrides:",
      "  hosts: { cc: none }",
      `  switches: { buffer: { headroom: 12KB }, pfc: { attributeLateness: ${attributeLateness} } }`,
      "timeline:",
      "  - at: 10us",
      "    start: { type: incast, name: storage, to: h17, from: 16, size: 1MB }",
    ].join("\n"),
  );
  const sc = runScenarioSim(loadScenario(file));
  let late = 0;
  for (const sw of sc.fabric.switches.values())
    late += sw.stats(sc.fabric.sim.now).counters.dropped_lossless_late!;
  return { lossless: sc.report.summary.drops.lossless, late };
}

t.test("12 KB of headroom on 1 µs cables: the same network drops with attribution on and off", async (t) => {
  const dir = t.testdir({});
  const off = run(dir, false);
  const on = run(dir, true);
  t.ok(off.lossless > 0, `the headroom is too small: ${off.lossless} lossless drops`);
  t.equal(on.lossless, off.lossless, "the same drops, all the network's");
  t.equal(on.late, 0, "none put down to lateness");
  t.equal(off.late, 0);
});
