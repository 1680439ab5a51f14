// The workloads' traffic matrix names both hosts of every QP pair, whichever way the pair was keyed:
// shared host-pair QPs, a workload's own QPs, and one QP per message (`qpPerMessage`, keyed by flow id).
import t from "tap";
import { FlowDriver } from "../../src/lab/flow-driver.js";
import type { FlowSpec } from "../../src/nic/workloads.js";
import { planAddresses } from "../../src/scenario/address-plan.js";
import { loadScenario } from "../../src/scenario/scenario.js";

t.test("trafficMatrix gives each pair's hosts for every kind of pair key", (t) => {
  const sc = loadScenario("docs/experiments/incast-dcqcn.yaml");
  const commands: string[] = [];
  const driver = new FlowDriver(planAddresses(sc.topology), {
    command: (host, cmd) => {
      commands.push(`${host}:${cmd.type}`);
    },
    schedule: () => {},
  });
  const base = { op: "write", qpIndex: 0, atNs: 0, after: [] } as const;
  const flows: FlowSpec[] = [
    { ...base, id: driver.newId(), src: "h1", dst: "h8", bytes: 1000, workload: "shared" },
    { ...base, id: driver.newId(), src: "h1", dst: "h8", bytes: 500, workload: "shared" },
    { ...base, id: driver.newId(), src: "h2", dst: "h10", bytes: 300, workload: "per-msg", ownQp: true },
    { ...base, id: driver.newId(), src: "h3", dst: "h12", bytes: 200, workload: "w#1", onDemand: true },
  ];
  driver.add(flows);
  const matrix = driver.trafficMatrix().map((p) => `${p.src}>${p.dst}:${p.bytes}`);
  t.same(matrix, ["h1>h8:1500", "h2>h10:300", "h3>h12:200"]);
  t.equal(commands.filter((c) => c.endsWith("create-qp")).length, 6, "two create-qp per pair");
  t.end();
});
