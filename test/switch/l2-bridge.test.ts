// The bridge domain on a bench: ports 1-3 are the domain (VLAN 100), port 4 is a routed uplink. Unknown
// unicast floods within the domain only, learnt MACs forward to one port and age out, the table is
// bounded, the 802.1Q PCP picks the queue and PFC guards a lossless PCP, frames to the router MAC are still
// routed, and frames of another VLAN or to reserved addresses are not bridged.
import t from "tap";
import { DEFAULT_PKEY, Opcode } from "../../src/wire/roce.js";
import { buildRoceV1Frame } from "../../src/wire/rocev1.js";
import { peerIp, portMac, SwitchHarness } from "./harness.js";

const DOMAIN = { vlan: 100, ports: [1, 2, 3] };
const host = (n: number): number => 0x02_aa_00_00_00_00 + n;
const gid = (n: number): Uint8Array =>
  Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 0, n]);

/** A RoCEv1 SEND-only frame from host `src` to host `dst` (MACs), 802.1Q tagged unless `vid` is null. */
function v1(src: number, dst: number, opts: { pcp?: number; vid?: number | null; bytes?: number } = {}) {
  const vid = opts.vid === undefined ? 100 : opts.vid;
  return buildRoceV1Frame({
    srcMac: host(src),
    dstMac: dst < 0 ? 0xff_ff_ff_ff_ff_ff : host(dst),
    vlan: vid === null ? null : { pcp: opts.pcp ?? 3, dei: false, vid },
    sgid: gid(src),
    dgid: gid(Math.max(dst, 0)),
    opcode: Opcode.SendOnly,
    destQp: 0x11,
    psn: 1,
    pkey: DEFAULT_PKEY,
    payload: new Uint8Array(opts.bytes ?? 100),
  });
}

function harness(extra: Record<string, unknown> = {}, other: Record<string, unknown> = {}): SwitchHarness {
  return new SwitchHarness({ settings: { bridge: { domain: DOMAIN, ...extra }, ...other } }).start();
}

const on = (h: SwitchHarness, port: number) => h.env.sent.filter((s) => s.port === port);

t.test("unknown unicast floods within the domain; a learnt MAC gets it alone", (t) => {
  const h = harness();
  const f = v1(1, 2);
  h.deliver(1, f);
  h.run(h.now + 10_000);
  t.equal(on(h, 2).length, 1, "flooded to port 2");
  t.equal(on(h, 3).length, 1, "and port 3");
  t.equal(on(h, 1).length, 0, "not back to its ingress port");
  t.equal(on(h, 4).length, 0, "never to the routed uplink");
  t.same(on(h, 2)[0]!.frame, f, "forwarded unchanged");
  t.same(on(h, 3)[0]!.frame, f, "and the same bytes to port 3");
  t.not(on(h, 2)[0]!.frame, on(h, 3)[0]!.frame, "each port its own copy: a frame has one receiver");
  t.equal(h.counter("bridge_flooded"), 1);
  h.env.sent.length = 0;
  h.deliver(2, v1(2, 1));
  h.run(h.now + 10_000);
  t.equal(on(h, 1).length, 1, "host 1 was learnt on port 1");
  t.equal(on(h, 3).length, 0, "so nothing floods");
  h.env.sent.length = 0;
  h.deliver(1, v1(1, 2));
  h.run(h.now + 10_000);
  t.equal(on(h, 2).length + on(h, 3).length, 1, "host 2 learnt on port 2: one copy");
  t.equal(on(h, 2).length, 1);
  t.equal(h.counter("bridge_frames"), 2);
  t.equal(h.counter("bridge_macs_learnt"), 2);
  t.equal(h.counter("bridge_mac_entries"), 2);
  t.end();
});

t.test("entries age out and the table is bounded", (t) => {
  const h = harness({ aging: 50_000 });
  h.deliver(2, v1(2, 1));
  h.run(h.now + 100_000);
  h.env.sent.length = 0;
  h.deliver(1, v1(1, 2));
  h.run(h.now + 10_000);
  t.equal(on(h, 3).length, 1, "host 2's entry aged out: flooded again");

  const small = harness({ macTableSize: 1 });
  small.deliver(1, v1(1, 9));
  small.deliver(2, v1(2, 9));
  small.run(small.now + 10_000);
  t.equal(small.counter("bridge_mac_entries"), 1, "one entry at most");
  t.equal(small.counter("bridge_mac_table_full"), 1, "the second source was not learnt");
  t.end();
});

t.test("the 802.1Q PCP picks the queue; untagged frames take untaggedPriority", (t) => {
  const h = harness({ untaggedPriority: 1 });
  h.deliver(2, v1(2, 1, { pcp: 0 }));
  h.deliver(3, v1(3, 1, { pcp: 0 }));
  h.run(h.now + 10_000);
  h.deliver(1, v1(1, 2, { pcp: 5 }));
  h.deliver(1, v1(1, 3, { vid: null }));
  h.deliver(1, v1(1, 2, { pcp: 3, vid: 0 }));
  h.run(h.now + 10_000);
  t.equal(h.queueCounter(2, 5, "tx_packets"), 1, "PCP 5: queue 5");
  t.equal(h.queueCounter(3, 1, "tx_packets"), 1, "untagged: priority 1");
  t.equal(h.queueCounter(2, 3, "tx_packets"), 1, "priority-tagged (VID 0) PCP 3: queue 3");
  t.end();
});

t.test("a lossless PCP backs up into PFC on the ingress port", (t) => {
  const h = harness({}, { pfc: { xoff: 20_000, resumeOffset: 5000 } });
  h.deliver(2, v1(2, 1));
  h.run(h.now + 10_000);
  // Host 2 pauses priority 3 on port 2; host 1 keeps sending PCP 3 frames to it.
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 30; i++) h.deliver(1, v1(1, 2, { bytes: 1000 }));
  h.run(h.now + 1000);
  t.equal(h.pfc(1).length, 1, "the leaf pauses port 1's peer (XOFF on priority 3)");
  t.equal(h.portCounter(1, "pg3_xoff"), 1);
  t.equal(h.pfc(3).length, 0, "and nobody else");
  t.equal(h.counter("dropped_lossless"), 0, "no lossless drop");
  t.end();
});

t.test("frames to the router MAC are routed; other VLANs and reserved MACs are not bridged", (t) => {
  const h = harness();
  h.deliver(1, h.udp(1, peerIp(4)));
  h.run(h.now + 10_000);
  t.equal(h.data(4).length, 1, "an IPv4 packet to the router MAC is routed to the uplink");
  t.equal(h.counter("bridge_flooded") + h.counter("bridge_frames"), 0, "not bridged");
  h.deliver(1, v1(1, 2, { vid: 200 }));
  const lldp = v1(1, 2);
  lldp.set([0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e], 0);
  h.deliver(1, lldp);
  const routerV1 = v1(1, 2);
  routerV1.set([0x02, 0, 0, 0, 0x01, 0], 0);
  t.equal(portMac(1), 0x02_00_00_00_01_00);
  h.deliver(1, routerV1);
  h.run(h.now + 10_000);
  t.equal(
    h.counter("bridge_flooded") + h.counter("bridge_frames"),
    0,
    "VLAN 200, LLDP's address: not bridged",
  );
  t.equal(h.counter("rx_not_for_us"), 3, "RoCEv1 to the router MAC: no IP header, nothing to route");
  t.end();
});
