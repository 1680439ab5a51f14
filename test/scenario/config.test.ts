// User input: topology and scenario files are validated before anything runs, and every error names the
// file, the line and column, the path inside the document and what is allowed.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { planAddresses, portKey } from "../../src/scenario/address-plan.js";
import { ConfigError } from "../../src/scenario/config-error.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { resolveTunables } from "../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { ipToString, macToString } from "../../src/wire/bytes.js";

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e.message.split("\n");
    throw e;
  }
  return [];
}

t.test("topology errors name file:line:col, the path and what is allowed", (t) => {
  const dir = t.testdir({
    "bad.yaml": [
      "nodes:",
      "  leaf1: { kind: switch, pfc: { xoff: fast } }",
      "  h1: { kind: hots }",
      "  h2: { kind: host }",
      "links:",
      '  - ["h1:eth1", "leaf1:eth1"]',
      '  - { endpoints: ["h2:eth1", "leaf9:eth1"], rate: 100Q, delay: 1 week }',
      '  - ["h2:eth1", "leaf1:e2"]',
      "",
    ].join("\n"),
  });
  const file = join(dir, "bad.yaml");
  const lines = problems(() => loadTopology(file));
  const expect = [
    [
      /bad\.yaml:2:\d+: nodes\.leaf1\.pfc\.xoff: .*"dynamic"|bad\.yaml:2:\d+: nodes\.leaf1\.pfc\.xoff/,
      "xoff",
    ],
    [/bad\.yaml:3:\d+: nodes\.h1(\.kind)?: .*switch, host/, "kind"],
    [/bad\.yaml:7:\d+: links\[1\]\.rate: "100Q" is not a rate \(for example 100G/, "rate"],
    [/bad\.yaml:7:\d+: links\[1\]\.delay: "1 week" is not a duration/, "delay"],
    [/bad\.yaml:8:\d+: links\[2\]\[1\]: an endpoint "node:ethN"/, "endpoint"],
  ] as const;
  for (const [re, what] of expect)
    t.ok(
      lines.some((l) => re.test(l)),
      `${what}: ${lines.join(" | ")}`,
    );
  t.end();
});

t.test("references are checked after the schema: unknown nodes, reused ports, hosts with two links", (t) => {
  const dir = t.testdir({
    "refs.yaml": [
      "nodes:",
      "  sw: { kind: switch }",
      "  a: { kind: host }",
      "  b: { kind: host }",
      "links:",
      '  - ["a:eth1", "sw:eth1"]',
      '  - ["b:eth1", "sw:eth1"]',
      '  - ["a:eth2", "ghost:eth1"]',
      "",
    ].join("\n"),
  });
  const lines = problems(() => loadTopology(join(dir, "refs.yaml")));
  t.ok(
    lines.some((l) => /refs\.yaml:7:\d+: links\[1\]\[1\]: sw:eth1 is already used by links\[0\]/.test(l)),
    lines.join(" | "),
  );
  t.ok(
    lines.some((l) => /refs\.yaml:8:\d+: links\[2\]\[1\]: node "ghost" is not defined under nodes/.test(l)),
    lines.join(" | "),
  );
  t.ok(
    lines.some((l) => /nodes\.a: host a must have exactly one link, on eth1/.test(l)),
    lines.join(" | "),
  );
  t.end();
});

t.test("scenario errors: unknown hosts, steps after the end, unknown workloads, bad YAML", (t) => {
  const dir = t.testdir({
    "sc.yaml": [
      "duration: 1ms",
      "timeline:",
      "  - at: 2ms",
      "    start: { type: incast, to: h99, from: 3, size: 1MB }",
      "  - at: 10us",
      "    stop: [nothing]",
      "  - at: 10us",
      "    link: { down: leaf1:eth9 }",
      "",
    ].join("\n"),
    "broken.yaml": "duration: 1ms\ntimeline: [\n",
  });
  const lines = problems(() => loadScenario(join(dir, "sc.yaml")));
  t.ok(
    lines.some((l) =>
      /sc\.yaml:3:\d+: timeline\[0\]\.at: step at 2ms is after the end of the run \(duration 1ms\)/.test(l),
    ),
    lines.join(" | "),
  );
  t.ok(
    lines.some((l) =>
      /timeline\[0\]\.start\.to: "h99" is not a host of topology default \(hosts: h1, h2/.test(l),
    ),
    lines.join(" | "),
  );
  t.ok(
    lines.some((l) => /timeline\[1\]\.stop: no workload named "nothing"/.test(l)),
    lines.join(" | "),
  );
  t.ok(
    lines.some((l) => /timeline\[2\]\.link: leaf1:eth9 is not connected/.test(l)),
    lines.join(" | "),
  );
  const yaml = problems(() => loadScenario(join(dir, "broken.yaml")));
  t.match(yaml[0]!, /broken\.yaml:\d+:\d+: \(top\): not valid YAML/);
  t.end();
});

t.test("the built-in topology: names, address plan, routes", (t) => {
  const topo = defaultTopology();
  t.same(
    topo.nodes.map((n) => n.name),
    ["spine1", "spine2", "leaf1", "leaf2", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"],
  );
  t.ok(
    topo.links.every((l) => l.rateBps === 100e9 && l.delayNs === 1000),
    "100 Gb/s, 1 µs",
  );
  const plan = planAddresses(topo);
  const h1 = plan.ports.get(portKey("h1", 1))!;
  t.equal(ipToString(h1.ip), "10.1.0.1");
  t.equal(ipToString(h1.peerIp), "10.1.0.0", "h1's gateway is leaf1's port on the same /31");
  t.equal(macToString(h1.mac), "02:00:00:05:01:00", "MAC from node position 5, port 1");
  const ips = [...plan.ports.values()].map((p) => p.ip);
  t.equal(new Set(ips).size, ips.length, "no address is used twice");
  const routes = computeRoutes(topo, plan);
  const toH5 = routes
    .get("leaf1")!
    .find((r) => ipToString(r.prefix) === "10.1.0.9" && r.prefixLength === 32)!;
  t.equal(toH5.nextHops.length, 2, "leaf1 reaches h5 over both spines (ECMP)");
  const spine = routes.get("spine1")!.find((r) => ipToString(r.prefix) === "10.1.0.9")!;
  t.same(
    spine.nextHops.map((h) => h.port),
    [2],
    "spine1 goes down to leaf2",
  );
  const down = computeRoutes(
    topo,
    plan,
    new Set([topo.links.find((l) => l.a.node === "leaf1" && l.a.port === 1)!.id]),
  );
  t.same(
    down
      .get("leaf1")!
      .find((r) => ipToString(r.prefix) === "10.1.0.9")!
      .nextHops.map((h) => h.port),
    [2],
    "with leaf1:eth1 down only spine2 remains",
  );
  t.end();
});

t.test("settings layer: defaults, profile, topology defaults, node, overrides", (t) => {
  const dir = t.testdir({});
  const file = join(dir, "layers.yaml");
  writeFileSync(
    file,
    [
      "defaults: { switch: { profile: balanced, buffer: { size: 16MiB } } }",
      "profiles: { tight: { ecn: { queues: { '3': { kmin: 10KB, kmax: 100KB, pmax: 50% } } } } }",
      "nodes:",
      "  s1: { kind: switch }",
      "  s2: { kind: switch, profile: tight, pfc: { xoff: dynamic, alpha: 1/4 } }",
      "  a: { kind: host }",
      "links: [['a:eth1', 's1:eth1'], ['s1:eth2', 's2:eth1']]",
      "",
    ].join("\n"),
  );
  const topo = loadTopology(file);
  const s1 = resolveTunables(topo, "s1");
  t.same(s1.ecn.queues[3], { kmin: 150_000, kmax: 1_500_000, pmax: 1 }, "balanced ECN: Pmax 100 %");
  t.equal(s1.pfc.xoff, 3_000_000, "balanced XOFF");
  t.equal(s1.buffer.size, 16 * 1024 * 1024, "topology default on top of the profile");
  const s2 = resolveTunables(topo, "s2", [{ buffer: { reserve: 8192 } }]);
  t.same(s2.ecn.queues[3], { kmin: 10_000, kmax: 100_000, pmax: 0.5 }, "the node's own profile");
  t.same([s2.pfc.xoff, s2.pfc.alpha], ["dynamic", 0.25], "node settings over the profile");
  t.equal(s2.buffer.reserve, 8192, "overrides last");
  t.end();
});

t.test("every example topology and experiment in docs/ loads", (t) => {
  const yamls = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? yamls(join(dir, e.name)) : e.name.endsWith(".yaml") ? [join(dir, e.name)] : [],
    );
  // Under docs/experiments, a file with `nodes` is an experiment's fabric (a topology), the rest scenarios.
  const isTopology = (file: string) => /^nodes:/m.test(readFileSync(file, "utf8"));
  // docs/examples holds topologies and a few scenarios (a file with `timeline` at the top).
  const isScenario = (file: string) => /^timeline:/m.test(readFileSync(file, "utf8"));
  const examples = yamls("docs/examples");
  const topologies = [
    ...examples.filter((f) => !isScenario(f)),
    ...yamls("docs/experiments").filter(isTopology),
  ];
  const scenarios = [
    ...examples.filter(isScenario),
    ...yamls("docs/experiments").filter((f) => !isTopology(f)),
  ];
  t.ok(
    topologies.length >= 3 && scenarios.length >= 10,
    `${topologies.length} topologies, ${scenarios.length} scenarios`,
  );
  for (const file of topologies) t.doesNotThrow(() => loadTopology(file), file);
  for (const file of scenarios) t.doesNotThrow(() => loadScenario(file), file);
  const fromFile = loadTopology("docs/examples/default.yaml");
  const builtIn = defaultTopology();
  t.same(
    fromFile.links.map((l) => [l.a, l.b, l.rateBps, l.delayNs]),
    builtIn.links.map((l) => [l.a, l.b, l.rateBps, l.delayNs]),
    "docs/examples/default.yaml is the built-in fabric",
  );
  t.end();
});
