// The MTU budget of VXLAN-tunnelled links and the latency a tunnel adds to PFC headroom, worked by hand.
import t from "tap";
import { describeMtuPlan, mtuPlan, tunnelDelayNs, vxlanOverhead } from "../../src/export/underlay.js";

t.test("VXLAN costs 50 bytes of underlay MTU over IPv4, 70 over IPv6", async (t) => {
  // Inner Ethernet 14 + VXLAN 8 + UDP 8 + outer IPv4 20 (IPv6 40): RFC 7348 section 5.
  t.equal(vxlanOverhead("ipv4"), 50);
  t.equal(vxlanOverhead("ipv6"), 70);
});

t.test("RoCE MTU 4096: 4170-byte frames, 4224-byte ports, an underlay of 4274 or more", async (t) => {
  const p = mtuPlan(4096, 9000, "ipv4", false);
  // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + 4096 + ICRC 4.
  t.equal(p.largestFrame, 4170);
  t.equal(p.portMtu, 4224, "the live lab's port MTU: path MTU + 128");
  t.equal(p.underlayNeeded, 4274);
  t.ok(p.fits, "a jumbo underlay carries it");
  t.equal(p.largestFittingPathMtu, 4096);
  t.match(describeMtuPlan(p, "ipv4"), /at least 4274 bytes .*the underlay's 9000 is enough/);
});

t.test("a 1500-byte underlay carries RoCE MTU 1024 at most, and the text says what to do", async (t) => {
  const p = mtuPlan(4096, 1500, "ipv4", false);
  t.notOk(p.fits);
  // 1024 + 128 + 50 = 1202 fits in 1500; 2048 + 128 + 50 = 2226 does not.
  t.equal(p.largestFittingPathMtu, 1024);
  const text = describeMtuPlan(p, "ipv4");
  t.match(text, /the underlay MTU 1500 is too small/);
  t.match(text, /--underlay-mtu 9000/);
  t.match(text, /defaults\.mtu to 1024/);
  t.equal(mtuPlan(1024, 1500, "ipv4", false).fits, true, "and at 1024 the same underlay is enough");
});

t.test("the edges: exactly enough fits, one byte less does not; IPv6 and 802.1Q tags", async (t) => {
  t.ok(mtuPlan(4096, 4274, "ipv4", false).fits);
  t.notOk(mtuPlan(4096, 4273, "ipv4", false).fits);
  t.equal(mtuPlan(4096, 9000, "ipv6", false).underlayNeeded, 4294);
  t.equal(mtuPlan(4096, 9000, "ipv4", true).largestFrame, 4174, "a tagged frame is 4 bytes longer");
  const none = mtuPlan(256, 400, "ipv6", false);
  t.equal(none.largestFittingPathMtu, null, "256 + 128 + 70 = 454 > 400");
  t.match(describeMtuPlan(none, "ipv6"), /no RoCE MTU fits it/);
});

t.test("a tunnel's real latency is emulated latency / dilation, rounded up", async (t) => {
  t.equal(tunnelDelayNs(100_000, 1000), 100, "100 µs real at dilation 1000: 100 ns emulated");
  t.equal(tunnelDelayNs(100_001, 1000), 101);
  t.equal(tunnelDelayNs(50_000, 1), 50_000, "undilated: all of it");
  t.equal(tunnelDelayNs(0, 1000), 0);
});
