// The PFC watchdog in the node view and the `e` key, on a simulated fabric the dashboard drives for real:
// h5's NIC storms leaf2:eth3 on priority 3 while h1 writes to it; the watchdog (trigger limit 1) detects
// the storm, drops the stuck traffic and latches PFC off; the node view shows it, `e` → Enter → y
// re-enables PFC through the lab, and the next counters show the port monitoring again. The same with H3C's
// deadlock detection (semantics: h3c), where the latch holds the whole interface and `e` restores it.
import "./fixtures/force-colour.js";
import t from "tap";
import { SimLab } from "../../src/lab/sim/sim-lab.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { App } from "../../src/tui/components/App.js";
import { DashboardStore } from "../../src/tui/store.js";
import { INITIAL_UI } from "../../src/tui/ui-state.js";
import { plainLines } from "./fixtures/dashboard.js";
import { KEY, renderAt } from "./fixtures/render.js";

const SONIC = {
  enabled: true,
  action: "drop",
  detectionTime: 400_000,
  restorationTime: 400_000,
  pollInterval: 100_000,
  triggerLimit: 1,
} as const;

const H3C = {
  enabled: true,
  semantics: "h3c",
  autoRecoverAction: "drop",
  interval: 400_000,
  autoRecoverDelay: 400_000,
  pollInterval: 100_000,
  triggerLimit: 1,
} as const;

async function stormedLab(watchdog: typeof SONIC | typeof H3C): Promise<SimLab> {
  // Configured when the lab starts, as a scenario does: the dashboard reads the detection time from it.
  const topo = defaultTopology();
  const lab = new SimLab({
    topology: { ...topo, defaultSwitch: { ...topo.defaultSwitch, pfcWatchdog: watchdog } },
    seed: 1,
  });
  await lab.apply({ kind: "incast", to: "h5", from: ["h1"], bytes: 16_000_000 });
  lab.step(100_000);
  await lab.apply({ kind: "pfc-storm", host: "h5", priority: 3 });
  lab.step(1_000_000);
  await lab.apply({ kind: "pfc-storm", host: "h5", priority: null });
  lab.step(600_000); // longer than the restoration time: a stormed (not latched) queue would be back
  return lab;
}

function counter(lab: SimLab, name: string): number {
  const st = lab.snapshotNow().stats.leaf2!;
  return st.ports.find((p) => p.port === 3)!.counters[name] ?? 0;
}

for (const [columns, rows, watchdog] of [
  [80, 24, SONIC],
  [120, 40, SONIC],
  [80, 24, H3C],
] as const) {
  const semantics = "semantics" in watchdog ? watchdog.semantics : "sonic";
  t.test(`latched by a storm (${semantics}), re-enabled with e at ${columns}x${rows}`, async (t) => {
    const lab = await stormedLab(watchdog);
    t.equal(counter(lab, "pfcwd_prio3_state"), 2, "the switch latched leaf2:eth3 priority 3");
    const store = new DashboardStore(
      { lab: lab.name, runtime: "sim", topology: lab.topology },
      { notifyMs: 0 },
    );
    store.ingestSnapshot(lab.snapshotNow());
    lab.step(10_000);
    store.ingestSnapshot(lab.snapshotNow());
    const leaf2 = lab.topology.nodes.findIndex((n) => n.name === "leaf2");
    const ui = await renderAt(
      <App
        store={store}
        lab={lab}
        onQuit={() => {}}
        initialUi={{ ...INITIAL_UI, tab: "node", node: leaf2 }}
      />,
      { columns, rows },
    );
    const screen = () => plainLines(ui.screen()).join("\n");
    const lines = plainLines(ui.screen());
    t.equal(lines.length, rows);
    t.ok(Math.max(...lines.map((l) => [...l].length)) <= columns, "nothing wider than the screen");
    t.match(screen(), /PFC watchdog\s+e: re-enable PFC on a port\/priority it holds/);
    t.match(screen(), /PORT\s+PRIO\s+STATE\s+DETECTED\s+RESTORED\s+TX DROP\s+RX DROP\s+TX OK/);
    const drops = counter(lab, "pfcwd_prio3_tx_drop");
    t.ok(drops > 0, `the drop action discarded the stuck queue (${drops} packets)`);
    t.match(screen(), /eth3\s+3\s+LATCHED\s+1\s+0\s+[\d.,]+[KM]?\s/, "eth3 priority 3 latched, one storm");
    t.match(screen(), /eth3\s+h5:eth1\s+.*[▁-█·]L /, "L in the ports × priorities matrix");

    await ui.type("e");
    t.match(screen(), /Re-enable PFC on a port and priority the PFC watchdog holds/);
    t.match(screen(), /> leaf2:eth3 priority 3\s+LATCHED\s+storms detected 1, restored 0/);
    await ui.type(KEY.enter);
    t.match(screen(), /Re-enable PFC on leaf2:eth3 priority 3 \(LATCHED, 1 storms detected\)\?/);
    await ui.type("n");
    t.match(screen(), /> leaf2:eth3 priority 3/, "any other key goes back to the list");
    t.equal(counter(lab, "pfcwd_prio3_state"), 2, "nothing done yet");
    await ui.type(KEY.enter, "y");
    t.match(screen(), /ok: leaf2:eth3 prio 3: PFC enabled$/m, "the lab answered");
    t.equal(counter(lab, "pfcwd_prio3_state"), 0, "the switch monitors it again");
    t.equal(counter(lab, "pfcwd_prio3_storm_restored"), 1, "counted as restored");

    lab.step(10_000);
    store.ingestSnapshot(lab.snapshotNow());
    await ui.type(KEY.down); // any redraw
    t.match(screen(), /PFC watchdog\s+every storm recovered/);
    t.match(screen(), /eth3\s+3\s+monitoring\s+1\s+1\s/);
    await ui.type("e");
    // The whole of it, even at 80 columns: 400us of stall at the sim's dilation of 10000 is 4 s real.
    t.match(
      screen(),
      /│ ERROR: no queue held: needs 400us stalled, ~4\.0 s real$/m,
      "e says what detection needs here",
    );
    ui.unmount();
    await lab.close();
  });
}
