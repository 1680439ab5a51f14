// `rocelab run --runtime live --capture` writes each port's frames as the simulator does (#40, #37): a
// nanosecond pcap stamped in the scenario's emulated ns since its time 0, from the devices' own frame times.
// Captured at both ends of a's 1 µs link, each RoCE data packet is exactly the link's delay apart, a 256 KB
// WRITE spans emulated microseconds (not the real seconds the live run took at dilation 1000), and the data
// packets leave a at the nanoseconds the simulator's capture of the same scenario says. Read by tshark and
// capinfos, as Wireshark would.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "rcapx";

/** RoCE data packets of a capture from a to b: "destQP/PSN" -> the frame's time in ns (as tshark reads it). */
async function dataPackets(file: string): Promise<Map<string, bigint>> {
  const r = await execa("tshark", [
    "-r",
    file,
    "-d",
    "udp.port==4791,infiniband",
    "-Y",
    "infiniband.bth.opcode == 6 || infiniband.bth.opcode == 7 || infiniband.bth.opcode == 8",
    "-T",
    "fields",
    "-e",
    "infiniband.bth.destqp",
    "-e",
    "infiniband.bth.psn",
    "-e",
    "frame.time_epoch",
  ]);
  const out = new Map<string, bigint>();
  for (const l of r.stdout.split("\n").filter((x) => x !== "")) {
    const [qp, psn, epoch] = l.split("\t") as [string, string, string];
    const [s, frac = ""] = epoch.split(".");
    out.set(`${qp}/${psn}`, BigInt(s!) * 1_000_000_000n + BigInt(frac.padEnd(9, "0").slice(0, 9)));
  }
  return out;
}

t.test("run --runtime live --capture: the simulator's format and clock", async (t) => {
  const dir = t.testdir({});
  const scenario = join(dir, "capture.yaml");
  writeFileSync(
    scenario,
    [
      "name: live-capture",
      "duration: 300us",
      "sample: 50us",
      "topology:",
      "  nodes: { sw: { kind: switch }, a: { kind: host }, b: { kind: host } }",
      '  links: [["a:eth1", "sw:eth1"], ["b:eth1", "sw:eth2"]]',
      "timeline:",
      "  - at: 20us",
      "    start: { type: flow, from: a, to: b, size: 256KB }",
      "",
    ].join("\n"),
  );
  const out = join(dir, "out");
  const started = Date.now();
  const r = await rl(
    [
      "run",
      scenario,
      "--runtime",
      "live",
      "--name",
      LAB,
      "--capture",
      "a:eth1,sw:eth1",
      "--out",
      out,
      "--no-metrics",
    ],
    180_000,
  );
  const realMs = Date.now() - started;
  t.equal(r.exitCode, 0, r.stderr);
  const files = { a: join(out, "capture-a-eth1.pcap"), sw: join(out, "capture-sw-eth1.pcap") };
  t.match(
    r.stderr + r.stdout,
    /frames captured into .*capture-a-eth1\.pcap \(emulated ns since the scenario's time 0/,
    "the run says what the stamps are",
  );
  t.notOk(existsSync(join(out, "capture-a-eth1.pcapng")), "one file per port");

  const info = await execa("capinfos", [files.a]);
  t.match(info.stdout, /File encapsulation: +Ethernet/);
  t.match(info.stdout, /Strict time order: +True/);

  const atA = await dataPackets(files.a);
  const atSw = await dataPackets(files.sw);
  t.equal(atA.size, Math.ceil(256_000 / 4096), "a sent every data packet of 256 KB at the 4096-byte MTU");
  let exact = 0;
  for (const [key, sent] of atA) if (atSw.get(key) !== undefined && atSw.get(key)! - sent === 1000n) exact++;
  t.equal(exact, atA.size, "every data packet arrived at sw exactly 1 µs (the link's delay) after a sent it");
  const times = [...atA.values()].sort((x, y) => (x < y ? -1 : 1));
  const spanNs = Number(times.at(-1)! - times[0]!);
  // 256 KB at 100 Gb/s is 21 µs on the wire; the real run took far longer at dilation 1000.
  t.ok(
    spanNs >= 20_000 && spanNs < 1_000_000,
    `the WRITE spans ${spanNs} ns emulated (the run took ${realMs} ms real)`,
  );
  t.ok(
    times[0]! >= 20_000n && times[0]! < 30_000n,
    `the first data packet after the flow's start: ${times[0]} ns`,
  );
  const check = await rl(["pcap-check", files.a]);
  t.equal(check.exitCode, 0, `pcap-check reads it: ${check.stdout} ${check.stderr}`);

  // The same scenario in the simulator: its capture of a:eth1 has the same data packets at the same ns.
  const simOut = join(dir, "sim");
  const sim = await rl(["run", scenario, "--capture", "a:eth1", "--out", simOut, "--quiet"], 120_000);
  t.equal(sim.exitCode, 0, sim.stderr);
  const simA = await dataPackets(join(simOut, "capture-a-eth1.pcap"));
  let same = 0;
  for (const [key, at] of atA) if (simA.get(key) === at) same++;
  t.equal(
    same,
    atA.size,
    `every data packet leaves a at the simulator's nanosecond (${same} of ${atA.size})`,
  );
  const ns = await execa("ip", ["netns", "list"]);
  t.notMatch(ns.stdout, new RegExp(`rl-${LAB}-`), "the lab is gone");
});
