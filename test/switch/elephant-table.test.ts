// The elephant identification table in a switch's stats (`detail.elephants`): each flow with its bytes and
// class, so the TUI and `rocelab stats` can say which flows are elephants and which are mice.
import t from "tap";
import { peerIp, SwitchHarness } from "./harness.js";

const detect = {
  elephant: { enabled: true, size: 20_000, rate: 10e9, window: 10_000, queue: 1 },
} as const;

function flow(h: SwitchHarness, n: number, gap: number, sport: number): void {
  for (let i = 0; i < n; i++) {
    h.deliver(1, h.udp(1, peerIp(2), { dscp: 0, sport }));
    h.run(h.now + gap);
  }
}

t.test("the table lists each flow with its bytes and class, biggest first", (t) => {
  const h = new SwitchHarness({ settings: detect }).start();
  flow(h, 60, 100, 0xc001); // 60 KB at ~80 Gb/s: an elephant
  flow(h, 5, 5_000, 0xc002); // 5 KB, slowly: a mouse
  const list = h.sw.stats(h.now).detail?.elephants ?? [];
  t.equal(list.length, 2);
  const [big, small] = list;
  t.same(
    [big!.srcIp, big!.dstIp, big!.srcPort, big!.dstPort, big!.protocol, big!.elephant],
    [peerIp(1), peerIp(2), 0xc001, 4791, 17, true],
  );
  t.equal(big!.bytes, 60 * 1042, "every byte of the elephant");
  t.equal(big!.destQp, 0xab_abab, "the BTH Dest QP of these RoCEv2 packets (the filler bytes)");
  t.same([small!.srcPort, small!.elephant, small!.bytes], [0xc002, false, 5 * 1042], "the mouse");
  t.equal(h.counter("elephant_flows_detected"), list.filter((f) => f.elephant).length);

  const other = new SwitchHarness({ settings: detect }).start();
  for (let i = 0; i < 3; i++) other.deliver(1, other.udp(1, peerIp(2), { dscp: 0, dport: 5000 }));
  t.equal(other.sw.stats(other.now).detail?.elephants?.[0]?.destQp, -1, "not RoCEv2: no Dest QP");
  const off = new SwitchHarness().start();
  flow(off, 3, 100, 1);
  t.equal(off.sw.stats(off.now).detail?.elephants, undefined, "off: no table");
  t.end();
});
