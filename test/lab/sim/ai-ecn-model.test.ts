// AI ECN model mode in the simulator: on a 16-to-1 incast over a web-search mix (the pattern of the
// training set's `incast-16`) the congested leaf recognises a trained pattern and installs its thresholds,
// where the same run with the library off (maxDistance 0) only ever corrects online.
import { join } from "node:path";
import t, { type Test } from "tap";
import type { TelemetryEvent } from "../../../src/device/contract.js";
import { runScenarioSim } from "../../../src/run/run-sim.js";
import { loadScenario } from "../../../src/scenario/scenario.js";
import { AI_ECN_MODELS } from "../../../src/switch/features/ai-ecn-models.js";

const topology = join(process.cwd(), "docs", "examples", "incast-3leaf.yaml");
const senders = Array.from({ length: 16 }, (_, i) => `h${i + 1}`);

function run(t: Test, maxDistance: number): (TelemetryEvent & { device: string })[] {
  const dir = t.testdir({
    "sc.yaml": JSON.stringify({
      topology,
      seed: 1,
      duration: "2ms",
      overrides: {
        hosts: { dcqcn: "nvidia" },
        switches: { profile: "balanced", ecn: { ai: { mode: "model", maxDistance } } },
      },
      timeline: [
        {
          at: "10us",
          start: { type: "mix", name: "mice", hosts: ["h1", "h2", "h17"], load: 0.15, sizes: "websearch" },
        },
        { at: "300us", start: { type: "incast", name: "elephants", to: "h17", from: senders, size: "1MB" } },
      ],
    }),
  });
  const events: (TelemetryEvent & { device: string })[] = [];
  runScenarioSim(loadScenario(join(dir, "sc.yaml")), {
    onEvent: (e) => {
      if (e.kind === "info" && e.detail?.startsWith("ai-ecn model"))
        events.push(e as TelemetryEvent & { device: string });
    },
  });
  return events;
}

t.test("the congested leaf takes a trained pattern's thresholds", (t) => {
  const events = run(t, AI_ECN_MODELS.maxDistance).filter((e) => e.device === "leaf3");
  const matched = events.filter((e) => /\(pattern [\w-]+, distance/.test(e.detail!));
  t.ok(matched.length >= 1, `leaf3 matched a pattern ${matched.length} times (${events.length} changes)`);
  const kmaxes = new Set(AI_ECN_MODELS.patterns.map((p) => p.kmax));
  for (const e of matched) t.ok(kmaxes.has(e.value!), `Kmax ${e.value} is a trained pattern's: ${e.detail}`);
  t.ok(
    matched.some((e) => e.value !== 1_500_000),
    "the thresholds moved away from the balanced profile's 1500 KB",
  );
  t.end();
});

t.test("with the library off, only the online correction acts", (t) => {
  const events = run(t, 0);
  t.ok(events.length >= 1, `${events.length} changes`);
  t.notOk(
    events.some((e) => /\(pattern /.test(e.detail!)),
    "no pattern matched",
  );
  t.ok(events.every((e) => /online correction level/.test(e.detail!)));
  t.end();
});
