// Flow paths on a switch alone: each RoCEv2 flow's egress ports with packets and bytes, as ECMP pins a flow
// to one member and spraying splits it over all of them; VXLAN traffic counted under its inner flow; the
// table's bounds and aging.
import t from "tap";
import type { FlowPathEntry } from "../../src/switch/stats-types.js";
import { writeU24 } from "../../src/wire/bytes.js";
import { buildVxlanFrame } from "../../src/wire/vxlan.js";
import { peerIp, portIp, REMOTE, SwitchHarness } from "./harness.js";

const DST = REMOTE + 7;
/** Dest QP offset of the harness's UDP 4791 frames: Ethernet 14, IPv4 20, UDP 8, BTH byte 5. */
const DEST_QP_AT = 14 + 20 + 8 + 5;

/** 10.9.0.0/16 over ports 3, 4 and 5, traffic in on port 1. */
function harness(settings = {}): SwitchHarness {
  return new SwitchHarness({
    ports: 5,
    settings,
    routes: [
      {
        prefix: REMOTE,
        prefixLength: 16,
        nextHops: [3, 4, 5].map((port) => ({ port, via: peerIp(port) })),
      },
    ],
  }).start();
}

/** A RoCEv2 packet of QP `qp` from the peer of port 1 to DST. */
function roce(h: SwitchHarness, qp: number, sport = 0xc000): Uint8Array {
  const f = h.udp(1, DST, { sport, dscp: 0 });
  writeU24(f, DEST_QP_AT, qp);
  return f;
}

function send(h: SwitchHarness, frame: () => Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) {
    h.deliver(1, frame());
    h.run(h.now + 1000);
  }
}

function flows(h: SwitchHarness): readonly FlowPathEntry[] {
  return h.sw.stats(h.now).detail?.flowPaths ?? [];
}

t.test("static ECMP: each flow on one egress port, with its packets and bytes", (t) => {
  const h = harness();
  const frame = roce(h, 17);
  send(h, () => roce(h, 17), 20);
  send(h, () => roce(h, 18, 0xc777), 5);
  const all = flows(h);
  t.equal(all.length, 2, "two flows");
  const f = all.find((e) => e.destQp === 17)!;
  t.equal(f.srcIp, peerIp(1));
  t.equal(f.dstIp, DST);
  t.equal(f.vxlan, false);
  t.equal(f.ports.length, 1, "one path");
  t.equal(f.ports[0]!.packets, 20);
  t.equal(f.ports[0]!.bytes, 20 * frame.length);
  t.ok([3, 4, 5].includes(f.ports[0]!.port), `a member of the group (eth${f.ports[0]!.port})`);
  const sent = h.data(f.ports[0]!.port).length;
  t.ok(sent >= 20, "the port it names is where the packets went");
  t.equal(h.counter("flow_paths_flows"), 2, "gauge of flows tracked");
  t.equal(all[0]!.destQp, 17, "busiest flow first");
  t.end();
});

t.test("dlb-spray: one flow split over every member, as the member counters say", (t) => {
  const h = harness({ lb: { mode: "dlb-spray" } });
  send(h, () => roce(h, 9), 60);
  const [f] = flows(h);
  t.same(f!.ports.map((p) => p.port).sort(), [3, 4, 5], "all three uplinks");
  t.equal(
    f!.ports.reduce((a, p) => a + p.packets, 0),
    60,
    "every packet counted once",
  );
  for (const p of f!.ports)
    t.equal(p.packets, h.portCounter(p.port, "dlb_member_packets"), `eth${p.port}: as DLB counted it`);
  t.end();
});

t.test("VXLAN: the encapsulated packet is counted under its inner RoCEv2 flow", (t) => {
  const vxlan = { vni: 5000, vtep: portIp(1), hostPorts: [1], remotes: [{ ip: DST, vtep: REMOTE + 99 }] };
  const h = harness({ overlay: { vxlan } });
  send(h, () => roce(h, 33), 4);
  const [f] = flows(h);
  t.equal(f!.destQp, 33, "inner Dest QP");
  t.equal(f!.dstIp, DST, "inner destination, not the VTEP");
  t.equal(f!.vxlan, true);
  t.equal(f!.ports[0]!.packets, 4);
  t.equal(f!.ports[0]!.bytes, 4 * (roce(h, 33).length + 50), "bytes as queued: encapsulated");

  // A transit switch (a spine) sees only VXLAN: still the inner flow.
  const spine = harness();
  const inner = roce(spine, 44);
  const outer = buildVxlanFrame({
    inner,
    vni: 5000,
    outerSrcMac: 0x02_00_00_00_01_02,
    outerDstMac: 0x02_00_00_00_01_00,
    outerSrcIp: peerIp(1),
    outerDstIp: REMOTE + 99,
    srcPort: 50_000,
  });
  send(spine, () => outer.slice(), 3);
  const [g] = flows(spine);
  t.same([g!.destQp, g!.dstIp, g!.vxlan, g!.ports[0]!.packets], [44, DST, true, 3]);
  t.end();
});

t.test("bounds: a full table is counted; entries age out; off tracks nothing", (t) => {
  const h = harness({ flowPaths: { tableSize: 1, aging: 50_000 } });
  send(h, () => roce(h, 1), 2);
  send(h, () => roce(h, 2), 3);
  t.equal(flows(h).length, 1, "one entry");
  t.equal(h.counter("flow_paths_table_full"), 3, "the second flow's packets counted as untracked");
  h.run(h.now + 100_000);
  t.same(flows(h), [], "aged out after 50 µs of silence");
  send(h, () => roce(h, 2), 1);
  t.equal(flows(h)[0]!.destQp, 2, "its slot serves a new flow");
  t.equal(flows(h)[0]!.ports[0]!.packets, 1, "which starts from zero");

  const off = harness({ flowPaths: { enabled: false } });
  send(off, () => roce(off, 1), 2);
  t.equal(off.sw.stats(off.now).detail?.flowPaths, undefined, "disabled: nothing tracked");
  t.end();
});
