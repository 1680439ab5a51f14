// A live lab's workloads: flows are generated from the time the workload was asked to start at (not when
// the request arrived), and each flow's post reaches its NIC ahead of its time carrying that time, so the
// NIC starts it on its own clock; a post handed over late still carries the time it was due.
import t from "tap";
import { FleetTraffic } from "../../../src/lab/live/fleet-traffic.js";
import type { NicCommand } from "../../../src/nic/commands.js";
import type { WorkloadSpec } from "../../../src/nic/workloads.js";
import { planAddresses } from "../../../src/scenario/address-plan.js";
import { defaultTopology } from "../../../src/scenario/topology.js";

const TOPO = defaultTopology();

const WRITE: WorkloadSpec = {
  name: "w",
  type: "flow",
  op: "write",
  qps: 1,
  repeat: 1,
  intervalNs: 0,
  from: "h1",
  to: "h2",
  bytes: 4096,
};

function traffic(clock: { now: number }) {
  const sent: { host: string; cmd: NicCommand; now: number }[] = [];
  const fleet = new FleetTraffic(TOPO, planAddresses(TOPO), 1, {
    now: () => clock.now,
    realMsUntilIn: () => 1,
    aheadNs: () => 10_000,
    command: (host, cmd) => sent.push({ host, cmd, now: clock.now }),
  });
  return { fleet, sent, posts: () => sent.filter((s) => s.cmd.type === "post") };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test("a workload asked to start later is posted ahead, at its own time", async (t) => {
  const clock = { now: 1_000 };
  const { fleet, sent, posts } = traffic(clock);
  t.same(fleet.startWorkload(WRITE, "workload:w", 50_000), { name: "w", flows: 1 });
  t.same(
    sent.map((s) => `${s.host} ${s.cmd.type}`),
    ["h1 create-qp", "h2 create-qp"],
    "the QPs at once, the post not yet (40 µs before its time)",
  );
  clock.now = 39_000;
  await tick(5);
  t.same(posts(), [], "still more than the lead ahead");
  clock.now = 40_000;
  await tick(20);
  const [post] = posts();
  t.equal(post?.host, "h1");
  t.match(post?.cmd, { type: "post", op: "write", bytes: 4096, at: 50_000 }, "carries the time it starts at");
  t.equal(post?.now, 40_000, "handed over one lead ahead of it");
});

t.test(
  "a workload without a time starts one lead after now; a late post still carries its time",
  async (t) => {
    const clock = { now: 7_000 };
    const { fleet, posts } = traffic(clock);
    fleet.startWorkload(WRITE, "workload:w");
    t.match(posts()[0]?.cmd, { type: "post", at: 17_000 }, "posted at once, to start together on every NIC");
    const late = traffic({ now: 90_000 });
    late.fleet.startWorkload(WRITE, "workload:w", 50_000);
    t.match(late.posts()[0]?.cmd, { type: "post", at: 50_000 }, "the NIC counts it late (posts_late)");
  },
);
