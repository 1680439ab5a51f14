// The MTU of a live lab's ports takes the largest frame its hosts send: a full-size data packet of the path
// MTU, plus the INT block HPCC and TIMELY put in front of its payload (docs/int.md). A port with less has
// the kernel refuse every full-size data frame (AF_PACKET send: EMSGSIZE), so an HPCC flow never starts.
import t from "tap";
import { parseIntRoom } from "../../../src/cli/int-room-option.js";
import { DeviceFleet, type FleetClock } from "../../../src/lab/live/device-fleet.js";
import { deviceSetup, labIntBytes, labInterfaceMtu } from "../../../src/lab/live/device-inits.js";
import { interfaceMtu } from "../../../src/lab/live/provision.js";
import type { NicConfig } from "../../../src/nic/config.js";
import { FrameBuilder } from "../../../src/nic/transport/frames.js";
import { planAddresses } from "../../../src/scenario/address-plan.js";
import type { NicSettings } from "../../../src/scenario/schema.js";
import { hostChange, SettingsLayers } from "../../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../../src/scenario/topology.js";
import { Opcode } from "../../../src/wire/roce-opcodes.js";

const topo = defaultTopology();
const plan = planAddresses(topo);

/** The largest data frame h1 sends under `settings`, without the Ethernet header (what the MTU counts). */
function fullDataPacket(layers: SettingsLayers): number {
  const cfg = deviceSetup(topo, plan, layers, "h1", []).config as NicConfig;
  const b = new FrameBuilder(cfg);
  const f = b.data(0x0a000002, 0xc000, 0x11, Opcode.RdmaWriteFirst, 0, true, topo.mtu, 0, 0n, topo.mtu, -1);
  return f.length - 14;
}

const CASES: [string, NicSettings, number][] = [
  ["dcqcn", { cc: "dcqcn" }, 0],
  ["dctcp", { cc: "dctcp" }, 0],
  ["timely", { cc: "timely" }, 24],
  ["hpcc, 5 hop slots", { cc: "hpcc" }, 164],
  ["hpcc, 15 hop slots", { cc: "hpcc", hpcc: { maxHops: 15 } }, 444],
];

t.test("the ports take a full-size data packet of every congestion control", (t) => {
  for (const [name, settings, intBytes] of CASES) {
    const layers = new SettingsLayers(topo, hostChange(settings));
    t.equal(labIntBytes(topo, plan, layers), intBytes, `${name}: INT bytes per data packet`);
    const mtu = labInterfaceMtu(topo, plan, layers);
    t.equal(mtu, interfaceMtu(topo.mtu) + intBytes, `${name}: port MTU ${mtu}`);
    const ip = fullDataPacket(layers);
    t.ok(ip <= mtu, `${name}: a ${ip}-byte IP packet fits the ${mtu}-byte MTU`);
  }
  t.end();
});

const clock = {
  mode: "synced",
  dilation: 1000,
  now: () => 0,
  free: () => 0,
  realMsUntil: () => 0,
  deviceLost: () => {},
} as unknown as FleetClock;

/** A fleet (no processes: nothing running to configure) with `settings` and ports sized for `intRoomBytes`. */
function fleet(settings: SettingsLayers, intRoomBytes: number): DeviceFleet {
  return new DeviceFleet({
    lab: "unit",
    topo,
    plan,
    seed: 1,
    convergenceNs: 0,
    clock,
    settings,
    intRoomBytes,
    broadcast: () => 0,
  });
}

t.test("a running lab refuses a host change that needs more INT room than its ports have", async (t) => {
  const settings = new SettingsLayers(topo, hostChange({ cc: "hpcc" }));
  const f = fleet(settings, labIntBytes(topo, plan, settings));
  await t.rejects(
    f.configureHosts({ hpcc: { maxHops: 6 } }),
    /carry 192 bytes of INT, but the lab's ports were given room for 164 when it came up/,
  );
  t.equal(settings.hostSettings().hpcc?.maxHops, undefined, "the refused layer is not kept");
  await f.configureHosts({ cc: "timely" });
  t.equal(settings.hostSettings().cc, "timely", "a change within the room goes on");
  await f.configureHosts({ hpcc: { maxHops: 4 } });
  t.equal(settings.hostSettings().hpcc?.maxHops, 4);
});

t.test(
  "rocelab up --int-room: a DCQCN lab takes cc: hpcc later; without it, refused with the way out",
  async (t) => {
    const plain = new SettingsLayers(topo, hostChange({}));
    // What the supervisor gives the fleet: the larger of --int-room and the starting settings' need (0).
    await t.rejects(
      fleet(plain, labIntBytes(topo, plan, plain)).configureHosts({ cc: "hpcc" }),
      /--int-room/,
    );
    t.equal(plain.hostSettings().cc, undefined, "refused, not kept");
    const roomy = new SettingsLayers(topo, hostChange({}));
    const room = parseIntRoom(true)!;
    const f = fleet(roomy, Math.max(room.bytes, labIntBytes(topo, plan, roomy)));
    await f.configureHosts({ cc: "hpcc" });
    t.equal(roomy.hostSettings().cc, "hpcc", "switched on");
    t.ok(
      fullDataPacket(roomy) <= interfaceMtu(topo.mtu, room.bytes),
      "its full-size data packet fits the ports",
    );
    await t.rejects(
      f.configureHosts({ hpcc: { maxHops: 6 } }),
      /room for 164/,
      "the room is for 5 hop records",
    );
    const wide = new SettingsLayers(topo, hostChange({}));
    await fleet(wide, parseIntRoom("15")!.bytes).configureHosts({ cc: "hpcc", hpcc: { maxHops: 15 } });
    t.equal(wide.hostSettings().hpcc?.maxHops, 15, "--int-room 15 takes 15 hop records");
  },
);
