// ECN over VXLAN in the simulator: h1, h2 -> h5 cross the spines as VXLAN. Spines that mark every ECT
// packet set CE on the outer header; with the ECN overlay it reaches h5's inner header (h5 counts CE-marked
// RoCE packets and sends CNPs, which travel back encapsulated and slow the senders), without it the marks
// are lost at decapsulation. tshark decodes the captured VXLAN frames with RoCEv2 inside.

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

/** p = 1 past one byte of queue 3: every ECT packet that meets any queue there is marked. */
const markAll = { ecn: { queues: { "3": { kmin: 0, kmax: 1, pmax: 1 } } } };

function scenario(ecnOverlay: boolean) {
  return resolveScenario(
    scenarioFile.parse({
      name: "vxlan",
      topology: "vxlan.yaml",
      duration: "400us",
      overrides: {
        hosts: { dcqcn: "nvidia" },
        switches: { overlay: { ecn: ecnOverlay } },
        // Only the spines mark (leaf2's own queue towards h5 would mark the inner header directly).
        nodes: { spine1: markAll, spine2: markAll, leaf2: { ecn: { queues: { "3": null } } } },
      },
      timeline: [
        {
          at: "5us",
          start: { type: "incast", name: "in", to: "h5", from: ["h1", "h2"], size: "1MB", qps: 4 },
        },
      ],
    }),
    "docs/examples/scenario.yaml",
    null,
  );
}

const counter = (r: ReturnType<typeof runScenarioSim>["report"], dev: string, name: string): number =>
  r.devices[dev]!.counters[name] ?? 0;

t.test("a CE set on the outer header in the underlay reaches the receiver's inner header", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "rocelab-vxlan-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const on = runScenarioSim(scenario(true), {
    outDir: dir,
    captures: [
      { node: "spine1", port: 2 },
      { node: "h5", port: 1 },
    ],
  }).report;
  t.equal(on.summary.flowsCompleted, on.summary.flowsTotal, "the incast completes over the overlay");
  t.ok(counter(on, "leaf1", "vxlan_encap_packets") > 0, "leaf1 encapsulates");
  t.ok(counter(on, "leaf2", "vxlan_decap_packets") > 0, "leaf2 decapsulates");
  const spineMarks = on.summary.ecnMarked;
  t.ok(spineMarks > 0, `the underlay marked ${spineMarks} packets`);
  const copied = counter(on, "leaf2", "vxlan_ce_copied");
  t.ok(copied > 0, `leaf2 copied CE into ${copied} inner headers`);
  const h5Marked = counter(on, "h5", "np_ecn_marked_roce_packets");
  t.ok(h5Marked > 0, `h5 saw ${h5Marked} CE-marked RoCE packets`);
  t.ok(
    on.summary.cnpSent > 0 && on.summary.cnpHandled > 0,
    "CNPs went back over the overlay and were handled",
  );

  const off = runScenarioSim(scenario(false)).report;
  t.ok(off.summary.ecnMarked > 0, "without the ECN overlay the underlay still marks");
  t.equal(counter(off, "h5", "np_ecn_marked_roce_packets"), 0, "but no mark reaches h5");
  t.ok(counter(off, "leaf2", "vxlan_ce_lost") > 0, "the marks were lost at decapsulation");
  t.equal(off.summary.cnpSent, 0, "so no CNP is sent");

  // The underlay frames: VXLAN on UDP 4789 with the RoCEv2 packet inside; the host sees plain RoCEv2.
  const fields = async (file: string) => {
    const r = await execa(
      "tshark",
      ["-r", file, "-T", "fields", "-e", "frame.protocols", "-e", "vxlan.vni", "-e", "_ws.malformed"],
      { reject: false },
    );
    t.equal(r.exitCode, 0, `tshark reads ${file}`);
    return r.stdout.trim().split("\n");
  };
  const spine = await fields(captureFile(dir, { node: "spine1", port: 2 }));
  const roce = spine.filter((l) => l.includes("vxlan") && l.includes("infiniband"));
  t.ok(roce.length > 0, `tshark decodes ${roce.length} VXLAN frames with RoCEv2 inside on spine1:eth2`);
  t.ok(
    roce.every((l) => l.split("\t")[1] === "5000"),
    "VNI 5000",
  );
  t.notOk(
    spine.some((l) => l.split("\t")[2]),
    "no malformed frame",
  );
  const check = checkCapture(readFileSync(captureFile(dir, { node: "spine1", port: 2 })));
  t.same(check.problems, [], "pcap-check: inner and outer checksums, lengths and ICRC all valid");
  const host = await fields(captureFile(dir, { node: "h5", port: 1 }));
  t.ok(
    host.some((l) => l.includes("infiniband")) && !host.some((l) => l.includes("vxlan")),
    "h5's port carries plain RoCEv2",
  );
});
