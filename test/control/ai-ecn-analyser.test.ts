// AI ECN's central analyser: feature reports in (as switches publish them), `ecn-thresholds` commands
// out, with a reason, per switch and queue, never unsafe, lower when the mice share rises and higher
// when the elephant share rises; anything else in the event stream is ignored.
import t from "tap";
import { AiEcnAnalyser } from "../../src/control/ai-ecn-analyser.js";
import { AI_ECN_DEFAULTS } from "../../src/switch/features/ai-ecn.js";
import type { AiEcnFeatures } from "../../src/switch/features/ai-ecn-controller.js";
import type { EcnThresholdsCommand } from "../../src/switch/features/wred-ecn.js";

const control = {
  levels: AI_ECN_DEFAULTS.levels,
  low: AI_ECN_DEFAULTS.low,
  high: AI_ECN_DEFAULTS.high,
  utilTarget: AI_ECN_DEFAULTS.utilTarget,
  maxOffset: AI_ECN_DEFAULTS.maxOffset,
  decayPeriods: AI_ECN_DEFAULTS.decayPeriods,
  safety: AI_ECN_DEFAULTS.safety,
  wDelay: AI_ECN_DEFAULTS.wDelay,
  wPfc: AI_ECN_DEFAULTS.wPfc,
};
const XOFF = 2_000_000;

function report(device: string, mice: number, extra: Partial<AiEcnFeatures> = {}) {
  const features: AiEcnFeatures = {
    packets: 100,
    meanDepth: 0,
    peakDepth: 0,
    utilisation: 0.95,
    markRate: 0,
    pauses: 0,
    miceShare: mice,
    elephantShare: 1 - mice,
    ...extra,
  };
  return {
    kind: "info" as const,
    device,
    priority: 3,
    detail: JSON.stringify({ aiEcn: "features", queue: 3, xoff: XOFF, features, control }),
  };
}

t.test("the analyser pushes safe thresholds that follow the traffic, per switch", (t) => {
  const sent: { device: string; cmd: EcnThresholdsCommand }[] = [];
  const a = new AiEcnAnalyser((device, cmd) => sent.push({ device, cmd }));
  a.onEvent({ kind: "ecn-mark", device: "leaf1", port: 3, priority: 3, count: 1 });
  a.onEvent({ kind: "info", device: "leaf1", detail: "something else" });
  t.equal(sent.length, 0, "other events are ignored");

  a.onEvent(report("leaf1", 1));
  t.equal(sent.length, 1, "the first report sets thresholds");
  t.equal(sent[0]!.cmd.thresholds!.kmax, AI_ECN_DEFAULTS.low.kmax, "all mice: the lowest template");
  t.match(sent[0]!.cmd.reason, /ai-ecn central level 0/);
  a.onEvent(report("leaf1", 1));
  t.equal(sent.length, 1, "no change, no command");

  a.onEvent(report("leaf1", 0));
  const up = sent.at(-1)!.cmd;
  t.match(up.reason, /elephant share/);
  t.ok(up.thresholds!.kmax > AI_ECN_DEFAULTS.low.kmax, "elephants: higher");
  t.ok(up.thresholds!.kmax < XOFF, `Kmax ${up.thresholds!.kmax} under XOFF ${XOFF}`);
  t.ok(up.thresholds!.kmin <= up.thresholds!.kmax);

  a.onEvent(report("leaf1", 0.9));
  const down = sent.at(-1)!.cmd;
  t.match(down.reason, /mice share/);
  t.ok(down.thresholds!.kmax < up.thresholds!.kmax, "mice again: lower");

  a.onEvent(report("leaf2", 0));
  t.equal(sent.at(-1)!.device, "leaf2", "each switch has its own state");
  t.equal(a.changes, sent.length);
  t.end();
});
