// Live: a 4-member LACP group between two leaves (docs/examples/lag-incast.yaml) on a lab of its own
// (lagx). The switches exchange LACPDUs over the veths, every member ends up collecting and distributing,
// the incast crosses the group spread over its members and completes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "lagx";

t.test("an LACP group comes up and carries an incast on a live lab", async (t) => {
  const out = join(t.testdir({}), "out");
  const r = await rl(
    ["run", "docs/examples/lag-incast.yaml", "--runtime", "live", "--name", LAB, "--out", out],
    240_000,
  );
  t.equal(r.exitCode, 0, r.stderr);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Report;
  t.equal(report.summary.flowsCompleted, report.summary.flowsTotal, "the incast completes");
  for (const sw of ["leaf1", "leaf2"]) {
    const ports = report.devices[sw]!.ports!;
    for (const p of ["eth1", "eth2", "eth3", "eth4"]) {
      t.equal(ports[p]!.lag_member_active, 1, `${sw}:${p} collects and distributes`);
      t.ok((ports[p]!.lacp_rx_pdus ?? 0) > 0, `${sw}:${p} heard its partner`);
    }
    t.match(report.devices[sw]!.lag?.po1, /^lacp hash: eth1 active, eth2 active, eth3 active, eth4 active$/);
  }
  const used = ["eth1", "eth2", "eth3", "eth4"].filter(
    (p) => (report.devices.leaf1!.ports![p]!.lag_member_frames ?? 0) > 0,
  );
  t.ok(used.length >= 2, `the 16 QPs are spread over ${used.length} members`);
});
