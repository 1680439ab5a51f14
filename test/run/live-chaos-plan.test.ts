// The plan and the judge of live chaos, without a lab: kills are seeded, spines first, one node once, each
// inside its slice of the traffic time and restarted later; the judge names every way a run can fail.
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { judgeLiveChaos, type KillRecord, planKills } from "../../src/run/live-chaos.js";
import { defaultTopology } from "../../src/scenario/topology.js";

const opts = { seed: 7, trafficNs: 1_000_000, flaps: 0, changes: 0, kills: 3 };

t.test("kills: seeded, spines first, never twice, restarted inside the run", async (t) => {
  const a = planKills(defaultTopology(), opts);
  t.same(a, planKills(defaultTopology(), opts), "the same seed, the same plan");
  t.notSame(a, planKills(defaultTopology(), { ...opts, seed: 8 }), "another seed, another plan");
  t.same(
    a
      .slice(0, 2)
      .map((k) => k.node)
      .sort(),
    ["spine1", "spine2"],
    "both spines before any host",
  );
  t.equal(a[2]!.kind, "nic");
  t.equal(new Set(a.map((k) => k.node)).size, 3);
  a.forEach((k, i) => {
    t.ok(k.atNs >= (i * 1_000_000) / 3 && k.atNs < ((i + 1) * 1_000_000) / 3, `${k.node} dies in slice ${i}`);
    t.ok(k.restartAtNs! > k.atNs, `${k.node} is restarted after it died`);
  });
  t.ok(planKills(defaultTopology(), { ...opts, restart: false }).every((k) => k.restartAtNs === null));
});

t.test("the judge names an unreported death, a failed restart, lost messages and leftovers", async (t) => {
  const plans = planKills(defaultTopology(), { ...opts, kills: 2 });
  const kills: KillRecord[] = [
    {
      ...plans[0]!,
      pid: 1,
      reported: "crashed",
      event: "process crashed (exit code none, signal SIGKILL)",
      restarted: { status: "running", restarts: 1 },
    },
    { ...plans[1]!, pid: 2, reported: "running", event: null, restarted: null },
  ];
  const report = {
    summary: { flowsCompleted: 1, flowsTotal: 3, drops: { lossless: 0, lossy: 0 }, retransmits: 0 },
    flows: [
      { src: "h1", dst: "h5", endNs: 10, outcome: "completed" },
      { src: "h2", dst: "h6", endNs: null, outcome: "unfinished" },
      { src: "h3", dst: "h7", endNs: null, outcome: "unfinished" },
    ],
    devices: {},
  } as unknown as Report;
  const p = judgeLiveChaos(
    report,
    plans,
    kills,
    { namespaces: ["rl-x-h1"], processes: [42], stateDir: true },
    new Set(["h3"]),
  );
  const text = p.join("\n");
  t.match(text, new RegExp(`${plans[1]!.node}: the supervisor reported running after SIGKILL`));
  t.match(text, new RegExp(`${plans[1]!.node}: no event named the SIGKILL`));
  t.match(text, new RegExp(`${plans[1]!.node}: not running again after the restart`));
  t.match(
    text,
    /1 of 2 messages between surviving hosts did not complete/,
    "h3's message does not count: h3 died",
  );
  t.match(text, /down left namespaces: rl-x-h1/);
  t.match(text, /down left processes: 42/);
  t.match(text, /down left the state directory/);
  t.notMatch(text, new RegExp(`${plans[0]!.node}:`), "the well-reported kill is fine");
});
