// The VTEP on a bench: what a host port sends to a remote host leaves encapsulated towards the remote VTEP
// (inner ECN copied out, MMU charged the encapsulated size); VXLAN for this VTEP is decapsulated with
// RFC 6040's normal-mode ECN table, or with the outer ECN discarded when the ECN overlay is off.
import t from "tap";
import { readU16 } from "../../src/wire/bytes.js";
import { Ecn, ipv4Dst, ipv4Ecn } from "../../src/wire/ipv4.js";
import { buildVxlanFrame } from "../../src/wire/vxlan.js";
import { peerIp, peerMac, portIp, portMac, REMOTE, SwitchHarness } from "./harness.js";

const VNI = 5000;
/** Port 1 faces a host; the remote host REMOTE+5 is behind the VTEP at peerIp(2); ours is portIp(1). */
const vxlan = { vni: VNI, vtep: portIp(1), hostPorts: [1], remotes: [{ ip: REMOTE + 5, vtep: peerIp(2) }] };

function harness(ecn = true): SwitchHarness {
  return new SwitchHarness({ settings: { overlay: { ecn, vxlan } } }).start();
}

/** A VXLAN frame from the underlay (port 2) to our VTEP around a packet for the host on port 1. */
function fromUnderlay(h: SwitchHarness, outer: Ecn, inner: Ecn): Uint8Array {
  return buildVxlanFrame({
    inner: h.udp(2, peerIp(1), { ecn: inner }),
    vni: VNI,
    outerSrcMac: peerMac(2),
    outerDstMac: portMac(2),
    outerSrcIp: peerIp(2),
    outerDstIp: portIp(1),
    srcPort: 50_000,
    ecn: outer,
  });
}

t.test("a host's packet for a remote host is encapsulated towards its VTEP", (t) => {
  const h = harness();
  const inner = h.udp(1, REMOTE + 5, { ecn: Ecn.Ect0, sport: 0xc123 });
  h.deliver(1, inner);
  h.run(h.now + 10_000);
  const out = h.data(2);
  t.equal(out.length, 1, "sent towards the remote VTEP on port 2");
  const f = out[0]!.frame;
  t.equal(f.length, inner.length + 50, "outer Ethernet, IPv4, UDP and VXLAN: 50 bytes");
  t.equal(ipv4Dst(f, 14), peerIp(2), "outer destination: the remote VTEP");
  t.equal(readU16(f, 36), 4789, "UDP 4789");
  t.ok(readU16(f, 34) >= 49152, "outer source port from the inner hash");
  t.equal(ipv4Ecn(f, 14), Ecn.Ect0, "inner ECN copied to the outer header");
  t.equal(ipv4Dst(f, 64), REMOTE + 5, "the inner packet inside, unchanged");
  t.equal(h.counter("vxlan_encap_packets"), 1);
  t.equal(h.queueCounter(2, 3, "tx_bytes"), inner.length + 50, "charged and sent at the encapsulated size");
  t.end();
});

t.test("encapsulation copies an inner CE to the outer header on the wire (RFC 6040 §4.1)", (t) => {
  // A packet already marked CE in the host's own network: the underlay must see the mark on the outer header
  // (its switches read only the outer one), and the inner header keeps it for the far end.
  for (const ecn of [Ecn.Ce, Ecn.Ect1, Ecn.NotEct]) {
    const h = harness();
    h.deliver(1, h.udp(1, REMOTE + 5, { ecn, sport: 0xc124 }));
    h.run(h.now + 10_000);
    const out = h.data(2);
    t.equal(out.length, 1);
    const f = out[0]!.frame;
    t.equal(readU16(f, 36), 4789, "a VXLAN frame on the wire");
    t.equal(ipv4Ecn(f, 14), ecn, `outer ECN ${ecn} = inner ECN`);
    t.equal(ipv4Ecn(f, 64), ecn, "the inner header keeps its ECN");
  }
  t.end();
});

t.test("decapsulation combines the outer ECN into the inner header (RFC 6040 normal mode)", (t) => {
  const cases: [Ecn, Ecn, Ecn | "drop"][] = [
    [Ecn.Ce, Ecn.Ect0, Ecn.Ce],
    [Ecn.Ce, Ecn.Ect1, Ecn.Ce],
    [Ecn.Ce, Ecn.Ce, Ecn.Ce],
    [Ecn.Ce, Ecn.NotEct, "drop"],
    [Ecn.Ect1, Ecn.Ect0, Ecn.Ect1],
    [Ecn.Ect0, Ecn.Ect0, Ecn.Ect0],
    [Ecn.NotEct, Ecn.Ect0, Ecn.Ect0],
  ];
  for (const [outer, inner, expected] of cases) {
    const h = harness();
    h.deliver(2, fromUnderlay(h, outer, inner));
    h.run(h.now + 10_000);
    const out = h.data(1);
    if (expected === "drop") {
      t.equal(out.length, 0, `outer ${outer} on inner ${inner}: dropped`);
      t.equal(h.counter("drop_overlay_not_ect"), 1);
      continue;
    }
    t.equal(out.length, 1, `outer ${outer} on inner ${inner}: delivered to the host`);
    const f = out[0]!.frame;
    t.equal(ipv4Dst(f, 14), peerIp(1), "as the inner packet");
    t.equal(ipv4Ecn(f, 14), expected, `inner ECN ${expected}`);
  }
  t.end();
});

t.test("with the ECN overlay off, an outer CE is lost at decapsulation", (t) => {
  const h = harness(false);
  h.deliver(2, fromUnderlay(h, Ecn.Ce, Ecn.Ect0));
  h.run(h.now + 10_000);
  t.equal(ipv4Ecn(h.data(1)[0]!.frame, 14), Ecn.Ect0);
  t.equal(h.counter("vxlan_ce_lost"), 1);
  t.equal(h.counter("vxlan_ce_copied"), 0);
  t.end();
});

t.test("without a VTEP section nothing is encapsulated", (t) => {
  const h = new SwitchHarness({
    routes: [{ prefix: REMOTE, prefixLength: 16, nextHops: [{ port: 2, via: peerIp(2) }] }],
  }).start();
  h.deliver(1, h.udp(1, REMOTE + 5));
  h.run(h.now + 10_000);
  t.equal(h.data(2)[0]!.frame.length, h.udp(1, REMOTE + 5).length, "routed as it is");
  t.equal(h.counter("vxlan_encap_packets"), 0);
  t.end();
});
