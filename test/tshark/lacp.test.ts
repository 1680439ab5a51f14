// The outside judge for LACP: the LACPDUs two simulated switches really exchange over a 4-member group
// (docs/examples/lag.yaml), captured on a member, decode in Wireshark's tshark as Slow Protocols / LACP
// version 1 with the actor and partner the switches are, no malformed frame and no expert warning; the
// conversation ends with both ends collecting and distributing.

import { readFileSync } from "node:fs";
import { execa } from "execa";
import t from "tap";
import { captureFile } from "../../src/lab/capture.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { parsePcap } from "../../src/wire/pcap.js";
import { tempDir } from "../helpers/temp-dir.js";

t.test("tshark decodes the LACPDUs of an aggregated group without warnings", async (t) => {
  const version = await execa("tshark", ["--version"], { reject: false });
  t.equal(version.exitCode, 0, "tshark runs (installed by the project's set-up)");
  const dir = tempDir("lacp-");
  const sc = resolveScenario(
    scenarioFile.parse({
      name: "lacp",
      topology: "lag.yaml",
      duration: "2500ms",
      timeline: [
        { at: "100us", start: { type: "incast", name: "in", to: "h5", from: ["h1"], size: "64KB" } },
      ],
    }),
    "docs/examples/lacp-test.yaml",
    null,
  );
  const { report } = runScenarioSim(sc, { outDir: dir, captures: [{ node: "leaf1", port: 2 }] });
  t.equal(report.summary.flowsCompleted, report.summary.flowsTotal, "traffic crosses the group");
  const file = captureFile(dir, { node: "leaf1", port: 2 });
  const pcap = parsePcap(readFileSync(file));
  if (!pcap.ok) throw new Error(pcap.error.message);
  const lacpFrames = pcap.value.records.filter((r) => r.frame[12] === 0x88 && r.frame[13] === 0x09);
  // The group agreed in the bring-up, before time 0 (run/bring-up.ts), where a capture does not look.
  t.ok(lacpFrames.length >= 4, `a PDU a second both ways (${lacpFrames.length})`);
  const fields = [
    "frame.protocols",
    "slow.subtype",
    "lacp.version",
    "lacp.actor.sysid",
    "lacp.actor.key",
    "lacp.actor.port",
    "lacp.actor.state",
    "lacp.partner.sysid",
    "lacp.partner.port",
    "lacp.partner.state",
    "_ws.malformed",
    "_ws.expert.severity",
  ];
  const r = await execa("tshark", [
    "-r",
    file,
    "-Y",
    "slow",
    "-T",
    "fields",
    "-E",
    "separator=|",
    ...fields.flatMap((f) => ["-e", f]),
  ]);
  const rows = r.stdout
    .trim()
    .split("\n")
    .map((l) => l.split("|"));
  t.equal(rows.length, lacpFrames.length, "every Slow Protocols frame is decoded");
  for (const row of rows) {
    t.equal(row[0], "eth:ethertype:slow:lacp", "Slow Protocols, LACP");
    t.same([row[1], row[2]], ["0x01", "0x01"], "subtype LACP, version 1");
    t.equal(row[4], "1", "key: the group's");
    t.equal(row[5], "2", "actor port: the member's number");
    t.same([row[10], row[11]], ["", ""], "not malformed, no expert message");
  }
  const last = rows.at(-1)!;
  // 0x3f: activity, short timeout, aggregation, synchronization, collecting, distributing.
  t.same([last[6], last[9]], ["0x3f", "0x3f"], "both ends collecting and distributing");
  t.not(last[3], last[7], "actor and partner are two systems");
});
