// RoCEv1 frames in the simulator, judged by tshark: h1 WRITEs 256 KB to h2 through leaf1's bridge domain
// (docs/examples/rocev1.yaml); the capture on h2's port holds 802.1Q-tagged EtherType 0x8915 frames that
// tshark decodes as InfiniBand (GRH + BTH) with no malformed frame, and pcap-check finds their ICRC valid.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { captureFile } from "../../src/lab/capture.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { checkCapture } from "../../src/verify/pcap-check.js";

t.test("tshark decodes the RoCEv1 frames a WRITE across the bridge sends", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "rocelab-rocev1-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const sc = resolveScenario(
    scenarioFile.parse({
      name: "rocev1",
      topology: "rocev1.yaml",
      duration: "100us",
      overrides: { hosts: { roce: "v1" } },
      timeline: [{ at: "5us", start: { type: "flow", name: "w", from: "h1", to: "h2", size: "256KB" } }],
    }),
    "docs/examples/scenario.yaml",
    null,
  );
  const port = { node: "h2", port: 1 };
  const { report } = runScenarioSim(sc, { outDir: dir, captures: [port] });
  t.equal(report.summary.flowsCompleted, 1, "the WRITE completes");
  const file = captureFile(dir, port);
  const r = await execa(
    "tshark",
    [
      "-r",
      file,
      "-Y",
      "eth.type == 0x8915 || vlan.etype == 0x8915",
      "-T",
      "fields",
      "-e",
      "frame.protocols",
      "-e",
      "vlan.id",
      "-e",
      "vlan.priority",
      "-e",
      "infiniband.bth.opcode",
      "-e",
      "_ws.malformed",
    ],
    { reject: false },
  );
  t.equal(r.exitCode, 0, `tshark reads ${file}: ${r.stderr}`);
  const lines = r.stdout.trim().split("\n").filter(Boolean);
  t.ok(lines.length >= 64, `${lines.length} RoCEv1 frames (64 WRITE packets of 4 KB and their ACKs)`);
  const cols = lines.map((l) => l.split("\t"));
  t.ok(
    cols.every((c) => c[0]!.includes("infiniband")),
    "every one decodes as InfiniBand (GRH + BTH)",
  );
  t.ok(
    cols.every((c) => c[1] === "100" && c[2] === "3"),
    "VLAN 100, PCP 3 (the RoCE priority)",
  );
  t.ok(
    cols.some((c) => c[3] === "6" || c[3] === "7" || c[3] === "8" || c[3] === "10"),
    "RC WRITE opcodes",
  );
  t.notOk(
    cols.some((c) => c[4]),
    "no malformed frame",
  );
  const check = checkCapture(readFileSync(file));
  t.same(check.problems, [], "pcap-check: lengths and ICRC valid");
});
