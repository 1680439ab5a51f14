// `connect: on-demand` in the simulator: the NICs connect each burst with RDMA CM on the wire (REQ, REP,
// RTU to QP1, then DREQ, DREP once the work is done), in that order, before and after the data; pcap-check
// and tshark accept the capture; the set-up time is part of the flow's FCT.
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
import { CM_ATTR_NAMES, parseCmDatagram, UD_SEND_ONLY } from "../../src/wire/cm-mad.js";
import { parsePcap } from "../../src/wire/pcap.js";

const scenario = (connect: "pre" | "on-demand") =>
  resolveScenario(
    scenarioFile.parse({
      name: `cm-${connect}`,
      duration: "300us",
      overrides: { hosts: { cc: "none" } },
      timeline: [
        {
          at: "5us",
          start: { type: "flow", from: "h1", to: "h5", size: "64KB", repeat: 2, interval: "100us", connect },
        },
      ],
    }),
    "cm.yaml",
    null,
  );

t.test("on demand: REQ REP RTU, data, DREQ DREP per burst, judged by pcap-check and tshark", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "rocelab-cm-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ep = { node: "h1", port: 1 };
  const run = runScenarioSim(scenario("on-demand"), { outDir: dir, captures: [ep] });
  const pcap = readFileSync(captureFile(dir, ep));
  const parsed = parsePcap(pcap);
  if (!parsed.ok) throw new Error("capture does not parse");
  const seq: string[] = [];
  for (const r of parsed.value.records) {
    const bth = 14 + 20 + 8;
    if (r.frame.length > bth && r.frame[bth] === UD_SEND_ONLY) {
      const m = parseCmDatagram(r.frame, bth, r.frame.length);
      seq.push(m.ok ? CM_ATTR_NAMES[m.value.message.attr]! : "bad");
    } else if (r.frame.length > 1000 && seq.at(-1) !== "data") seq.push("data");
  }
  t.same(seq, ["REQ", "REP", "RTU", "data", "DREQ", "DREP", "REQ", "REP", "RTU", "data", "DREQ", "DREP"]);
  const report = checkCapture(pcap);
  t.same(report.problems, [], "pcap-check finds nothing wrong");
  t.equal(report.counts.cm, 10);
  const r = await execa(
    "tshark",
    [
      "-r",
      captureFile(dir, ep),
      "-Y",
      "infiniband.mad",
      "-T",
      "fields",
      "-e",
      "infiniband.mad.attributeid",
      "-e",
      "_ws.expert.severity",
      "-e",
      "_ws.malformed",
    ],
    { reject: false },
  );
  t.equal(r.exitCode, 0);
  const rows = r.stdout.split("\n").filter((l) => l.length > 0);
  t.equal(rows.length, 10, "tshark sees the ten MADs");
  t.ok(
    rows.every((l) =>
      l
        .split("\t")
        .slice(1)
        .every((c) => c === ""),
    ),
    "no expert info, nothing malformed",
  );
  const pre = runScenarioSim(scenario("pre"), {});
  const fct = (flows: readonly { fctNs: number | null }[]) => flows.map((f) => f.fctNs!);
  const od = fct(run.report.flows);
  const pc = fct(pre.report.flows);
  t.equal(od.length, 2);
  t.ok(
    od.every((x, i) => x > pc[i]!),
    `connection set-up is in the FCT (${od} vs ${pc} ns)`,
  );
});
