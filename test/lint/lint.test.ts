// The one lint rule set: every rule fires on the configuration it is about and stays quiet on a near miss
// (a table that must cover every rule), the ghost-latency bad.yaml is flagged and fixed.yaml is clean, and
// findings group, sort and follow a scenario's set steps.
import t from "tap";
import { formatFinding, hasErrors, lintLab, lintScenario, lintTopology, RULES } from "../../src/lint/lint.js";
import { smallestXoff } from "../../src/lint/rules-thresholds.js";
import { type MachineContext, resolveLab } from "../../src/scenario/resolved-lab.js";
import type { Finding } from "../../src/scenario/rule.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import {
  hostChange,
  NO_CHANGE,
  type SettingsChange,
  switchChange,
} from "../../src/scenario/settings-layers.js";
import {
  defaultTopology,
  defaultTopologyFile,
  resolveTopology,
  type Topology,
} from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";

const serious = (fs: readonly Finding[]) => fs.filter((f) => f.severity !== "info");
const ids = (fs: readonly Finding[]) => [...new Set(fs.map((f) => f.id))].sort();

interface Case {
  readonly what: string;
  readonly topology?: () => Topology;
  readonly changes?: readonly SettingsChange[];
  readonly machine?: MachineContext;
}
const incast = () => loadTopology("docs/examples/incast-3leaf.yaml");
/** The default fabric with static routes that send h1 → h5 up spine1 and h5 → h1 up spine2. */
const asymmetric = (): Topology => {
  const file = defaultTopologyFile();
  return resolveTopology(
    {
      ...file,
      nodes: {
        ...file.nodes,
        leaf1: { kind: "switch", routes: [{ to: "h5", via: "eth1" }] },
        leaf2: { kind: "switch", routes: [{ to: "h1", via: "eth2" }] },
      },
    },
    "test",
    null,
  );
};
function lint(c: Case): Finding[] {
  return lintLab(resolveLab((c.topology ?? defaultTopology)(), c.changes ?? [], c.machine));
}

/** For each rule: configurations that trigger it (with the severity), and near misses that do not. */
const CASES: Record<string, { fires: (Case & { severity: string })[]; quiet: Case[] }> = {
  "pfc-xoff-over-buffer": {
    fires: [{ what: "xoff 64MB", changes: [switchChange({ pfc: { xoff: 64_000_000 } })], severity: "error" }],
    quiet: [
      { what: "xoff 3MB", changes: [switchChange({ pfc: { xoff: 3_000_000 } })] },
      { what: "xoff 64MB, PFC off", changes: [switchChange({ pfc: { enabled: false, xoff: 64_000_000 } })] },
    ],
  },
  "ecn-before-pfc": {
    fires: [
      { what: "xoff 80KB under Kmin", changes: [switchChange({ pfc: { xoff: 80_000 } })], severity: "error" },
      {
        what: "aggressive: Kmin < XOFF < Kmax",
        changes: [switchChange({ profile: "aggressive" })],
        severity: "warning",
      },
      {
        what: "dynamic XOFF of a 2 MB buffer",
        changes: [switchChange({ buffer: { size: 2_000_000 } })],
        severity: "warning",
      },
    ],
    quiet: [
      { what: "xoff 3MB above Kmax", changes: [switchChange({ pfc: { xoff: 3_000_000 } })] },
      { what: "default dynamic XOFF", changes: [] },
    ],
  },
  "headroom-covers-link": {
    fires: [
      { what: "headroom 10KB", changes: [switchChange({ buffer: { headroom: 10_000 } })], severity: "error" },
    ],
    quiet: [
      { what: "headroom 1MB", changes: [switchChange({ buffer: { headroom: 1_000_000 } })] },
      { what: "headroom auto", changes: [switchChange({ buffer: { headroom: "auto" } })] },
    ],
  },
  "kmin-floor": {
    fires: [
      {
        what: "aggressive: Kmin 50KB",
        changes: [switchChange({ profile: "aggressive" })],
        severity: "warning",
      },
    ],
    quiet: [{ what: "balanced: Kmin 150KB", changes: [switchChange({ profile: "balanced" })] }],
  },
  "pfc-end-to-end": {
    fires: [
      {
        what: "PFC off on spine1",
        changes: [switchChange({ pfc: { enabled: false } }, ["spine1"])],
        severity: "error",
      },
      {
        what: "PFC off everywhere (lossy RoCE)",
        changes: [switchChange({ pfc: { enabled: false } })],
        severity: "warning",
      },
    ],
    quiet: [{ what: "the default fabric", changes: [] }],
  },
  "same-qos-maps": {
    fires: [
      {
        what: "leaf2 maps RoCE to priority 4",
        changes: [switchChange({ qos: { dscpToPriority: { "26": 4 }, lossless: [4] } }, ["leaf2"])],
        severity: "error",
      },
    ],
    quiet: [
      {
        what: "the same change of strict queues everywhere",
        changes: [switchChange({ qos: { strictQueues: [6, 7] } })],
      },
    ],
  },
  "cnp-strict-priority": {
    fires: [
      {
        what: "only queue 7 strict",
        changes: [switchChange({ qos: { strictQueues: [7] } })],
        severity: "warning",
      },
    ],
    quiet: [{ what: "queues 6 and 7 strict", changes: [switchChange({ qos: { strictQueues: [6, 7] } })] }],
  },
  "cnp-return-path": {
    fires: [
      {
        what: "the NICs send CNPs on the data priority (cnp_802p_prio 3)",
        changes: [hostChange({ qos: { cnpPriority: 3 } })],
        severity: "warning",
      },
      {
        what: "spine1 gives DSCP 48 priority 5",
        changes: [switchChange({ qos: { dscpToPriority: { "48": 5 } } }, ["spine1"])],
        severity: "warning",
      },
      {
        what: "CNPs at DSCP 46, which the NICs map to 6 and the switches to 0",
        changes: [hostChange({ qos: { cnpDscp: 46, dscpToPriority: { "46": 6 } } })],
        severity: "warning",
      },
      { what: "h1 → h5 up spine1, its CNPs back down spine2", topology: asymmetric, severity: "info" },
    ],
    quiet: [
      { what: "the default fabric" },
      { what: "cnpPriority 6 said out loud", changes: [hostChange({ qos: { cnpPriority: 6 } })] },
      { what: "a ring with computed routes", topology: () => loadTopology("docs/examples/ring4.yaml") },
    ],
  },
  "dcqcn-on-senders": {
    fires: [
      { what: "DCQCN off on the hosts", changes: [hostChange({ cc: "none" })], severity: "warning" },
      {
        what: "nobody marks the RoCE queue",
        changes: [switchChange({ ecn: { queues: { "3": null } } })],
        severity: "warning",
      },
      {
        what: "DCTCP and nobody marks",
        changes: [hostChange({ cc: "dctcp" }), switchChange({ ecn: { queues: { "3": null } } })],
        severity: "warning",
      },
    ],
    quiet: [
      {
        what: "HPCC hosts where switches mark (they ignore CNPs by design)",
        changes: [hostChange({ cc: "hpcc" })],
      },
      {
        what: "DCQCN off and no marking",
        changes: [hostChange({ cc: "none" }), switchChange({ ecn: { queues: { "3": null } } })],
      },
    ],
  },
  "int-for-hpcc": {
    fires: [{ what: "HPCC hosts, INT off", changes: [hostChange({ cc: "hpcc" })], severity: "warning" }],
    quiet: [
      { what: "DCQCN hosts (default)" },
      {
        what: "HPCC hosts, INT on every switch",
        changes: [hostChange({ cc: "hpcc" }), switchChange({ int: { enabled: true } })],
      },
    ],
  },
  "pfc-watchdog": {
    fires: [
      {
        what: "watchdog off",
        changes: [switchChange({ pfcWatchdog: { enabled: false } })],
        severity: "warning",
      },
    ],
    quiet: [
      { what: "watchdog on (default)", changes: [] },
      {
        what: "watchdog off, PFC off",
        changes: [switchChange({ pfc: { enabled: false }, pfcWatchdog: { enabled: false } })],
      },
    ],
  },
  "topology-too-large": {
    fires: [
      {
        what: "21 devices at dilation 1000 on 2 CPUs",
        topology: incast,
        machine: { dilation: 1000, cpus: 2 },
        severity: "warning",
      },
    ],
    quiet: [
      { what: "the same in the simulator", topology: incast },
      { what: "at dilation 20000", topology: incast, machine: { dilation: 20_000, cpus: 2 } },
      { what: "the default fabric on 2 CPUs", machine: { dilation: 1000, cpus: 2 } },
    ],
  },
};

t.test("the table covers every rule", async (t) => {
  t.same(Object.keys(CASES).sort(), RULES.map((r) => r.id).sort());
  t.equal(new Set(RULES.map((r) => r.id)).size, RULES.length, "unique ids");
});

for (const rule of RULES) {
  t.test(`${rule.id}: fires on what it is about, quiet on a near miss`, async (t) => {
    const c = CASES[rule.id]!;
    t.ok(rule.id.match(/^[a-z0-9]+(-[a-z0-9]+)*$/), "a kebab-case id");
    t.ok(rule.title.length > 10 && rule.explanation.length > 60 && rule.source.length > 10, "documented");
    for (const f of c.fires) {
      const found = lint(f).filter((x) => x.id === rule.id);
      t.ok(found.length > 0, `${f.what}: fires`);
      t.ok(
        found.some((x) => x.severity === f.severity),
        `${f.what}: ${f.severity}`,
      );
      for (const x of found) t.ok(x.message.length > 0 && x.fix.length > 0 && x.path.length > 0, x.message);
    }
    for (const q of c.quiet)
      t.same(
        lint(q).filter((x) => x.id === rule.id),
        [],
        `${q.what}: quiet`,
      );
  });
}

t.test("the default fabric and the balanced preset are clean", async (t) => {
  t.same(serious(lintTopology(defaultTopology())), []);
  t.same(serious(lint({ what: "balanced", changes: [switchChange({ profile: "balanced" })] })), []);
  t.same(serious(lintTopology(incast())), [], "incast-3leaf");
});

t.test("ghost latency: bad.yaml is flagged, fixed.yaml is clean", async (t) => {
  const bad = lintScenario(loadScenario("docs/experiments/ghost-latency/bad.yaml"));
  t.ok(hasErrors(bad), "bad.yaml has errors");
  const e = bad.find((f) => f.id === "ecn-before-pfc" && f.severity === "error");
  t.match(e?.message, /XOFF is 80KB, at or below ECN Kmin 150KB/);
  t.match(e?.path, /^switches\.\{.*leaf3.*\}\.ecn\.queues\.3$/, "one finding naming every switch");
  const fixed = lintScenario(loadScenario("docs/experiments/ghost-latency/fixed.yaml"));
  t.same(serious(fixed), [], "fixed.yaml: no error, no warning");
  t.notOk(hasErrors(fixed));
});

t.test("findings sort errors first and print as lint prints them", async (t) => {
  const f = lint({
    what: "",
    changes: [switchChange({ pfc: { xoff: 80_000 }, pfcWatchdog: { enabled: false } })],
  });
  t.same(
    f.map((x) => x.severity),
    ["error", "warning"],
  );
  t.match(
    formatFinding(f[0]!),
    /^error {3}ecn-before-pfc {2}switches\.\{spine1,spine2,leaf1,leaf2\}\.ecn\.queues\.3\n {8}XOFF.*\n {8}fix: /,
  );
});

t.test("dynamic XOFF: the smallest threshold with every lossless PG congested", async (t) => {
  const leaf = resolveLab(defaultTopology()).switches.get("leaf1")!;
  const x = smallestXoff(leaf);
  t.ok(x.dynamic);
  t.ok(x.bytes > 1_500_000 && x.bytes < leaf.buffer.size / 8, `leaf1's dynamic XOFF floor ${x.bytes} B`);
});

t.test("a set step is linted with what it brought in", async (t) => {
  const sc = loadScenario("docs/experiments/ghost-latency/fixed.yaml");
  const step = {
    atNs: 1000,
    action: { kind: "set" as const, change: switchChange({ pfc: { xoff: 50_000 } }) },
  };
  const found = lintScenario({ ...sc, timeline: [...sc.timeline, step] }).filter((f) =>
    f.path.startsWith(`timeline[${sc.timeline.length}]: `),
  );
  t.same(ids(found), ["ecn-before-pfc"]);
  t.same(
    lintScenario({ ...sc, overrides: NO_CHANGE, timeline: [] }).filter((f) => f.path.startsWith("timeline")),
    [],
  );
});
