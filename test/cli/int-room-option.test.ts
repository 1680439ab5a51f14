// `rocelab up --int-room [HOPS]`: the INT room HPCC's data packets need, reserved on the live lab's ports
// when it comes up so that `set hosts cc: hpcc` works later; bad values refused before anything is created.
import t from "tap";
import { UsageError } from "../../src/cli/errors.js";
import { intRoomFor, parseIntRoom } from "../../src/cli/int-room-option.js";
import { labIntBytes } from "../../src/lab/live/device-inits.js";
import { interfaceMtu } from "../../src/lab/live/provision.js";
import { planAddresses } from "../../src/scenario/address-plan.js";
import { hostChange, SettingsLayers } from "../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { rocelab } from "../helpers/cli.js";

t.test("parsing: absent, bare (HPCC's 5 hop records), a hop count; refusals", (t) => {
  t.equal(parseIntRoom(undefined), null, "no option: no room beyond the starting settings'");
  // Probe marker 8 + shim 4 + INT-MD header 12 + 5 hop records of 28 bytes.
  t.same(parseIntRoom(true), { hops: 5, bytes: 8 + 4 + 12 + 5 * 28 });
  t.same(parseIntRoom("15"), { hops: 15, bytes: 8 + 4 + 12 + 15 * 28 });
  t.same(parseIntRoom("1"), { hops: 1, bytes: 52 });
  for (const bad of ["0", "16", "2.5", "-1", "five", ""])
    t.throws(() => parseIntRoom(bad), UsageError, `"${bad}" refused`);
  t.throws(() => parseIntRoom("16"), /a whole number from 1 to 15/);
  t.end();
});

t.test("the room is what HPCC's packets carry with that many hop records", (t) => {
  const topo = defaultTopology();
  const plan = planAddresses(topo);
  for (const hops of [1, 5, 15]) {
    const layers = new SettingsLayers(topo, hostChange({ cc: "hpcc", hpcc: { maxHops: hops } }));
    t.equal(intRoomFor(hops).bytes, labIntBytes(topo, plan, layers), `${hops} hop records`);
  }
  const timely = new SettingsLayers(topo, hostChange({ cc: "timely" }));
  t.ok(labIntBytes(topo, plan, timely) <= intRoomFor(1).bytes, "any HPCC room also takes TIMELY's block");
  t.equal(
    interfaceMtu(topo.mtu, intRoomFor(5).bytes),
    4096 + 128 + 164,
    "the ports' MTU on the built-in fabric",
  );
  t.end();
});

t.test("rocelab up refuses a bad --int-room with exit 2, before anything is created", async (t) => {
  const r = await rocelab(["up", "--name", "h41ir", "--int-room", "16"]);
  t.equal(r.exitCode, 2, r.stderr);
  t.match(r.stderr, /--int-room "16": .*1 to 15/);
  const help = await rocelab(["up", "--help"]);
  t.match(help.stdout, /--int-room \[hops\]/);
});
