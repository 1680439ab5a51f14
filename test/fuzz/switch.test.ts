import t from "tap";
import { GuardedDevice } from "../../scripts/fuzz/harness.js";
import { fuzzSwitch } from "../../scripts/fuzz/switch-target.js";
import type { Device, DeviceStats } from "../../src/device/contract.js";
import { FUZZ_SEED, fuzzFrames } from "../helpers/fuzz.js";

t.test("the guard counts and records what a device throws, with the frame as it arrived", (t) => {
  const thrower: Device = {
    name: "thrower",
    start() {},
    receive(_port, frame) {
      frame[0] = 0;
      throw new RangeError("boom");
    },
    fire() {
      throw new Error("timer");
    },
    setLinkState() {},
    command: () => undefined,
    stats: (now): DeviceStats => ({ kind: "x", name: "thrower", now, counters: {}, ports: [] }),
  };
  const g = new GuardedDevice(thrower);
  g.receive(3, Uint8Array.of(0xab, 0xcd), 5);
  g.fire(1, 6);
  t.equal(g.exceptions, 2);
  t.equal(g.faults[0]!.frameHex, "abcd", "the bytes before the device touched them");
  t.equal(g.faults[0]!.port, 3);
  t.match(g.faults[0]!.message, /boom/);
  t.end();
});

t.test("a switch fed mutated frames on all ports keeps forwarding", (t) => {
  const frames = fuzzFrames(20_000);
  const r = fuzzSwitch({ seed: FUZZ_SEED, frames });
  t.equal(r.exceptions, 0, `no exception in ${frames} mutated + ${r.validFrames} valid frames`);
  t.same(r.faults, []);
  t.ok((r.rose.drop_malformed ?? 0) > 0, `malformed frames dropped (${r.rose.drop_malformed})`);
  t.ok((r.rose.rx_not_for_us ?? 0) > 0, `frames not for the port counted (${r.rose.rx_not_for_us})`);
  t.ok((r.rose.rx_link_pause_ignored ?? 0) > 0, "802.3x PAUSE counted, not obeyed");
  t.ok((r.rose["port.rx_prio3_pause"] ?? 0) > 0, "PFC with odd vectors and quanta taken");
  t.ok((r.rose["port.tx_packets"] ?? 0) > 0, "traffic forwarded during the fuzz");
  t.ok((r.rose.icmp_time_exceeded_sent ?? 0) > 0, "expiring TTLs answered with ICMP (quoting garbage)");
  t.ok(r.linkFlaps > 0, `links flapped meanwhile (${r.linkFlaps})`);
  for (const k of r.knownGood) {
    t.ok(k.portBefore > 0, `${k.name}: came out of eth${k.portBefore} before the fuzz`);
    t.equal(k.portAfter, k.portBefore, `${k.name}: and out of the same port after it`);
    t.equal(k.ttlAfter, 63, `${k.name}: routed once (TTL 63)`);
  }
  t.end();
});
