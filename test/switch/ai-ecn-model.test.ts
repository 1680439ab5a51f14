// AI ECN model mode: the inference is a pure function from features to a pattern (nearest centroid, within
// a distance bound, else nothing); the committed library is well formed and safe; the config is
// validated with a message naming the path; in a switch, a match installs the pattern's thresholds and
// no match falls back to the online correction, both visible in counters and events.
import { join } from "node:path";
import t from "tap";
import { ConfigError } from "../../src/scenario/config-error.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { AI_ECN_DEFAULTS } from "../../src/switch/features/ai-ecn.js";
import { safeThresholds } from "../../src/switch/features/ai-ecn-controller.js";
import {
  AI_ECN_MODEL_FEATURES,
  type AiEcnModelLibrary,
  checkLibrary,
  matchPattern,
  patternDistance,
  scaleObservation,
} from "../../src/switch/features/ai-ecn-model.js";
import { AI_ECN_MODELS } from "../../src/switch/features/ai-ecn-models.js";
import { peerIp, SwitchHarness } from "./harness.js";

const lib: AiEcnModelLibrary = {
  features: [...AI_ECN_MODEL_FEATURES],
  maxDistance: 0.2,
  patterns: [
    { name: "mice", centroid: [0, 0.5, 0, 0.3], kmin: 50_000, kmax: 200_000, pmax: 1 },
    { name: "incast", centroid: [0.6, 0.6, 0.9, 1], kmin: 500_000, kmax: 3_000_000, pmax: 1 },
  ],
};

t.test("scaling: flow counts on a log scale, the demand halved, everything in 0..1", (t) => {
  const v = scaleObservation(
    { elephantFlows: 64, activeFlows: 0, elephantShare: 0.4, load: 1 },
    [0, 0, 0, 0],
  );
  t.same(v, [1, 0, 0.4, 0.5]);
  const w = scaleObservation(
    { elephantFlows: 1000, activeFlows: -3, elephantShare: Number.NaN, load: 9 },
    new Float64Array(4),
  );
  t.same(Array.from(w), [1, 0, 0, 1], "clamped; NaN is 0");
  t.equal(patternDistance([0, 0, 0, 0], [1, 1, 1, 1]), 2);
  t.end();
});

t.test("inference: the nearest pattern within the bound, else no match", (t) => {
  const near = matchPattern([0.55, 0.6, 0.85, 1], lib, lib.maxDistance);
  t.equal(near.index, 1);
  t.ok(near.matched, `incast-like features match incast (distance ${near.distance.toFixed(3)})`);
  const mid = matchPattern([0.3, 0.55, 0.45, 0.65], lib, lib.maxDistance);
  t.notOk(mid.matched, `half-way between the two: no match (nearest at ${mid.distance.toFixed(3)})`);
  t.ok(mid.index >= 0, "the nearest is still named");
  t.notOk(matchPattern(lib.patterns[0]!.centroid, lib, 0).matched, "maxDistance 0 never matches");
  t.ok(matchPattern(lib.patterns[0]!.centroid, lib, 1e-9).matched, "a centroid matches itself");
  const none = matchPattern([0, 0, 0, 0], { ...lib, patterns: [] }, 2);
  t.same([none.index, none.matched], [-1, false], "an empty library matches nothing");
  t.end();
});

t.test("the committed library is well formed, names its features, and its thresholds are safe", (t) => {
  t.doesNotThrow(() => checkLibrary(AI_ECN_MODELS, "ai-ecn-models.ts"));
  t.ok(AI_ECN_MODELS.patterns.length >= 3, `${AI_ECN_MODELS.patterns.length} trained patterns`);
  t.equal(AI_ECN_DEFAULTS.maxDistance, AI_ECN_MODELS.maxDistance, "the trained bound is the default");
  for (const p of AI_ECN_MODELS.patterns) {
    const s = safeThresholds(p, 3_000_000, AI_ECN_DEFAULTS.safety);
    t.ok(s.kmax < 3_000_000 && s.kmin <= s.kmax, `${p.name}: ${s.kmin}/${s.kmax} under a 3 MB XOFF`);
  }
  t.throws(
    () => checkLibrary({ ...lib, patterns: [{ ...lib.patterns[0]!, kmin: 9e6 }] }, "x"),
    /pattern mice: needs 0 < kmin <= kmax/,
  );
  t.throws(() => checkLibrary({ ...lib, features: ["a"] }, "x"), /features a, expected/);
  t.end();
});

t.test("config: mode model and its knobs are validated, naming the path", (t) => {
  const topology = join(process.cwd(), "docs", "examples", "incast-3leaf.yaml");
  const scenario = (ai: string) =>
    `topology: ${JSON.stringify(topology)}\nduration: 1ms\noverrides:\n  switches: { ecn: { ai: ${ai} } }\ntimeline: [{ at: 10us, start: { type: flow, from: h1, to: h17, size: 1KB } }]\n`;
  const dir = t.testdir({
    "ok.yaml": scenario("{ mode: model, maxDistance: 0.5, publish: true }"),
    "mode.yaml": scenario("{ mode: modle }"),
    "bound.yaml": scenario("{ mode: model, maxDistance: 3 }"),
  });
  const sc = loadScenario(join(dir, "ok.yaml"));
  t.match(JSON.stringify(sc.overrides.switches), /"mode":"model","maxDistance":0.5,"publish":true/);
  const message = (f: string): string => {
    try {
      loadScenario(join(dir, f));
    } catch (e) {
      if (e instanceof ConfigError) return e.message;
      throw e;
    }
    return "";
  };
  t.match(
    message("mode.yaml"),
    /mode\.yaml:4:\d+: overrides\.switches\.ecn\.ai\.mode: "modle" is not allowed: one of "off", "local", "central", "model"/,
  );
  t.match(message("bound.yaml"), /bound\.yaml:4:\d+: .*ecn\.ai\.maxDistance/);
  t.end();
});

/** Eight periods of elephant traffic (8 flows of 50 × 1 KB per period) through a switch in model mode. */
function elephants(maxDistance: number) {
  const h = new SwitchHarness({
    settings: {
      pfc: { xoff: 3_000_000 },
      ecn: {
        queues: { "3": { kmin: 150_000, kmax: 1_500_000, pmax: 0.2 } },
        ai: { mode: "model", maxDistance, publish: true },
      },
    },
  }).start();
  for (let p = 0; p < 8; p++) {
    for (let i = 0; i < 50; i++)
      for (let f = 0; f < 8; f++) h.deliver(1, h.udp(1, peerIp(2), { dscp: 26, sport: 0xc001 + f }));
    h.run(h.now + 100_000);
  }
  const info = h.env.events.filter((e) => e.kind === "info");
  const vectors = info
    .filter((e) => e.detail?.startsWith('{"aiEcn":"model-features"'))
    .map((e) => JSON.parse(e.detail!).vector as number[]);
  const changes = info.filter((e) => e.detail?.startsWith("ai-ecn model"));
  return { h, vectors, changes };
}

t.test("model mode in a switch: a matching pattern's thresholds, counted and reported", (t) => {
  const { h, vectors, changes } = elephants(2);
  t.ok(vectors.length >= 7, `a published vector per busy period (${vectors.length})`);
  const want = matchPattern(vectors.at(-1)!, AI_ECN_MODELS, 2);
  t.ok(want.matched, "every vector is within 2 of some pattern (the unit cube's diagonal)");
  const p = AI_ECN_MODELS.patterns[want.index]!;
  t.equal(h.queueCounter(2, 3, "ai_ecn_pattern"), want.index, `pattern ${p.name} in force`);
  t.equal(h.queueCounter(2, 3, "ecn_kmax_bytes"), p.kmax, "its trained Kmax");
  t.equal(h.queueCounter(2, 3, "ecn_kmin_bytes"), p.kmin, "its trained Kmin");
  t.equal(h.counter("ai_ecn_model_matches"), vectors.length, "every period matched");
  t.equal(h.counter("ai_ecn_model_corrections"), 0);
  t.ok(changes.length >= 1, "the change is an event");
  t.match(changes.at(-1)!.detail, new RegExp(`pattern ${p.name}, distance`));
  t.end();
});

t.test("model mode in a switch: no pattern within the bound, the online correction decides", (t) => {
  const { h, vectors, changes } = elephants(0);
  t.equal(h.counter("ai_ecn_model_matches"), 0, "maxDistance 0: nothing matches");
  t.ok(h.counter("ai_ecn_model_corrections") >= 1, "the correction set the thresholds");
  t.equal(h.queueCounter(2, 3, "ai_ecn_pattern"), -1);
  t.equal(h.queueCounter(2, 3, "ai_ecn_level"), AI_ECN_DEFAULTS.levels - 1, "elephants: the top level");
  t.not(h.queueCounter(2, 3, "ecn_kmax_bytes"), 1_500_000, "not the configured thresholds any more");
  t.match(changes[0]!.detail, /online correction level \d+: first decision; nearest \S+ at/);
  t.ok(vectors.length >= 7);
  t.end();
});
