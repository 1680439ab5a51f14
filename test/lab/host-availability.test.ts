// A workload from or to a killed or unreachable host is refused up front, naming the host, in the paced
// simulator lab (the TUI's and `rocelab cli`'s --runtime sim) with the same code the live fleet uses
// (test/live/cli.test.ts drives the live lab).
import t from "tap";
import { hostProblem } from "../../src/lab/host-availability.js";
import { SimLab } from "../../src/lab/sim/sim-lab.js";
import { defaultTopology } from "../../src/scenario/topology.js";

t.test("an incast including a killed host is refused and names it; after a restart it runs", async (t) => {
  const lab = new SimLab({ topology: defaultTopology(), seed: 1 });
  await lab.apply({ kind: "device", node: "h3", running: false });
  await t.rejects(
    lab.apply({ kind: "incast", to: "h8", from: ["h1", "h2", "h3", "h4"], bytes: 100_000 }),
    /workload incast-1 refused, no flow started: h3 is killed \(rocelab inject restart h3\)/,
  );
  await t.rejects(
    lab.apply({ kind: "incast", to: "h3", from: ["h1"], bytes: 100_000 }),
    /h3 is killed/,
    "to a killed host too",
  );
  await lab.apply({ kind: "incast", to: "h8", from: ["h1", "h2"], bytes: 100_000 });
  lab.step(2_000_000);
  await lab.apply({ kind: "device", node: "h3", running: true });
  await lab.apply({ kind: "incast", to: "h8", from: ["h3"], bytes: 100_000 });
  await lab.close();
});

t.test("a host whose link is down, or whose leaf is killed, is unreachable", async (t) => {
  const lab = new SimLab({ topology: defaultTopology(), seed: 1 });
  await lab.apply({ kind: "link", node: "h2", port: 1, up: false });
  await t.rejects(
    lab.apply({ kind: "incast", to: "h8", from: ["h1", "h2"], bytes: 100_000 }),
    /h2 is unreachable: h2:eth1 is down/,
  );
  await lab.apply({ kind: "link", node: "h2", port: 1, up: true });
  await lab.apply({ kind: "device", node: "leaf2", running: false });
  await t.rejects(
    lab.apply({ kind: "incast", to: "h8", from: ["h1"], bytes: 100_000 }),
    /h8 is unreachable: its neighbour leaf2 is killed/,
  );
  await lab.close();
});

t.test("hostProblem: a running host with a running neighbour is fine", (t) => {
  const topo = defaultTopology();
  const up = { status: () => "running", linkDown: () => false };
  t.equal(hostProblem(topo, "h1", up), null);
  t.match(
    hostProblem(topo, "h1", { ...up, status: (n) => (n === "h1" ? "crashed" : "running") }),
    /h1 is crashed/,
  );
  t.end();
});
