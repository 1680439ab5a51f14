// The PFC headroom slack a live lab gives its switches (device-inits.ts liveSlack): with free clocks a
// process reacts to a pause only when it runs, so automatic headroom covers 10 ms of real reaction time;
// synced clocks take every frame and timer at its emulated time, so their switches are the simulator's.

import t from "tap";
import { ClockMode } from "../../../src/lab/live/clock-plan.js";
import { deviceSetup, liveSlack } from "../../../src/lab/live/device-inits.js";
import { planAddresses } from "../../../src/scenario/address-plan.js";
import { computeRoutes } from "../../../src/scenario/routing.js";
import { SettingsLayers, switchChange } from "../../../src/scenario/settings-layers.js";
import { buildSwitchConfig } from "../../../src/scenario/switch-config.js";
import { defaultTopology, NodeKind } from "../../../src/scenario/topology.js";
import type { SwitchConfig } from "../../../src/switch/config.js";
import { autoHeadroomBytes } from "../../../src/switch/mmu.js";

const topo = defaultTopology();
const plan = planAddresses(topo);
const routes = computeRoutes(topo, plan);
const switches = topo.nodes.filter((n) => n.kind === NodeKind.Switch).map((n) => n.name);

function liveConfig(clock: ClockMode, node: string): SwitchConfig {
  const layers = new SettingsLayers(topo, switchChange(liveSlack(1000, undefined, clock)));
  return deviceSetup(topo, plan, layers, node, routes.get(node) ?? []).config as SwitchConfig;
}

t.test("synced clocks: every switch is configured as in the simulator, headroom included", (t) => {
  const sim = new SettingsLayers(topo);
  for (const node of switches) {
    const simConfig = buildSwitchConfig(topo, plan, routes.get(node) ?? [], node, sim.switchTunables(node));
    const live = liveConfig(ClockMode.Synced, node);
    t.equal(live.pfc.headroomSlack, 0, `${node}: no slack`);
    t.same(live, simConfig, `${node}: the simulator's configuration`);
  }
  t.end();
});

t.test("free clocks: 10 ms of real reaction time at dilation 1000 is 10 µs of headroom slack", (t) => {
  for (const node of switches) {
    const live = liveConfig(ClockMode.Free, node);
    t.equal(live.pfc.headroomSlack, 10_000, `${node}: 10 µs`);
    t.equal(live.pfc.attributeLateness, true, `${node}: late drops counted apart`);
    const p = live.ports[0]!;
    const [plain, slack] = [0, 10_000].map((s) => autoHeadroomBytes(p.rateBps, 1000, live.maxFrameBytes, s));
    t.equal(slack! - plain!, 125_000, `${node}: 125,000 more bytes per lossless PG at 100 Gb/s`);
  }
  t.end();
});
