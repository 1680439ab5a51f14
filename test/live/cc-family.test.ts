// Live: the congestion-control family on real frames through a switch process (docs/int.md,
// docs/experiments/cc-family.md). One lab (one switch, h1 and h2 sending to h3), three phases of one
// scenario: a 2:1 incast under HPCC with INT on the switch, then the hosts switch to TIMELY, then to DCTCP,
// each phase's incast completing. The capture at h3 has the data packets the switch stamped (P4.org INT-MD
// blocks, one hop record each), the ACKs echoing them and TIMELY's timestamps; pcap-check decodes them
// with the ICRC valid and tshark still decodes every RoCE header. Each algorithm asks for an ACK per
// data packet itself, as HPCC's ns-3 acknowledges (no ackReqEvery setting).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { IntCounter } from "../../src/switch/features/int.js";
import { guardLab, requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "ccfx";
const PHASES = [
  ["hpcc", "10us"],
  ["timely", "210us"],
  ["dctcp", "410us"],
] as const;

function writeScenario(dir: string): string {
  writeFileSync(
    join(dir, "star.yaml"),
    [
      "name: star",
      "description: one switch, three hosts; 100 Gb/s links, 1 us delay",
      "defaults:",
      "  link: { rate: 100G, delay: 1us }",
      "nodes:",
      "  sw1: { kind: switch }",
      "  h1: { kind: host }",
      "  h2: { kind: host }",
      "  h3: { kind: host }",
      "links:",
      "  - [h1:eth1, sw1:eth1]",
      "  - [h2:eth1, sw1:eth2]",
      "  - [h3:eth1, sw1:eth3]",
      "",
    ].join("\n"),
  );
  const timeline = PHASES.flatMap(([cc, at], i) => [
    ...(i === 0 ? [] : [`  - at: ${Number.parseInt(at, 10) - 10}us`, `    set: { hosts: { cc: ${cc} } }`]),
    `  - at: ${at}`,
    `    start: { type: incast, name: ${cc}, to: h3, from: [h1, h2], size: 256KB }`,
  ]);
  const file = join(dir, "cc-family.yaml");
  writeFileSync(
    file,
    [
      "name: live-cc-family",
      "description: a 2:1 incast under HPCC with INT, then TIMELY, then DCTCP",
      "topology: star.yaml",
      "seed: 1",
      "duration: 600us",
      "overrides:",
      "  hosts: { cc: hpcc }",
      "  switches: { int: { enabled: true } }",
      "timeline:",
      ...timeline,
      "",
    ].join("\n"),
  );
  return file;
}

t.test("HPCC with INT, TIMELY and DCTCP each complete an incast on a live lab", async (t) => {
  guardLab(LAB);
  const dir = t.testdir({});
  const out = join(dir, "out");
  const run = ["run", writeScenario(dir), "--runtime", "live", "--name", LAB, "--out", out];
  const r = await rl([...run, "--capture", "h3:eth1"], 120_000);
  t.equal(r.exitCode, 0, r.stderr);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Report;
  for (const [cc] of PHASES) {
    const flows = report.flows.filter((f) => f.workload === cc);
    t.equal(flows.length, 2, `${cc}: two flows`);
    t.ok(
      flows.every((f) => f.outcome === "completed"),
      `${cc}: both complete (${flows.map((f) => f.outcome).join(", ")})`,
    );
  }
  t.equal(report.devices.h3!.counters.payload_mismatch ?? 0, 0, "every byte as sent");
  const ports = Object.values(report.devices.sw1!.ports ?? {});
  const sum = (name: string) => ports.reduce((a, p) => a + ((p[name] as number | undefined) ?? 0), 0);
  t.ok(sum(IntCounter.stamped.name) > 0, "the switch wrote hop records");
  t.equal(sum(IntCounter.full.name), 0, "and always found a slot");

  const pcap = join(out, "capture-h3-eth1.pcap");
  const check = await rl(["pcap-check", pcap], 60_000);
  t.equal(check.exitCode, 0, check.stdout + check.stderr);
  const m = /INT: (\d+) collecting, (\d+) echoing, (\d+) timestamped packets; (\d+) hop records/.exec(
    check.stdout,
  );
  t.ok(m !== null, check.stdout);
  const [collecting, echoing, timestamped, hops] = [1, 2, 3, 4].map((i) => Number(m?.[i])) as [
    number,
    number,
    number,
    number,
  ];
  // 2 × 256,000 bytes in 4,096-byte packets: 126 data packets per phase, an ACK for each (the algorithms ask for it).
  t.ok(
    collecting >= 126 && echoing >= 126,
    `HPCC: ${collecting} data packets and ${echoing} ACKs carry INT-MD`,
  );
  t.equal(hops, collecting + echoing, "one hop record (the switch's) in each");
  t.equal(timestamped, 2 * 126, `TIMELY: its ${timestamped} data packets and ACKs carry the send time`);
  const tshark = await execa("tshark", ["-r", pcap, "-T", "fields", "-e", "frame.protocols"]);
  const roce = tshark.stdout.split("\n").filter((l) => l.startsWith("eth:ethertype:ip:udp:infiniband"));
  t.ok(
    roce.length >= collecting + echoing + timestamped + 2 * 126,
    `tshark decodes ${roce.length} RoCEv2 frames (DCTCP's without INT included)`,
  );
});
