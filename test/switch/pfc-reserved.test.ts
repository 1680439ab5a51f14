// PFC frames from other implementations: one whose reserved octet of the class-enable vector is not 0
// (built by Scapy, test/helpers/foreign-frames.ts) pauses the priority it names on a switch port and on a
// NIC, as an 802.1Q receiver that ignores reserved fields does; before, it was dropped as malformed.
import t from "tap";
import { fromHex } from "../../src/wire/bytes.js";
import { SCAPY_PFC_RESERVED_A5 } from "../helpers/foreign-frames.js";
import { peerIp, SwitchHarness } from "./harness.js";

t.test("a switch obeys a PFC frame whose reserved octet is set", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(2, fromHex(SCAPY_PFC_RESERVED_A5));
  for (let i = 0; i < 3; i++) h.deliver(1, h.udp(1, peerIp(2)));
  h.run(h.now + 10_000);
  t.equal(h.portCounter(2, "rx_prio3_pause"), 1, "counted as a priority 3 pause");
  t.equal(h.counter("drop_malformed"), 0, "not dropped as malformed");
  t.equal(h.data(2).length, 0, "priority 3 towards the pausing peer waits");
  h.deliver(1, h.udp(1, peerIp(2), { dscp: 0 }));
  h.run(h.now + 10_000);
  t.equal(h.data(2).length, 1, "priority 0 is not paused: only the enable bits count");
  // What is really malformed still is: the same frame with an unknown opcode.
  const bad = fromHex(SCAPY_PFC_RESERVED_A5);
  bad[15] = 0x02;
  h.deliver(3, bad);
  t.equal(h.counter("drop_malformed"), 1, "an unknown MAC Control opcode is dropped as malformed");
  t.end();
});
