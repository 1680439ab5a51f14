// The parallel simulator's partition rule (src/run/sim-partition.ts) and what a parallel run refuses
// (src/run/sim-parallel.ts, docs/parallel-sim.md). The worker is the bundle's: `node scripts/setup` first.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { Nic } from "../../src/nic/nic.js";
import {
  mergeEvents,
  mergeRows,
  parallelRefusal,
  runScenarioSimParallel,
} from "../../src/run/sim-parallel.js";
import { HOST_PORT_WEIGHT, partitionTopology } from "../../src/run/sim-partition.js";
import { buildSimRun, PARTITION_REFUSALS } from "../../src/run/sim-run-setup.js";
import { loadScenario, type Scenario } from "../../src/scenario/scenario.js";
import type { Topology } from "../../src/scenario/topology.js";
import { Switch } from "../../src/switch/switch.js";

function scenario(dir: string, name: string, body: string): Scenario {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\ntopology: default\nseed: 1\n${body}`);
  return loadScenario(file);
}

const cut = (topo: Topology, of: ReadonlyMap<string, number>) =>
  topo.links.filter((l) => of.get(l.a.node) !== of.get(l.b.node));

t.test("the rule: every device placed, weights balanced, the lookahead is the cut links' delay", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "sim-partition-"));
  try {
    const topo = scenario(dir, "p", "duration: 10us\ntimeline:\n  - at: 0us\n    stop: all\n").topology;
    const p = partitionTopology(topo, 2);
    t.equal(p.parts, 2);
    t.same([...p.of.keys()].sort(), topo.nodes.map((n) => n.name).sort(), "every device has a partition");
    const ports = topo.nodes.reduce((s, n) => s + Math.max(1, n.ports.length), 0);
    const hostPorts = topo.nodes
      .filter((n) => n.kind === "host")
      .reduce((s, n) => s + Math.max(1, n.ports.length), 0);
    const total = ports + (HOST_PORT_WEIGHT - 1) * hostPorts;
    t.equal(p.weights[0]! + p.weights[1]!, total, "the weights are the ports, a host's counted 2.5 times");
    t.ok(Math.abs(p.weights[0]! - p.weights[1]!) <= total / 4, `balanced: ${p.weights.join(" / ")}`);
    const links = cut(topo, p.of);
    t.equal(p.cutLinks, links.length);
    t.ok(links.length > 0);
    t.equal(p.lookaheadNs, Math.min(...links.map((l) => l.delayNs)));
    // A lossy link draws its losses from one stream for both directions: never cut.
    const lossy = links[0]!;
    const withLoss: Topology = {
      ...topo,
      links: topo.links.map((l) => (l.id === lossy.id ? { ...l, lossRate: 0.01 } : l)),
    };
    const q = partitionTopology(withLoss, 2);
    t.equal(q.of.get(lossy.a.node), q.of.get(lossy.b.node), "the lossy link is not cut");
    // More workers than devices: no empty partition.
    const r = partitionTopology(topo, 1000);
    t.ok(r.parts > 2 && r.parts <= topo.nodes.length, `${r.parts} partitions`);
    t.equal(new Set(r.of.values()).size, r.parts, "none of them empty");
    t.equal(partitionTopology(topo, 1).cutLinks, 0, "one worker cuts nothing");
    t.throws(() => partitionTopology(topo, 0), /whole number/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  t.end();
});

t.test("refused with --workers > 1, naming the feature", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "sim-partition-"));
  try {
    const ring = scenario(
      dir,
      "ring",
      "duration: 200us\ntimeline:\n  - at: 1us\n    start: { type: all-reduce, name: ar, hosts: all, size: 64KB }\n",
    );
    await t.rejects(runScenarioSimParallel(ring, { workers: 2 }), { message: PARTITION_REFUSALS.dependent });
    const nav = scenario(
      dir,
      "nav",
      "duration: 200us\ncontroller: { pathNavigation: network }\ntimeline:\n  - at: 1us\n    stop: all\n",
    );
    t.match(parallelRefusal(nav), /path-navigation/);
    t.match(parallelRefusal(ring, { capture: true }), /--capture/);
    t.equal(parallelRefusal(ring), PARTITION_REFUSALS.dependent, "found before any worker starts");
    const again = scenario(
      dir,
      "again",
      "duration: 200us\ntimeline:\n  - at: 1us\n    start: { type: flow, from: h1, to: h2, size: 8KB, onError: reconnect }\n",
    );
    t.equal(parallelRefusal(again), PARTITION_REFUSALS.reconnect);
    const stop = "timeline:\n  - at: 1us\n    stop: all\n";
    const ai = (body: string) => scenario(dir, "ai", `duration: 200us\n${body}`);
    t.equal(
      parallelRefusal(ai(`overrides:\n  switches: { ecn: { ai: { mode: central } } }\n${stop}`)),
      PARTITION_REFUSALS.aiEcn,
      "AI ECN's central mode in the overrides",
    );
    t.equal(
      parallelRefusal(
        ai("timeline:\n  - at: 5us\n    set:\n      switches: { ecn: { ai: { mode: central } } }\n"),
      ),
      PARTITION_REFUSALS.aiEcn,
      "or set on the way",
    );
    t.equal(
      parallelRefusal(ai(`overrides:\n  switches: { ecn: { ai: { mode: local } } }\n${stop}`)),
      null,
      "local mode decides on each switch: a split carries it",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t.test(
  "merging: events by (time, emit key), rows by (time, device); one key from two workers refused",
  (t) => {
    const part = (events: [number, number, string][], series: string[] = []) =>
      ({
        stats: [],
        records: [],
        eventTimes: Float64Array.from(events.map((e) => e[0])),
        eventKeys: Float64Array.from(events.map((e) => e[1])),
        eventLines: events.map((e) => e[2]),
        series: [series],
        events: 0,
        windows: 0,
        framesSent: 0,
        buildMs: 0,
        simulateMs: 0,
        exchangeMs: 0,
      }) as const;
    const a = part([
      [0, -5, "a-start"],
      [10, 3, "a-action"],
      [10, 2 ** 37 + 7, "a-deliver"],
      [10, 2 ** 37 + 7, "a-deliver-2"],
    ]);
    const b = part([
      [0, -6, "b-start"],
      [10, 4, "b-action"],
      [10, 2 ** 37 + 1, "b-deliver"],
      [12, 1, "b-later"],
    ]);
    t.same(mergeEvents([a, b]), [
      "b-start",
      "a-start",
      "a-action",
      "b-action",
      "b-deliver",
      "a-deliver",
      "a-deliver-2",
      "b-later",
    ]);
    t.throws(() => mergeEvents([a, part([[10, 3, "clash"]])]), /both emitted events at 10 ns/);
    const order = new Map([
      ["sw1", 0],
      ["sw2", 1],
    ]);
    t.same(
      mergeRows(
        [
          ["0,sw2,eth1,0,5", "10,sw2,eth1,0,6"],
          ["0,sw1,eth1,0,1", "0,sw1,eth2,0,2", "20,sw1,eth1,0,0"],
        ],
        order,
      ),
      ["0,sw1,eth1,0,1", "0,sw1,eth2,0,2", "0,sw2,eth1,0,5", "10,sw2,eth1,0,6", "20,sw1,eth1,0,0"],
    );
    t.end();
  },
);

t.test("a host weighs 2.5 switch ports: a one-switch star splits its hosts around the switch", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "sim-partition-"));
  try {
    const hosts = Array.from({ length: 17 }, (_, i) => `h${i + 1}`);
    const file = join(dir, "star.yaml");
    writeFileSync(
      file,
      [
        "name: star",
        "duration: 10us",
        "topology:",
        "  name: star",
        "  nodes:",
        "    sw: { kind: switch }",
        ...hosts.map((h) => `    ${h}: { kind: host }`),
        "  links:",
        ...hosts.map((h, i) => `    - [${h}:eth1, sw:eth${i + 1}]`),
        "timeline:",
        "  - at: 0us",
        "    stop: all",
        "",
      ].join("\n"),
    );
    const topo = loadScenario(file).topology;
    const p = partitionTopology(topo, 2);
    const sw = p.of.get("sw")!;
    const withSwitch = hosts.filter((h) => p.of.get(h) === sw).length;
    // Weight 17 (switch) + 2.5 per host, 59.5 in all: the switch takes about 5 hosts, the other side 12.
    // With a host counted as one port the switch's side held 1 host and the other 16 (every host link cut).
    t.ok(withSwitch >= 4 && withSwitch <= 8, `${withSwitch} hosts beside the switch`);
    t.equal(p.cutLinks, hosts.length - withSwitch, "a link is cut for each host away from the switch");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  t.end();
});

t.test("a partition builds only its own devices; the others stand in, taking commands only", (t) => {
  const sc = loadScenario("docs/experiments/incast-dcqcn.yaml");
  const of = partitionTopology(sc.topology, 2).of;
  const owns = (d: string): boolean => of.get(d) === 0;
  const { fabric } = buildSimRun(sc, {}, false, { owns, log: () => {} });
  const all = [...fabric.switches, ...fabric.hosts];
  const mine = all.filter(([name]) => owns(name));
  t.ok(
    mine.length > 0 && mine.length < all.length,
    `${mine.length} of ${all.length} devices are partition 0's`,
  );
  for (const [name, device] of all) {
    const real = device instanceof Switch || device instanceof Nic;
    t.equal(real, owns(name), `${name}: ${owns(name) ? "built" : "a stand-in"}`);
  }
  const [ghost, device] = all.find(([name]) => !owns(name))!;
  t.same(device.command({ type: "clear-counters" }, 0), { ok: true }, "a stand-in takes a command");
  t.throws(() => device.stats(0), /simulated by another worker/, `${ghost}: no stats of its own`);
  t.throws(
    () => device.receive(1, new Uint8Array(64), 0),
    /simulated by another worker/,
    `${ghost}: a frame reaching it is a bug, said`,
  );
  t.end();
});
