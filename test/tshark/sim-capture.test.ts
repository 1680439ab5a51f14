// `--capture` in the simulator: the pcap of a port holds the real frames both ways, in time order, with
// emulated timestamps; what one end sends is in the other end's file one propagation delay later; tshark
// decodes the RoCEv2 frames with no malformed packet and our own checker accepts them (ICRC included).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { CaptureSpecError, captureFile, parseCaptureList } from "../../src/lab/capture.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { checkCapture } from "../../src/verify/pcap-check.js";
import { parsePcap } from "../../src/wire/pcap.js";

const sc = resolveScenario(
  scenarioFile.parse({
    name: "capture",
    duration: "200us",
    overrides: { hosts: { cc: "none" } },
    timeline: [{ at: "5us", start: { type: "flow", from: "h1", to: "h5", size: "64KB" } }],
  }),
  "capture.yaml",
  null,
);

t.test("the capture list is checked against the topology", (t) => {
  t.same(parseCaptureList("h1:eth1, leaf1:eth1,h1:eth1", sc.topology), [
    { node: "h1", port: 1 },
    { node: "leaf1", port: 1 },
  ]);
  t.throws(() => parseCaptureList("nosuch:eth1", sc.topology), CaptureSpecError);
  t.throws(() => parseCaptureList("h1:eth9", sc.topology), CaptureSpecError);
  t.throws(() => parseCaptureList("h1", sc.topology), CaptureSpecError);
  t.end();
});

t.test("a simulated run writes a pcap per port that tshark decodes", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "rocelab-cap-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const link = sc.topology.links.find((l) => l.a.node === "h1" || l.b.node === "h1")!;
  const leafEnd = link.a.node === "h1" ? link.b : link.a;
  const eps = [{ node: "h1", port: 1 }, leafEnd];
  const { captures } = runScenarioSim(sc, { outDir: dir, captures: eps });
  t.equal(captures.length, 2);
  const h1 = parsePcap(readFileSync(captureFile(dir, eps[0]!)));
  const leaf = parsePcap(readFileSync(captureFile(dir, eps[1]!)));
  if (!h1.ok || !leaf.ok) throw new Error("capture does not parse");
  t.ok(h1.value.nanosecond, "nanosecond timestamps");
  const times = h1.value.records.map((r) => Number(r.tNs));
  t.ok(times.length > 64_000 / 4096, `h1's file holds the flow (${times.length} frames)`);
  t.same(
    times,
    [...times].sort((a, b) => a - b),
    "records are in time order",
  );
  t.ok(
    times.every((x) => x <= 200_000),
    "stamped in emulated ns from the start of the scenario",
  );
  t.equal(h1.value.records.length, leaf.value.records.length, "both ends of one link see the same frames");
  // The first RoCE frame h1 sent is in the leaf's file one delay later, byte for byte.
  const first = h1.value.records.find((r) => r.frame.length > 100)!;
  const there = leaf.value.records.find((r) => Buffer.compare(r.frame, first.frame) === 0)!;
  t.equal(Number(there.tNs - first.tNs), link.delayNs, "received one propagation delay after it was sent");
  const report = checkCapture(readFileSync(captureFile(dir, eps[0]!)));
  t.equal(report.fileError, null);
  t.same(report.problems, [], "pcap-check finds nothing wrong");

  const r = await execa(
    "tshark",
    ["-r", captureFile(dir, eps[0]!), "-T", "fields", "-e", "frame.protocols", "-e", "_ws.malformed"],
    { reject: false },
  );
  t.equal(r.exitCode, 0, "tshark reads the file");
  const lines = r.stdout.trim().split("\n");
  t.ok(
    lines.some((l) => l.includes("infiniband")),
    "tshark decodes RoCEv2 inside",
  );
  t.notOk(
    lines.some((l) => l.split("\t")[1]),
    "no malformed frame",
  );
});
