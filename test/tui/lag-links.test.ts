// The fabric view shows a link aggregation group as one aggregated link with its members under it
// (tui/lag-links.ts), from a simulated lab: the 4-member group of docs/examples/lag.yaml carrying an
// incast while one member is down.
import t from "tap";
import { SimLab } from "../../src/lab/sim/sim-lab.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { fabricLines } from "../../src/tui/components/FabricView.js";
import { fabricPortMetrics, linkRows } from "../../src/tui/derive.js";
import { flowPathLines } from "../../src/tui/flow-path-lines.js";
import { withLagRows } from "../../src/tui/lag-links.js";
import { DashboardStore } from "../../src/tui/store.js";
import { FakeLab } from "./fixtures/fake-lab.js";

t.test("a group is one row with its members combined, then its members", async (t) => {
  const topo = loadTopology("docs/examples/lag.yaml");
  const lab = new SimLab({ topology: topo, seed: 1 });
  await lab.apply({ kind: "link", node: "leaf1", port: 3, up: false });
  await lab.apply({ kind: "incast", to: "h5", from: ["h1", "h2", "h3", "h4"], bytes: 2_000_000, qps: 4 });
  lab.step(40_000);
  const first = lab.snapshotNow();
  lab.step(10_000);
  const second = lab.snapshotNow();
  await lab.close();
  t.equal(lab.topology.lags?.length, 1, "the topology view lists the group");

  const rows = withLagRows(linkRows(second.links, fabricPortMetrics(second, first)), lab.topology.lags);
  t.equal(rows.length, 12 + 1, "the 12 links and one group row");
  const g = rows[0]!;
  t.equal(g.label, "leaf1:po1 ↔ leaf2:po1 3/4", "named by the group, with its members up");
  t.equal(g.rateBps, 400e9);
  const members = rows.slice(1, 5);
  t.same(
    members.map((m) => m.label),
    ["  ├ eth1 ↔ eth1", "  ├ eth2 ↔ eth2", "  ├ eth3 ↔ eth3", "  └ eth4 ↔ eth4"],
  );
  const utils = members.map((m) => m.ab?.util ?? 0);
  t.ok(Math.max(...utils) > 0, "the members carried the incast");
  t.equal(members[2]!.up, false, "eth3 is down");
  t.ok(
    Math.abs(g.ab!.util! - utils.reduce((s, u) => s + u, 0) / 4) < 1e-9,
    "the group's utilisation is its members' weighted by rate",
  );
  t.equal(
    g.ab!.queueBytes,
    members.reduce((s, m) => s + (m.ab?.queueBytes ?? 0), 0),
    "its queue is the members' queues together",
  );

  const fake = new FakeLab(lab.topology, "sim", "lagtui");
  const store = new DashboardStore(
    { lab: fake.name, runtime: "sim", topology: lab.topology },
    { notifyMs: 0 },
  );
  store.connect(fake);
  for (const s of [first, second]) fake.pushSnapshot({ ...s, status: "running" });
  const text = fabricLines(store.getState(), 0, 120, 50, { colour: false })
    .lines.map((l) => l.map((s) => s.text).join(""))
    .join("\n");
  t.match(text, /leaf1:po1 ↔ leaf2:po1 3\/4 +up/);
  t.match(text, / {2}└ eth4 ↔ eth4 +up/);
  t.notMatch(text, /leaf1:eth1 ↔ leaf2:eth1/, "no member listed as a link of its own");
  const paths = flowPathLines(store.getState(), 0, 160, 60, { colour: false })
    .lines.map((l) => l.map((s) => s.text).join(""))
    .join("\n");
  t.match(
    paths,
    /h1 +\d+ .*leaf1:po1\/eth[124] › leaf2:eth5 › h5/,
    "the path view names the group and the member",
  );
  t.notMatch(paths, /po1\/eth3/, "never the member that is down");
});
