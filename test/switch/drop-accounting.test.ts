import t from "tap";
import { peerIp, SwitchHarness } from "./harness.js";

// Lossless drops are packets of a lossless class the network should have kept. An expired TTL (a
// traceroute probe) and an unroutable non-RoCE packet are diagnostics and garbage: counted by reason only.

t.test("an expired TTL in a lossless class is not a lossless drop", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(1, h.udp(1, peerIp(2), { ttl: 1 }));
  h.run(h.now + 1000);
  t.equal(h.counter("drop_ttl_expired"), 1, "counted by its reason");
  t.equal(h.counter("dropped_lossless"), 0, "not a lossless drop");
  t.end();
});

t.test("an unroutable non-RoCE packet in a lossless class is not a lossless drop", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(1, h.udp(1, 0x0b000001, { dport: 53 }));
  h.run(h.now + 1000);
  t.equal(h.counter("drop_no_route"), 1, "counted by its reason");
  t.equal(h.counter("dropped_lossless"), 0, "not a lossless drop");
  t.end();
});

t.test("an unroutable RoCE packet in a lossless class still is one", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(1, h.udp(1, 0x0b000001));
  h.run(h.now + 1000);
  t.equal(h.counter("drop_no_route"), 1);
  t.equal(h.counter("dropped_lossless"), 1, "RoCE the fabric could not deliver");
  t.end();
});
