// `rocelab up --int-room` on a real lab: the ports come up with room for HPCC's INT block (path MTU + 128 +
// 164 bytes), and a lab started with DCQCN then takes `set hosts cc: hpcc` (without the option it refuses:
// test/lab/live/port-mtu.test.ts). Lab name h41i (unique to this file); torn down, also when an assertion
// fails.
import t from "tap";
import { LiveLab } from "../../src/lab/live/live-lab.js";
import { hostChange } from "../../src/scenario/settings-layers.js";
import { nicStatsOf, pollUntil, requireRoot, rl, upLab } from "../helpers/live.js";

requireRoot(t);

const LAB = "h41i";

t.teardown(async () => {
  await rl(["down", "--name", LAB]);
});

t.test("up --int-room: ports sized for HPCC, cc: hpcc switched on later, a flow completes", async (t) => {
  await upLab(t, LAB, undefined, ["--int-room"]);
  for (const [node, port] of [
    ["h1", "eth1"],
    ["leaf1", "eth1"],
  ] as const) {
    const ip = await rl(["exec", node, "--name", LAB, "--", "ip", "-o", "link", "show", port]);
    t.match(ip.stdout, /mtu 4388 /, `${node}:${port}: MTU 4096 + 128 + 164`);
  }
  const lab = await LiveLab.connect(LAB);
  t.teardown(() => lab.close());
  await lab.apply({ kind: "set", change: hostChange({ cc: "hpcc" }) });
  await lab.apply({ kind: "incast", to: "h8", from: ["h1"], bytes: 256_000 });
  const completed = (s: Awaited<ReturnType<typeof nicStatsOf>>) =>
    s.detail.flows.some((f) => f.status === "success" && f.bytes === 256_000);
  const s = await pollUntil(() => nicStatsOf(LAB, "h1"), completed, 60_000);
  t.ok(completed(s), "h1's 256 KB write to h8 completed under HPCC");
  const qp = s.detail.qps.find((q) => q.windowBytes > 0);
  t.ok(qp, "its QP runs HPCC (a window)");
});
