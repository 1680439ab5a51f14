// The live lab's event log and run-time static routes in the device fleet, without processes: the log
// keeps the newest 2,000 events however they come (the lab's own notes included), and a static route
// added with no switch running is recorded, refused when the topology cannot take it, and withdrawn.
import t from "tap";
import { ClockMode } from "../../../src/lab/live/clock-plan.js";
import { DeviceFleet, type FleetClock } from "../../../src/lab/live/device-fleet.js";
import { hostAddress, planAddresses } from "../../../src/scenario/address-plan.js";
import { SettingsLayers } from "../../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../../src/scenario/topology.js";

function fleet() {
  const topo = defaultTopology();
  let now = 0;
  const clock = {
    mode: ClockMode.Synced,
    dilation: 1000,
    now: () => now++,
    free: () => now,
    realMsUntil: () => 0,
    deviceLost: () => {},
  } as unknown as FleetClock;
  const pushed: string[] = [];
  const f = new DeviceFleet({
    lab: "unit",
    topo,
    plan: planAddresses(topo),
    seed: 1,
    convergenceNs: 0,
    clock,
    settings: new SettingsLayers(topo),
    intRoomBytes: 0,
    broadcast: (push) => pushed.push(push),
  });
  return { f, pushed };
}

t.test("the lab's own notes are bounded like the devices' events", async (t) => {
  const { f, pushed } = fleet();
  for (let i = 0; i < 2500; i++) f.note("leaf1", `note ${i}`);
  const kept = f.recentEvents(10_000);
  t.equal(kept.length, 2000, "the newest 2,000 are kept");
  t.equal(kept.at(-1)!.detail, "note 2499");
  t.equal(kept[0]!.detail, "note 500");
  t.equal(pushed.length, 2500, "and every one was pushed to clients");
});

t.test("run-time static routes: recorded, refused, withdrawn", async (t) => {
  const { f } = fleet();
  await f.setStaticRoute("leaf1", "h5", "eth1");
  t.match(f.recentEvents(1)[0]!.detail, /static route to h5 via eth1/);
  const ip = hostAddress(planAddresses(defaultTopology()), "h5").ip >>> 0;
  const h5 = f
    .routes()
    .get("leaf1")!
    .find((r) => r.prefixLength === 32 && r.prefix === ip);
  t.same(
    h5?.nextHops.map((h) => h.port),
    [1],
    "leaf1's route to h5 leaves by eth1 alone",
  );
  await f.setStaticRoute("leaf1", "h5", "eth2");
  t.same(
    f
      .routes()
      .get("leaf1")!
      .find((r) => r.prefixLength === 32 && r.prefix === ip)
      ?.nextHops.map((h) => h.port),
    [2],
    "a newer route to the same host replaces it",
  );
  await t.rejects(f.setStaticRoute("leaf1", "h5", "eth9"), /leaf1 has no link on eth9/);
  await t.rejects(f.setStaticRoute("h1", "h5", "eth1"), /h1 is a host/);
  await f.setStaticRoute("leaf1", "h5", null);
  t.match(f.recentEvents(1)[0]!.detail, /static route to h5 withdrawn/);
  await t.rejects(f.setStaticRoute("leaf1", "h5", null), /leaf1 has no added route to h5/);
});
