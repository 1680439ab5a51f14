// The flows view's paths mode from real simulated fabrics: with DLB spraying on every switch, h1's elephant
// to h8 splits over both spines (shares as leaf1 counted them); with static ECMP each of the incast's
// flows keeps one route; `v` switches between rates and paths.
import "./fixtures/force-colour.js";
import t from "tap";
import type { LabSnapshot } from "../../src/lab/lab.js";
import { SimLab } from "../../src/lab/sim/sim-lab.js";
import { hostAddress, planAddresses } from "../../src/scenario/address-plan.js";
import { switchChange } from "../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { App } from "../../src/tui/components/App.js";
import { qpFlows } from "../../src/tui/flow-paths.js";
import { DashboardStore } from "../../src/tui/store.js";
import { INITIAL_UI } from "../../src/tui/ui-state.js";
import { dashboard, plainLines } from "./fixtures/dashboard.js";
import { incastFixture } from "./fixtures/fixtures.js";
import { renderAt } from "./fixtures/render.js";

/** h1 writes 4 MB to h8 with every switch spraying and classifying elephants (100 KB at 1 Gb/s). */
async function sprayed(): Promise<[LabSnapshot, LabSnapshot]> {
  const lab = new SimLab({ topology: defaultTopology(), seed: 3 });
  lab.fabric.configureSwitches(
    switchChange({ lb: { mode: "dlb-spray" }, elephant: { enabled: true, size: 100_000, rate: 1e9 } }),
  );
  await lab.apply({ kind: "incast", to: "h8", from: 1, bytes: 4_000_000 });
  lab.step(30_000);
  const a = lab.snapshotNow();
  lab.step(10_000);
  const b = lab.snapshotNow();
  await lab.close();
  return [
    { ...a, status: "running" },
    { ...b, status: "running" },
  ];
}

const text = (frame: string) => plainLines(frame).join("\n");

t.test("a sprayed flow: two routes, split as the leaf counted it; its class", async (t) => {
  const [a, b] = await sprayed();
  const topo = defaultTopology();
  const view = (await incastFixture()).topology;
  const flows = qpFlows(b, a, view);
  const h1 = [...flows].find(([k]) => k.startsWith("h1/"))![1];
  t.equal(h1.routes.length, 2, "both spines");
  t.equal(h1.basis, "interval");
  t.equal(h1.klass, "elephant", "leaf1 identified it as an elephant");
  const [r1, r2] = h1.routes;
  t.same(
    h1.routes.map((r) => r.hops.map((h) => `${h.node}:eth${h.port}`).join(" ")).sort(),
    ["leaf1:eth1 spine1:eth2 leaf2:eth6", "leaf1:eth2 spine2:eth2 leaf2:eth6"],
    "up each uplink, down the same leaf2 port to h8",
  );
  t.same([r1!.end, r2!.end], ["h8", "h8"]);
  t.ok(Math.abs(r1!.share + r2!.share - 1) < 1e-9, "shares add up to the whole flow");
  // The shares are leaf1's own per-port bytes over the interval.
  const plan = planAddresses(topo);
  const src = hostAddress(plan, "h1").ip;
  const entry = (s: LabSnapshot) => {
    const st = s.stats.leaf1!;
    if (st.kind !== "switch") throw new Error("leaf1 is a switch");
    return st.detail!.flowPaths!.find((e) => e.srcIp === src && e.dstIp === hostAddress(plan, "h8").ip)!;
  };
  const bytesOn = (s: LabSnapshot, port: number) => entry(s).ports.find((p) => p.port === port)!.bytes;
  const d1 = bytesOn(b, 1) - bytesOn(a, 1);
  const d2 = bytesOn(b, 2) - bytesOn(a, 2);
  const viaSpine1 = h1.routes.find((r) => r.hops[0]!.port === 1)!;
  t.ok(d1 > 0 && d2 > 0, `leaf1 sprayed the interval over eth1 (${d1} B) and eth2 (${d2} B)`);
  t.equal(viaSpine1.share, d1 / (d1 + d2), "share via spine1 = leaf1:eth1's bytes / the flow's");
  const h8 = [...flows].find(([k]) => k.startsWith("h8/"))![1];
  t.equal(h8.klass, "mice", "h8's ACKs are a mouse");
  t.ok(
    h8.routes.every((r) => r.end === "h1" && r.hops[0]!.node === "leaf2"),
    "h8's QP sends its ACKs back to h1",
  );
});

for (const [columns, rows] of [
  [80, 24],
  [120, 40],
] as const) {
  t.test(`paths mode at ${columns}x${rows}: the split on screen`, async (t) => {
    const d = await dashboard({
      columns,
      rows,
      snapshots: await sprayed(),
      events: false,
      initialUi: { ...INITIAL_UI, tab: "flows", flowsMode: "paths" },
    });
    const lines = plainLines(d.ui.screen());
    t.equal(lines.length, rows);
    t.ok(Math.max(...lines.map((l) => [...l].length)) <= columns, "nothing wider than the screen");
    const screen = lines.join("\n");
    t.match(screen, /2 QPs, 2 split/);
    t.match(screen, /HOST\s+QP\s+PEER\s+CLASS\s+.*SHARE PATH/);
    t.match(
      screen,
      /h1\s+256\s+→h8\s+elephant\s+.*?(\d+)%\s+leaf1:eth[12] › spine[12]:eth2 › leaf2:eth6 › h8/,
    );
    t.match(screen, /^\s+(\d+)%\s+leaf1:eth[12] › spine[12]:eth2 › leaf2:eth6 › h8/m, "the second route");
    t.match(screen, /h8\s+256\s+←h1\s+mice\s+.*%\s+leaf2:eth[12] › spine[12]:eth1 › leaf1:eth3 › h1/);
    const shares = [...screen.matchAll(/(\d+)%\s+leaf1:eth/g)].map((m) => Number(m[1]));
    t.equal(shares.length, 2);
    t.ok(Math.abs(shares[0]! + shares[1]! - 100) <= 1, `shares on screen add up (${shares.join(" + ")})`);
    d.ui.unmount();
  });
}

t.test("static ECMP: one route per flow; v switches rates, paths and status", async (t) => {
  const d = await dashboard({ columns: 100, rows: 30, initialUi: { ...INITIAL_UI, tab: "flows" } });
  t.match(text(d.ui.screen()), /RATE\s+TARGET\s+ALPHA/, "rates first");
  await d.ui.type("v");
  const screen = text(d.ui.screen());
  t.match(screen, /12 QPs, 0 split/);
  for (const h of ["h1", "h2", "h3"])
    t.match(
      screen,
      new RegExp(`${h}\\s+256\\s+→h8\\s+-\\s+100%\\s+leaf1:eth[12] › spine[12]:eth2 › leaf2:eth6 › h8`),
    );
  t.match(screen, /h5\s+256\s+→h8\s+-\s+100%\s+leaf2:eth6 › h8/, "a sender on h8's leaf: one hop");
  t.notMatch(screen, /RATE\s+TARGET/);
  await d.ui.type("v");
  t.match(text(d.ui.screen()), /FLOW\s+HOST\s+QP\s+OP\s+SIZE/, "v again: status");
  await d.ui.type("v");
  t.match(text(d.ui.screen()), /RATE\s+TARGET\s+ALPHA/, "and again: rates");
  d.ui.unmount();
});

t.test("a routing loop (docs/examples/ring4-loop.yaml): the route ends ↺ loop", async (t) => {
  const lab = new SimLab({ topology: loadTopology("docs/examples/ring4-loop.yaml"), seed: 1 });
  await lab.apply({ kind: "incast", to: "h3", from: ["h1"], bytes: 1_000_000 });
  lab.step(20_000);
  const a = lab.snapshotNow();
  lab.step(10_000);
  const b = lab.snapshotNow();
  await lab.close();
  const flows = qpFlows(b, a, lab.topology);
  const h1 = [...flows].find(([k]) => k.startsWith("h1/"))![1];
  t.equal(h1.routes.length, 1);
  const r = h1.routes[0]!;
  t.equal(r.end, "loop", "it came back to where it entered");
  t.same(
    r.hops.map((h) => h.node),
    ["s1", "s2", "s3", "s4"],
    "round the ring once",
  );
  const store = new DashboardStore(
    { lab: lab.name, runtime: "sim", topology: lab.topology },
    { notifyMs: 0 },
  );
  store.ingestSnapshot(a);
  store.ingestSnapshot(b);
  const ui = await renderAt(
    <App
      store={store}
      lab={lab}
      onQuit={() => {}}
      initialUi={{ ...INITIAL_UI, tab: "flows", flowsMode: "paths" }}
    />,
    { columns: 100, rows: 20 },
  );
  t.match(
    text(ui.screen()),
    /h1\s+\d+\s+→h3\s+-\s+100%\s+s1:eth\d › s2:eth\d › s3:eth\d › s4:eth\d › ↺ loop/,
  );
  ui.unmount();
});
