// The switch's LLDP agent on a bench: it announces itself on every port at start and every interval,
// learns what a neighbour announces (with the TTL it gives), forgets it on TTL 0, on expiry and on
// carrier loss, and stays silent when off (the default).
import t from "tap";
import { EtherType, ethType } from "../../src/wire/ethernet.js";
import { ChassisIdSubtype, PortIdSubtype, parseLldp } from "../../src/wire/lldp.js";
import { buildLldpFrame } from "../../src/wire/lldp-frame.js";
import { peerIp, peerMac, portIp, SwitchHarness } from "./harness.js";

const ON = { lldp: { enabled: true, txInterval: 1_000_000, holdMultiplier: 4 } };

function lldpSent(h: SwitchHarness): { port: number; frame: Uint8Array }[] {
  return h.env.sent.filter((s) => ethType(s.frame) === EtherType.LLDP);
}

function neighbourFrame(port: number, ttl: number): Uint8Array {
  return buildLldpFrame({
    src: peerMac(port),
    chassisId: { subtype: ChassisIdSubtype.MacAddress, mac: 0x02_00_00_99_00_00 + port },
    portId: { subtype: PortIdSubtype.InterfaceName, name: `eth${port + 10}` },
    ttl,
    systemName: `peer${port}`,
    managementAddress: peerIp(port),
  });
}

t.test("off by default: no LLDP frame, no table", (t) => {
  const h = new SwitchHarness({ ports: 2 });
  h.sw.start(0);
  h.run(100_000_000);
  t.equal(lldpSent(h).length, 0);
  t.equal(h.sw.stats(h.now).detail, undefined);
  t.end();
});

t.test("announces on every port at start and every txInterval, with what a controller needs", (t) => {
  const h = new SwitchHarness({ ports: 3, settings: ON });
  h.sw.start(0);
  h.run(1000);
  const first = lldpSent(h);
  t.same(
    first.map((s) => s.port),
    [1, 2, 3],
    "one LLDPDU per port at start",
  );
  const d = parseLldp(first[1]!.frame, 14);
  t.ok(d.ok);
  if (d.ok) {
    t.same(d.value.portId, { subtype: PortIdSubtype.InterfaceName, name: "eth2" });
    t.equal(d.value.systemName, "sw");
    t.equal(d.value.ttl, 1, "TTL = 1 ms x 4, rounded up to whole seconds");
    t.equal(d.value.managementAddresses[0]?.ipv4, portIp(2), "the port's address: the peer's next hop");
  }
  h.run(3_500_000);
  t.equal(lldpSent(h).length, 3 * 4, "again at 1, 2 and 3 ms");
  t.equal(h.counter("lldp_tx_frames"), 12);
  t.end();
});

t.test("neighbour table: learn, TTL 0 forgets, expiry forgets, carrier loss forgets", (t) => {
  const h = new SwitchHarness({ ports: 3, settings: ON }).start();
  h.deliver(2, neighbourFrame(2, 3));
  h.deliver(3, neighbourFrame(3, 120));
  let table = h.sw.stats(h.now).detail?.lldp;
  t.same(
    table?.neighbours.map((n) => [n.port, n.systemName, n.portId, n.managementIp, n.chassisId]),
    [
      [2, "peer2", "eth12", peerIp(2), "02:00:00:99:00:02"],
      [3, "peer3", "eth13", peerIp(3), "02:00:00:99:00:03"],
    ],
  );
  t.equal(h.counter("lldp_rx_frames"), 2);
  t.equal(h.counter("lldp_neighbours"), 2);
  h.deliver(3, neighbourFrame(3, 0));
  t.same(
    h.sw.stats(h.now).detail?.lldp?.neighbours.map((n) => n.port),
    [2],
    "TTL 0: the neighbour said it is leaving",
  );
  h.deliver(3, neighbourFrame(3, 120));
  h.sw.setLinkState(3, false, h.now);
  t.same(
    h.sw.stats(h.now).detail?.lldp?.neighbours.map((n) => n.port),
    [2],
    "carrier loss forgets the port's neighbour",
  );
  h.run(h.now + 3_000_000_001);
  table = h.sw.stats(h.now).detail?.lldp;
  t.same(table?.neighbours, [], "after its 3 s TTL without a new LLDPDU, peer2 is gone");
  t.equal(table?.ports.find((p) => p.port === 3)?.up, false, "the table shows the port's carrier");
  t.end();
});

t.test("a malformed LLDPDU is dropped and counted, not learnt", (t) => {
  const h = new SwitchHarness({ ports: 2, settings: ON }).start();
  const f = neighbourFrame(2, 120);
  f[14] = 0x06; // first TLV becomes a TTL TLV: not Chassis ID
  h.deliver(2, f);
  t.equal(h.sw.stats(h.now).detail?.lldp?.neighbours.length, 0);
  t.equal(h.counter("drop_malformed"), 1);
  t.end();
});
