// `rocelab lint`: seed 002's best practices flag the ghost-latency configuration and pass its fix; each
// rule fires on the configuration it is about and stays quiet on the default fabric.
import t from "tap";
import { formatFinding, lintFile } from "../../src/cli/lint-command.js";
import {
  bestPracticeFindings,
  type Finding,
  hasErrors,
  lintScenario,
  lintTopology,
  RULES,
  resolveLab,
} from "../../src/lab/lint/best-practices.js";
import { smallestXoff } from "../../src/lab/lint/rules-thresholds.js";
import { loadScenario } from "../../src/lab/scenario.js";
import { hostChange, NO_CHANGE, switchChange } from "../../src/lab/settings-layers.js";
import { defaultTopology } from "../../src/lab/topology.js";

const serious = (fs: readonly Finding[]) => fs.filter((f) => f.severity !== "info");
const ids = (fs: readonly Finding[]) => [...new Set(fs.map((f) => f.id))].sort();

function lintDefault(...changes: Parameters<typeof switchChange>[0][]): Finding[] {
  return bestPracticeFindings(resolveLab(defaultTopology(), ...changes.map((c) => switchChange(c))));
}

t.test("ghost latency: bad.yaml is flagged, fixed.yaml is clean", async (t) => {
  const bad = lintScenario(loadScenario("docs/experiments/ghost-latency/bad.yaml"));
  t.ok(hasErrors(bad), "bad.yaml has errors");
  const e = bad.find((f) => f.id === "ecn-before-pfc" && f.severity === "error");
  t.ok(e, "ECN Kmin above XOFF is an error");
  t.match(e?.message, /XOFF is 80KB, at or below ECN Kmin 150KB/);
  t.match(e?.path, /^switches\.\{.*leaf3.*\}\.ecn\.queues\.3$/, "one finding naming every switch");
  const fixed = lintScenario(loadScenario("docs/experiments/ghost-latency/fixed.yaml"));
  t.same(serious(fixed), [], "fixed.yaml: no error, no warning");
  t.notOk(hasErrors(fixed));
});

t.test("the default fabric and the balanced preset are clean", async (t) => {
  t.same(serious(lintTopology(defaultTopology())), []);
  t.same(serious(lintDefault({ profile: "balanced" })), []);
});

t.test("each rule fires on what it is about", async (t) => {
  const aggressive = lintDefault({ profile: "aggressive" });
  t.same(
    ids(serious(aggressive)),
    ["ecn-before-pfc", "kmin-floor"],
    "aggressive: XOFF under Kmax, Kmin 50 KB",
  );
  t.equal(
    aggressive.find((f) => f.id === "ecn-before-pfc")?.severity,
    "warning",
    "Kmin < XOFF < Kmax: a warning",
  );
  t.same(ids(serious(lintDefault({ buffer: { headroom: 10_000 } }))), ["headroom-covers-link"]);
  t.same(ids(serious(lintDefault({ qos: { strictQueues: [7] } }))), ["cnp-strict-priority"]);
  const partial = bestPracticeFindings(
    resolveLab(defaultTopology(), switchChange({ pfc: { enabled: false } }, ["spine1"])),
  );
  t.same(ids(serious(partial)), ["pfc-end-to-end"]);
  t.equal(partial[0]?.severity, "error", "one hop without PFC: an error");
  t.same(
    ids(
      serious(bestPracticeFindings(resolveLab(defaultTopology(), switchChange({ pfc: { enabled: false } })))),
    ),
    ["pfc-end-to-end"],
  );
  const maps = bestPracticeFindings(
    resolveLab(
      defaultTopology(),
      switchChange({ qos: { dscpToPriority: { "26": 4 }, lossless: [4] } }, ["leaf2"]),
    ),
  );
  t.ok(ids(maps).includes("same-qos-maps"), "leaf2 maps RoCE to another priority");
  const off = bestPracticeFindings(resolveLab(defaultTopology(), hostChange({ dcqcn: "off" })));
  t.same(ids(serious(off)), ["dcqcn-on-senders"]);
  const noEcn = lintDefault({ ecn: { queues: { "3": null } } });
  t.same(ids(serious(noEcn)), ["dcqcn-on-senders"], "DCQCN on, nobody marks");
  t.equal(
    lintTopology(defaultTopology()).find((f) => f.id === "pfc-watchdog"),
    undefined,
    "the watchdog is on by default",
  );
  t.equal(
    lintDefault({ pfcWatchdog: { enabled: false } }).find((f) => f.id === "pfc-watchdog")?.severity,
    "warning",
    "switched off: a warning",
  );
});

t.test("dynamic XOFF: the smallest threshold with every lossless PG congested", async (t) => {
  const lab = resolveLab(defaultTopology(), NO_CHANGE);
  const leaf = lab.switches.get("leaf1")!;
  const x = smallestXoff(leaf);
  t.ok(x.dynamic);
  t.ok(x.bytes > 1_500_000 && x.bytes < leaf.buffer.size / 8, `leaf1's dynamic XOFF floor ${x.bytes} B`);
  const tiny = lintDefault({ buffer: { size: 2_000_000 } });
  t.equal(tiny.find((f) => f.id === "ecn-before-pfc")?.severity, "warning", "a small buffer's dynamic XOFF");
});

t.test(
  "every rule has an id, a severity, a title and an explanation; findings print with their fix",
  async (t) => {
    t.equal(new Set(RULES.map((r) => r.id)).size, RULES.length);
    for (const r of RULES) t.ok(r.title.length > 10 && r.explanation.length > 60, r.id);
    const f = lintFile("docs/experiments/ghost-latency/bad.yaml")[0]!;
    t.match(formatFinding(f), /^error {3}ecn-before-pfc .*\n.*XOFF.*\n\s+fix: /);
    t.ok(
      lintFile("docs/examples/default.yaml").every((x) => x.severity === "info"),
      "a topology file lints too",
    );
  },
);

t.test("a set step is linted with what it brought in", async (t) => {
  const sc = loadScenario("docs/experiments/ghost-latency/fixed.yaml");
  const withSet = {
    ...sc,
    timeline: [
      ...sc.timeline,
      { atNs: 1000, kind: "set" as const, change: switchChange({ pfc: { xoff: 50_000 } }) },
    ],
  };
  const found = lintScenario(withSet).filter((f) => f.path.startsWith(`timeline[${sc.timeline.length}]`));
  t.same(ids(found), ["ecn-before-pfc"]);
});
