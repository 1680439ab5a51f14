// The node view's link aggregation panel (tui/lag-panel.ts) and `rocelab stats`' table
// (cli/stats-detail-format.ts), from a real switch's stats: a static 2-member group with one member down.
import t from "tap";
import { switchDetailLines } from "../../src/cli/stats-detail-format.js";
import { lagLines } from "../../src/tui/lag-panel.js";
import { peerIp, REMOTE, SwitchHarness } from "../switch/harness.js";

t.test("members, their state and the share of packets each carried", async (t) => {
  const h = new SwitchHarness({
    ports: 3,
    lags: [
      {
        name: "po7",
        key: 1,
        mode: "static",
        rate: "slow",
        hash: ["srcIp", "dstIp", "srcPort", "dstPort"],
        balance: null,
        members: [
          { port: 1, via: peerIp(1) },
          { port: 2, via: peerIp(2) },
        ],
      },
    ],
    routes: [{ prefix: REMOTE, prefixLength: 16, nextHops: [{ port: 1, via: peerIp(1) }] }],
  }).start();
  h.sw.setLinkState(2, false, h.now);
  for (let f = 0; f < 10; f++) h.deliver(3, h.udp(3, REMOTE + 1, { sport: 0xc000 + f }));
  h.run(h.now + 100_000);
  const stats = h.sw.stats(h.now);
  const text = lagLines(stats).map((l) => l.map((s) => s.text).join(""));
  t.match(text[0], /Link aggregation po7 +static, hash/);
  t.match(text[2], /eth1 +active +static .* 10 +100%/);
  t.match(text[3], /eth2 +down .* 0 +0%/);
  const cli = switchDetailLines(stats.detail, false).join("\n");
  t.match(cli, /link aggregation po7 \(static, hash over srcIp, dstIp, srcPort, dstPort\)/);
  t.match(cli, /eth2 +down/);
});
