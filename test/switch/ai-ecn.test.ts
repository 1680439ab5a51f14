// AI ECN: the controller never sets unsafe thresholds (Kmax under XOFF, Kmin under Kmax), moves them lower
// when the mice share rises and higher when the elephant share rises (H3C's rule), reacts to PFC;
// and in a switch (`ecn.ai.mode: local`) its changes reach the queue, the stats and the event log.
import t from "tap";
import { createRandom } from "../../src/device/prng.js";
import { AI_ECN_DEFAULTS } from "../../src/switch/features/ai-ecn.js";
import {
  type AiEcnFeatures,
  AiEcnReason,
  type AiEcnState,
  aiEcnStep,
  safeThresholds,
  templateOf,
} from "../../src/switch/features/ai-ecn-controller.js";
import { peerIp, SwitchHarness } from "./harness.js";

const C = AI_ECN_DEFAULTS;
const quiet: AiEcnFeatures = {
  packets: 100,
  meanDepth: 0,
  peakDepth: 0,
  utilisation: 0.95,
  markRate: 0,
  pauses: 0,
  miceShare: 0.5,
  elephantShare: 0.5,
};
const kmaxOf = (s: AiEcnState) => templateOf(s.level, C).kmax;

t.test("thresholds are never unsafe, whatever the features", (t) => {
  const rng = createRandom(7, "ai-ecn");
  const s: AiEcnState = { level: 3, offset: 0, quiet: 0 };
  let worst = 0;
  for (let i = 0; i < 20_000; i++) {
    const e = rng.next();
    const f: AiEcnFeatures = {
      packets: rng.next() < 0.1 ? 0 : 100,
      meanDepth: rng.next() * 5e6,
      peakDepth: rng.next() * 8e6,
      utilisation: rng.next(),
      markRate: rng.next() < 0.5 ? 0 : rng.next(),
      pauses: rng.next() < 0.2 ? 3 : 0,
      miceShare: 1 - e,
      elephantShare: e,
    };
    aiEcnStep(f, s, C);
    if (s.level < 0 || s.level >= C.levels) {
      t.fail(`level ${s.level} out of range`);
      return t.end();
    }
    for (const xoff of [100_000, 1_000_000, 3_000_000, 3_700_000]) {
      const th = safeThresholds(templateOf(s.level, C), xoff, C.safety);
      if (!(th.kmax < xoff && th.kmin <= th.kmax && th.pmax > 0 && th.pmax <= 1)) {
        t.fail(`unsafe ${JSON.stringify(th)} for XOFF ${xoff}`);
        return t.end();
      }
      worst = Math.max(worst, th.kmax / xoff);
    }
  }
  t.ok(worst <= C.safety, `Kmax reached at most ${(worst * 100).toFixed(0)} % of XOFF`);
  t.end();
});

t.test("the mice share pulls thresholds lower, the elephant share higher", (t) => {
  const s: AiEcnState = { level: 3, offset: 0, quiet: 0 };
  const before = kmaxOf(s);
  t.equal(aiEcnStep({ ...quiet, miceShare: 0.9, elephantShare: 0.1 }, s, C), AiEcnReason.Mice);
  const mice = kmaxOf(s);
  t.ok(mice < before, `mice-heavy: Kmax ${before} -> ${mice}`);
  t.equal(aiEcnStep({ ...quiet, miceShare: 0.1, elephantShare: 0.9 }, s, C), AiEcnReason.Elephants);
  t.ok(kmaxOf(s) > mice, `elephant-heavy: Kmax ${mice} -> ${kmaxOf(s)}`);
  const e = s.level;
  t.equal(aiEcnStep({ ...quiet, miceShare: 0.1, elephantShare: 0.9 }, s, C), null, "stable: no change");
  t.equal(s.level, e);
  t.equal(aiEcnStep({ ...quiet, packets: 0 }, s, C), null, "idle: nothing decided");
  t.end();
});

t.test("PFC pulls one level lower, and the correction decays back to the prior", (t) => {
  const s: AiEcnState = { level: 7, offset: 0, quiet: 0 };
  const elephants = { ...quiet, miceShare: 0, elephantShare: 1 };
  t.equal(aiEcnStep({ ...elephants, pauses: 2 }, s, C), AiEcnReason.Pfc);
  t.equal(s.level, 6);
  aiEcnStep({ ...elephants, pauses: 2 }, s, C);
  aiEcnStep({ ...elephants, pauses: 2 }, s, C);
  t.equal(s.level, 7 - C.maxOffset, "bounded correction");
  for (let i = 0; i < C.decayPeriods * C.maxOffset; i++) aiEcnStep(elephants, s, C);
  t.equal(s.level, 7, "back to the prior after quiet periods");
  t.end();
});

t.test("under-utilised elephants with marks and a short queue: the correction goes up", (t) => {
  const s: AiEcnState = { level: 5, offset: 0, quiet: 0 };
  const elephants = { ...quiet, miceShare: 0.3, elephantShare: 0.7, utilisation: 0.5, markRate: 0.3 };
  t.equal(aiEcnStep({ ...elephants, meanDepth: 10_000 }, s, C), AiEcnReason.Throughput);
  t.same([s.level, s.offset], [6, 1], "prior 5, one level up");
  const m: AiEcnState = { level: 0, offset: 0, quiet: 0 };
  const mice = { ...elephants, miceShare: 1, elephantShare: 0, meanDepth: 10_000 };
  t.equal(aiEcnStep(mice, m, C), null, "mostly mice: a lightly loaded link is not a marking problem");
  t.equal(m.offset, 0);
  t.end();
});

t.test("local mode in a switch: thresholds follow the traffic, safely, visible in stats and events", (t) => {
  const h = new SwitchHarness({
    settings: {
      pfc: { xoff: 500_000 },
      ecn: { queues: { "3": { kmin: 150_000, kmax: 1_500_000, pmax: 0.2 } }, ai: { mode: "local" } },
    },
  }).start();
  t.equal(h.queueCounter(2, 3, "ecn_kmax_bytes"), 1_500_000, "the configured thresholds to begin with");
  // One long flow (an elephant): 50 packets of 1 KB in each of 8 periods.
  for (let p = 0; p < 8; p++) {
    for (let i = 0; i < 50; i++) h.deliver(1, h.udp(1, peerIp(2), { dscp: 26, sport: 0xc001 }));
    h.run(h.now + 100_000);
  }
  const kmax = h.queueCounter(2, 3, "ecn_kmax_bytes");
  t.ok(kmax > 0 && kmax < 500_000, `Kmax ${kmax} stays under the static XOFF of 500 KB`);
  t.ok(h.queueCounter(2, 3, "ecn_kmin_bytes") <= kmax, "Kmin <= Kmax");
  const elephantLevel = h.queueCounter(2, 3, "ai_ecn_level");
  t.equal(elephantLevel, C.levels - 1, "elephant traffic: the highest level");
  // Then only mice: 200 flows of 1 packet each per period, for 6 periods (the shares are smoothed).
  for (let p = 0; p < 6; p++) {
    for (let i = 0; i < 200; i++)
      h.deliver(1, h.udp(1, peerIp(2), { dscp: 26, sport: 0xd000 + p * 256 + i }));
    h.run(h.now + 100_000);
  }
  t.equal(h.queueCounter(2, 3, "ai_ecn_level"), 0, "mice traffic: the lowest level");
  t.equal(h.queueCounter(2, 3, "ecn_kmax_bytes"), C.low.kmax, "the low template's Kmax");
  const changes = h.env.events.filter((e) => e.kind === "info" && e.detail?.startsWith("ai-ecn"));
  t.ok(changes.length >= 3, `an event per change (${changes.length})`);
  t.match(changes.at(-1)!.detail, /mice share/, "with its reason");
  t.match(changes[1]!.detail, /elephant share/);
  t.equal(h.counter("ai_ecn_changes"), changes.length);
  t.end();
});
