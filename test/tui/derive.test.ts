// Derivations from snapshots: utilisation from wire time, pause fractions, counter deltas, tiers, goodput.
import t from "tap";
import type { LabEvent, LabSnapshot, TopologyView } from "../../src/lab/lab.js";
import type { SwitchStats } from "../../src/switch/stats-types.js";
import {
  appendBounded,
  counterDelta,
  fabricPortMetrics,
  fabricTotals,
  linkRows,
  portMetrics,
  qpRows,
} from "../../src/tui/derive.js";
import { nodeStates, nodeTiers, tierName } from "../../src/tui/derive-topology.js";
import { eventGroup, matchesFilter } from "../../src/tui/event-filter.js";
import { switchTables } from "../helpers/stats-tables.js";
import { incastFixture } from "./fixtures/fixtures.js";

function switchStats(
  now: number,
  port: Record<string, number>,
  queue: Record<string, number>,
  depth = 0,
): SwitchStats {
  return {
    kind: "switch",
    name: "leaf1",
    now,
    counters: switchTables().node,
    ports: [
      {
        port: 3,
        name: "eth3",
        up: true,
        counters: { ...switchTables().port, ...port },
        queues: [
          { queue: 3, depthBytes: depth, paused: false, counters: { ...switchTables().queue, ...queue } },
        ],
      },
    ],
  };
}

t.test("port metrics: utilisation and pause time over emulated time", async (t) => {
  const before = switchStats(
    1_000_000,
    { tx_busy_ns: 100_000, rx_prio3_pause_duration: 0, tx_prio3_pause: 1 },
    { ecn_marked: 5 },
  );
  const after = switchStats(
    1_100_000,
    { tx_busy_ns: 190_000, rx_prio3_pause_duration: 25_000, tx_prio3_pause: 4, pg3_xoff: 1 },
    { ecn_marked: 12, dropped: 2, watermark_bytes: 300_000 },
    150_000,
  );
  const m = portMetrics(after, before).get("leaf1:eth3")!;
  t.equal(m.util, 0.9, "90 µs of wire time in 100 µs");
  t.equal(m.pausedFrac, 0.25, "paused a quarter of the interval");
  t.equal(m.xoffNow, true, "PG 3 in XOFF: holding the peer");
  t.equal(m.ecnDelta, 7);
  t.equal(m.ecnMarked, 12);
  t.equal(m.dropDelta, 2);
  t.equal(m.txPauseDelta, 3);
  t.equal(m.queueBytes, 150_000);
  t.equal(m.watermarkBytes, 300_000);
  t.equal(portMetrics(after, undefined).get("leaf1:eth3")!.util, null, "no rate without an earlier sample");
});

t.test("a restarted device's counters start again: no negative deltas", async (t) => {
  t.equal(counterDelta(5, 10), 0);
  t.equal(counterDelta(15, 10), 5);
  t.equal(counterDelta(3, undefined), 0);
  const before = switchStats(1_000, { tx_busy_ns: 900 }, { ecn_marked: 50 });
  const after = switchStats(2_000, { tx_busy_ns: 10 }, { ecn_marked: 1 });
  const m = portMetrics(after, before).get("leaf1:eth3")!;
  t.equal(m.util, 0);
  t.equal(m.ecnDelta, 0);
});

const CLOS: TopologyView = {
  name: "three-tier",
  nodes: [
    { name: "core", kind: "switch", ports: [1, 2] },
    { name: "s1", kind: "switch", ports: [1, 2] },
    { name: "s2", kind: "switch", ports: [1, 2] },
    { name: "l1", kind: "switch", ports: [1, 2] },
    { name: "l2", kind: "switch", ports: [1, 2] },
    { name: "hb", kind: "host", ports: [1] },
    { name: "ha", kind: "host", ports: [1] },
    { name: "lonely", kind: "switch", ports: [] },
  ],
  links: [
    ["core:eth1", "s1:eth2"],
    ["core:eth2", "s2:eth2"],
    ["s1:eth1", "l1:eth2"],
    ["s2:eth1", "l2:eth2"],
    ["ha:eth1", "l1:eth1"],
    ["hb:eth1", "l2:eth1"],
  ].map(([a, b], id) => ({ id, a: a!, b: b!, up: true, rateBps: 100e9, delayNs: 1000 })),
};

t.test("tiers by distance from the hosts", async (t) => {
  const fx = await incastFixture();
  t.same(nodeTiers(fx.topology), [
    ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"],
    ["leaf1", "leaf2"],
    ["spine1", "spine2"],
  ]);
  t.same(
    nodeTiers(CLOS),
    [["ha", "hb"], ["l1", "l2"], ["s1", "s2"], ["core"], ["lonely"]],
    "hosts grouped by their switch, a core above the spines, unreachable switches on top",
  );
  t.equal(tierName(0, 3), "hosts");
  t.equal(tierName(1, 3), "leaves");
  t.equal(tierName(2, 3), "spines");
  t.equal(tierName(1, 2), "switches");
  t.equal(tierName(3, 5), "tier 3");
});

t.test("an incast: links, pauses, node states, QPs and totals", async (t) => {
  const fx = await incastFixture();
  const [first, second] = fx.during;
  const ports = fabricPortMetrics(second, first);
  const links = linkRows(second.links, ports);
  const spineToLeaf2 = links.find((l) => l.a === "leaf2:eth1" && l.b === "spine1:eth2")!;
  t.ok(spineToLeaf2.ba!.pausedFrac > 0.9, "leaf2 holds spine1's egress towards it paused");
  t.ok(spineToLeaf2.ab!.xoffNow || spineToLeaf2.ab!.xoffFrac > 0, "and leaf2's side is the one sending XOFF");
  const toH8 = links.find((l) => l.a === "h8:eth1")!;
  t.ok(toH8.ba!.util! > 0.9, `leaf2 -> h8 runs at line rate (${toH8.ba!.util})`);
  t.ok(toH8.ba!.queueBytes > 0, "with a queue");
  const states = new Map(nodeStates(fx.topology, second.devices, ports).map((n) => [n.name, n]));
  t.equal(states.get("leaf2")!.pausing, true);
  t.equal(states.get("spine1")!.paused, true);
  t.equal(states.get("h1")!.paused, true, "the pause reached a sender");
  t.equal(states.get("h7")!.paused, false, "not the bystander");
  const qps = qpRows(second, first, fx.peerName);
  const senders = qps.filter((q) => q.role === "tx");
  t.equal(senders.length, 6);
  t.same(
    senders.map((q) => `${q.host}->${q.peer}`),
    ["h1->h8", "h2->h8", "h3->h8", "h4->h8", "h5->h8", "h6->h8"],
  );
  const receivers = qps.filter((q) => q.role === "rx" && q.host === "h8");
  t.equal(receivers.length, 6, "h8 has a QP per sender");
  const delivered = receivers.reduce((a, q) => a + (q.goodputBps ?? 0), 0);
  t.ok(delivered > 80e9 && delivered <= 100e9, `h8 receives near line rate (${delivered})`);
  const totals = fabricTotals(second);
  t.ok(totals.xoffSent > 0, "XOFF frames were sent");
  t.equal(totals.droppedLossless, 0, "and nothing lossless was dropped");
});

t.test("bounded lists and event groups", async (t) => {
  t.same(appendBounded([1, 2, 3], [4, 5], 4), [2, 3, 4, 5]);
  t.same(appendBounded([1], [2, 3, 4, 5, 6], 3), [4, 5, 6]);
  t.same(appendBounded([], [1], 3), [1]);
  const e = (kind: LabEvent["kind"], detail?: string): LabEvent => ({
    t: 1,
    device: "x",
    kind,
    ...(detail ? { detail } : {}),
  });
  t.equal(eventGroup(e("pfc-xoff")), "pfc");
  t.equal(eventGroup(e("paused-on")), "pfc");
  t.equal(eventGroup(e("rate-cut")), "ecn");
  t.equal(eventGroup(e("drop")), "drops");
  t.equal(eventGroup(e("link-down")), "failures");
  t.equal(eventGroup(e("info", "process killed")), "failures");
  t.equal(eventGroup(e("flow-done")), "flows");
  t.ok(matchesFilter(e("drop"), "all"));
  t.notOk(matchesFilter(e("drop"), "pfc"));
});

t.test("a snapshot without earlier one gives no rates", async (t) => {
  const fx = await incastFixture();
  const snap: LabSnapshot = fx.during[1];
  const rows = qpRows(snap, null, fx.peerName);
  t.ok(rows.every((q) => q.goodputBps === null));
  const ports = fabricPortMetrics(snap, null);
  t.ok([...ports.values()].every((m) => m.util === null));
});

t.test("the PFC watchdog's state shows on the port and the node", async (t) => {
  const calm = portMetrics(switchStats(1_000, {}, {}), undefined).get("leaf1:eth3")!;
  t.equal(calm.watchdog, 0, "monitoring");
  const latched = portMetrics(switchStats(1_000, { pfcwd_prio3_state: 2 }, {}), undefined);
  t.equal(latched.get("leaf1:eth3")!.watchdog, 2, "latched");
  const view: TopologyView = {
    name: "one",
    nodes: [{ name: "leaf1", kind: "switch", ports: [3] }],
    links: [],
  };
  const [node] = nodeStates(view, [], latched);
  t.equal(node!.stormed, true, "the node is flagged");
  t.equal(nodeStates(view, [], new Map([["leaf1:eth3", calm]]))[0]!.stormed, false);
});
