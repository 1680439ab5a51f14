// The VTEP panel and overlay flow paths from a simulated VXLAN fabric (docs/examples/vxlan.yaml): h1-h4
// write to h5-h8 across the overlay, 400 Gb/s into leaf1's two uplinks, so the underlay marks CE on the
// outer headers and leaf2 copies it into the inner ones. The node view of leaf2 shows its VTEP, VNI, ECN
// overlay and the tunnel from leaf1 with the counts the switch keeps; the flows view's paths mode shows
// the overlay flows' routes through the underlay.
import "./fixtures/force-colour.js";
import t from "tap";
import type { LabSnapshot } from "../../src/lab/lab.js";
import { SimLab } from "../../src/lab/sim/sim-lab.js";
import { switchChange } from "../../src/scenario/settings-layers.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import type { VtepState } from "../../src/switch/stats-types.js";
import { App } from "../../src/tui/components/App.js";
import { formatCount } from "../../src/tui/format.js";
import { DashboardStore } from "../../src/tui/store.js";
import { INITIAL_UI, type UiState } from "../../src/tui/ui-state.js";
import { plainLines } from "./fixtures/dashboard.js";
import { renderAt } from "./fixtures/render.js";

async function overlayLab(): Promise<{ lab: SimLab; snaps: [LabSnapshot, LabSnapshot] }> {
  const lab = new SimLab({ topology: loadTopology("docs/examples/vxlan.yaml"), seed: 1 });
  lab.fabric.configureSwitches(switchChange({ buffer: { size: 4_000_000 }, overlay: { ecn: true } }));
  for (const [from, to] of [
    ["h1", "h5"],
    ["h2", "h6"],
    ["h3", "h7"],
    ["h4", "h8"],
  ] as const)
    await lab.apply({ kind: "incast", to, from: [from], bytes: 4_000_000 });
  lab.step(300_000);
  const a = lab.snapshotNow();
  lab.step(10_000);
  return { lab, snaps: [a, lab.snapshotNow()] };
}

function vtep(s: LabSnapshot, node: string): VtepState {
  const st = s.stats[node]!;
  if (st.kind !== "switch" || !st.detail?.vtep) throw new Error(`${node} is no VTEP`);
  return st.detail.vtep;
}

async function render(
  lab: SimLab,
  snaps: readonly LabSnapshot[],
  ui: UiState,
  columns: number,
  rows: number,
) {
  const store = new DashboardStore(
    { lab: lab.name, runtime: "sim", topology: lab.topology },
    { notifyMs: 0 },
  );
  for (const s of snaps) store.ingestSnapshot(s);
  const r = await renderAt(<App store={store} lab={lab} onQuit={() => {}} initialUi={ui} />, {
    columns,
    rows,
  });
  const lines = plainLines(r.screen());
  r.unmount();
  return lines;
}

t.test("the VTEP panel: leaf2's tunnel from leaf1, CE marked in the underlay and copied in", async (t) => {
  const { lab, snaps } = await overlayLab();
  const v = vtep(snaps[1], "leaf2");
  const fromLeaf1 = v.tunnels.find((x) => x.remote === vtep(snaps[1], "leaf1").address)!;
  t.ok(fromLeaf1.decapPackets > 0, `leaf2 decapsulated ${fromLeaf1.decapPackets} packets from leaf1`);
  t.ok(fromLeaf1.ceCopied > 0, `and copied ${fromLeaf1.ceCopied} outer CE marks into the inner header`);
  t.equal(fromLeaf1.ceLost, 0, "none lost with the ECN overlay on");
  const node = lab.topology.nodes.findIndex((n) => n.name === "leaf2");
  for (const [columns, rows] of [
    [80, 40],
    [120, 40],
  ] as const) {
    const lines = await render(lab, snaps, { ...INITIAL_UI, tab: "node", node }, columns, rows);
    t.ok(
      Math.max(...lines.map((l) => [...l].length)) <= columns,
      `${columns}: nothing wider than the screen`,
    );
    const screen = lines.join("\n");
    t.match(
      screen,
      /VTEP \d+\.\d+\.\d+\.\d+\s+VNI 5000\s+ECN overlay on: outer CE → inner header \(RFC 6040\)/,
    );
    t.match(screen, /TUNNEL TO\s+HOSTS\s+ENCAP\s+.*CE→OUT\s+DECAP\s+.*OUTER CE\s+→INNER\s+LOST/);
    const row = lines.find((l) => /^\s+leaf1 \d/.test(l));
    t.ok(row, "a row for the tunnel to leaf1, by name");
    const cells = row!.trim().split(/\s+/);
    // name, address, hosts, encap, [bytes], CE→out, decap, [bytes], outer CE, →inner, lost
    const [decap, outerCe, copied, lost] = columns >= 110 ? [6, 8, 9, 10] : [5, 6, 7, 8];
    t.equal(cells[2], "4", "four hosts behind leaf1");
    t.equal(cells[decap], formatCount(fromLeaf1.decapPackets), "decapsulated packets as counted");
    t.equal(cells[outerCe], formatCount(fromLeaf1.outerCe), "outer CE seen");
    t.equal(cells[copied], formatCount(fromLeaf1.ceCopied), "CE copied outer → inner");
    t.equal(cells[lost], "0");
  }
  await lab.close();
});

t.test("overlay flows: their routes through the underlay, marked VXLAN", async (t) => {
  const { lab, snaps } = await overlayLab();
  const lines = await render(lab, snaps, { ...INITIAL_UI, tab: "flows", flowsMode: "paths" }, 120, 40);
  const screen = lines.join("\n");
  for (const [from, to] of [
    ["h1", "h5"],
    ["h4", "h8"],
  ])
    t.match(
      screen,
      new RegExp(
        `${from}\\s+\\d+\\s+→${to}\\s+\\S+.*\\d+%\\s+leaf1:eth[12] › spine[12]:eth2 › leaf2:eth\\d › ${to}\\s+\\(VXLAN\\)`,
      ),
      `${from} → ${to} crosses a spine encapsulated`,
    );
  await lab.close();
});
