// Port-group deadlock prevention on a switch alone: a packet that enters and leaves through one group is
// given the remapped DSCP and queue; anything else passes untouched.
import t from "tap";
import type { TunablesLayer } from "../../src/switch/features/registry.js";
import { ipv4Dscp } from "../../src/wire/ipv4.js";
import { peerIp, SwitchHarness } from "./harness.js";

const settings: TunablesLayer = {
  qos: { dscpToPriority: { "30": 4 }, lossless: [3, 4] },
  deadlockPrevention: {
    enabled: true,
    groups: [[1, 2]],
    remap: [{ dscp: 26, toDscp: 30, queue: 4 }],
  },
};

t.test("a bounce within a port group is remapped to the configured DSCP and queue", (t) => {
  const h = new SwitchHarness({ settings }).start();
  h.deliver(1, h.udp(1, peerIp(2), { dscp: 26 }));
  h.deliver(1, h.udp(1, peerIp(3), { dscp: 26 }));
  h.deliver(1, h.udp(1, peerIp(2), { dscp: 0 }));
  h.run(h.now + 10_000);
  const [bounced, lossy] = h.data(2);
  t.equal(ipv4Dscp(bounced!.frame, 14), 30, "1 → 2 (same group): DSCP 26 became 30");
  t.equal(h.queueCounter(2, 4, "tx_packets"), 1, "and left from queue 4");
  t.equal(h.queueCounter(2, 4, "deadlock_remapped"), 1, "counted");
  t.equal(ipv4Dscp(lossy!.frame, 14), 0, "a DSCP without a remap entry is left alone");
  t.equal(ipv4Dscp(h.data(3)[0]!.frame, 14), 26, "1 → 3 (not in the group): untouched");
  t.equal(h.queueCounter(3, 3, "tx_packets"), 1, "in its usual queue");
  t.end();
});

t.test("off by default: the same bounce keeps its DSCP", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(1, h.udp(1, peerIp(2), { dscp: 26 }));
  h.run(h.now + 10_000);
  t.equal(ipv4Dscp(h.data(2)[0]!.frame, 14), 26);
  t.equal(h.queueCounter(2, 3, "tx_packets"), 1);
  t.end();
});
