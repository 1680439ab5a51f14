// A VTEP's state in its switch's stats (`detail.vtep`): VNI, address, ECN overlay, and per tunnel what it
// encapsulated and decapsulated, how much CE went out (inner → outer) and came back (outer → inner).
import t from "tap";
import { Ecn } from "../../src/wire/ipv4.js";
import { buildVxlanFrame } from "../../src/wire/vxlan.js";
import { peerIp, peerMac, portIp, portMac, REMOTE, SwitchHarness } from "./harness.js";

const VNI = 5000;
const VTEP_A = peerIp(2);
const VTEP_B = peerIp(3);
const vxlan = {
  vni: VNI,
  vtep: portIp(1),
  hostPorts: [1],
  remotes: [
    { ip: REMOTE + 5, vtep: VTEP_A },
    { ip: REMOTE + 6, vtep: VTEP_A },
    { ip: REMOTE + 9, vtep: VTEP_B },
  ],
};

function harness(ecn = true): SwitchHarness {
  return new SwitchHarness({ settings: { overlay: { ecn, vxlan } } }).start();
}

function fromVtep(h: SwitchHarness, port: number, outer: Ecn): Uint8Array {
  return buildVxlanFrame({
    inner: h.udp(port, peerIp(1), { ecn: Ecn.Ect0 }),
    vni: VNI,
    outerSrcMac: peerMac(port),
    outerDstMac: portMac(port),
    outerSrcIp: peerIp(port),
    outerDstIp: portIp(1),
    srcPort: 50_000,
    ecn: outer,
  });
}

t.test("per-tunnel encapsulation and decapsulation, CE each way", (t) => {
  const h = harness();
  const inner = h.udp(1, REMOTE + 5, { ecn: Ecn.Ce });
  h.deliver(1, inner);
  h.deliver(1, h.udp(1, REMOTE + 6, { ecn: Ecn.Ect0 }));
  h.deliver(1, h.udp(1, REMOTE + 9, { ecn: Ecn.Ect0 }));
  h.deliver(2, fromVtep(h, 2, Ecn.Ce));
  h.deliver(2, fromVtep(h, 2, Ecn.Ect0));
  h.run(h.now + 20_000);
  const v = h.sw.stats(h.now).detail?.vtep;
  t.ok(v, "the VTEP is in the stats");
  t.same([v!.vni, v!.address, v!.ecn, v!.hostPorts], [VNI, portIp(1), true, [1]]);
  t.equal(v!.tunnels.length, 2, "one tunnel per remote VTEP");
  const [a, b] = v!.tunnels;
  t.same(
    [a!.remote, a!.hosts, a!.encapPackets, a!.encapCe, a!.decapPackets, a!.outerCe, a!.ceCopied, a!.ceLost],
    [VTEP_A, 2, 2, 1, 2, 1, 1, 0],
    "to A: two out (one CE copied out), two back (one CE copied in)",
  );
  t.equal(a!.encapBytes, 2 * (inner.length + 50), "encapsulated bytes");
  t.equal(a!.decapBytes, 2 * fromVtep(h, 2, Ecn.Ce).length);
  t.same([b!.remote, b!.hosts, b!.encapPackets, b!.decapPackets], [VTEP_B, 1, 1, 0], "to B: one out");
  t.equal(
    v!.tunnels.reduce((s, x) => s + x.encapPackets, 0),
    h.counter("vxlan_encap_packets"),
    "the tunnels add up to the switch's counter",
  );
  t.end();
});

t.test("overlay off: the underlay's CE is counted lost on its tunnel", (t) => {
  const h = harness(false);
  h.deliver(3, fromVtep(h, 3, Ecn.Ce));
  h.run(h.now + 10_000);
  const b = h.sw.stats(h.now).detail?.vtep?.tunnels[1];
  t.same([b!.decapPackets, b!.outerCe, b!.ceCopied, b!.ceLost], [1, 1, 0, 1]);
  t.equal(h.sw.stats(h.now).detail?.vtep?.ecn, false);
  t.equal(new SwitchHarness().start().sw.stats(0).detail?.vtep, undefined, "not a VTEP: nothing");
  t.end();
});
