// Live: ECN over VXLAN and `run --capture` on a lab of its own (h15x). The spines mark every ECT packet of
// queue 3, leaf2 does not mark: every CE the receiver sees was set on an outer header and copied in at
// decapsulation, and the CNPs went back through the tunnels. The capture of a spine port holds VXLAN frames
// that tshark decodes with RoCEv2 inside and that pcap-check finds clean.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "h15x";

t.test("VXLAN with the ECN overlay, captured, on a live lab", async (t) => {
  const dir = t.testdir({});
  const scenario = join(dir, "vxlan.yaml");
  const markAll = '{ ecn: { queues: { "3": { kmin: 0, kmax: 1, pmax: 1 } } } }';
  writeFileSync(
    scenario,
    [
      "name: live-vxlan",
      `topology: ${join(process.cwd(), "docs/examples/vxlan.yaml")}`,
      "duration: 2ms",
      "sample: 100us",
      "overrides:",
      "  hosts: { dcqcn: nvidia }",
      "  nodes:",
      `    spine1: ${markAll}`,
      `    spine2: ${markAll}`,
      '    leaf2: { ecn: { queues: { "3": null } } }',
      "timeline:",
      "  - at: 10us",
      "    start: { type: incast, name: in, to: h5, from: [h1, h2], size: 1MB, qps: 4 }",
      "",
    ].join("\n"),
  );
  const out = join(dir, "out");
  const r = await rl(
    ["run", scenario, "--runtime", "live", "--name", LAB, "--capture", "spine1:eth2,h5:eth1", "--out", out],
    180_000,
  );
  t.equal(r.exitCode, 0, r.stderr);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Report;
  const c = (d: string, n: string) => report.devices[d]!.counters[n] ?? 0;
  t.equal(report.summary.flowsCompleted, report.summary.flowsTotal, "the incast completed over the overlay");
  t.ok(c("leaf1", "vxlan_encap_packets") > 0 && c("leaf2", "vxlan_decap_packets") > 0, "encap and decap");
  t.ok(
    c("leaf2", "vxlan_ce_copied") > 0,
    `outer CE copied into ${c("leaf2", "vxlan_ce_copied")} inner headers`,
  );
  t.ok(c("h5", "np_ecn_marked_roce_packets") > 0, "h5 saw the marks");
  t.ok(report.summary.cnpHandled > 0, "CNPs came back through the tunnels");
  const spine = join(out, "capture-spine1-eth2.pcap");
  const tshark = await execa("tshark", [
    "-r",
    spine,
    "-T",
    "fields",
    "-e",
    "frame.protocols",
    "-e",
    "vxlan.vni",
  ]);
  const vx = tshark.stdout.split("\n").filter((l) => l.includes("vxlan") && l.includes("infiniband"));
  t.ok(vx.length > 0, `tshark decodes ${vx.length} VXLAN frames with RoCEv2 inside`);
  const check = await rl(["pcap-check", spine]);
  t.equal(check.exitCode, 0, check.stdout);
  const ns = await execa("ip", ["netns", "list"]);
  t.notMatch(ns.stdout, new RegExp(`rl-${LAB}-`), "the lab is gone");
});
