// `rocelab run --runtime live --capture` writes each port's frames as pcapng with the lab's emulated
// timestamps, as `rocelab capture` does (#40): captured at both ends of a's 1 µs link, each RoCE data packet
// is exactly the link's delay apart, a 256 KB WRITE spans emulated microseconds (not the real seconds the
// live run took at dilation 1000), and the file's comment says what its stamps are. Read by tshark and
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

t.test("run --runtime live --capture: pcapng with emulated timestamps", async (t) => {
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
  const files = { a: join(out, "capture-a-eth1.pcapng"), sw: join(out, "capture-sw-eth1.pcapng") };
  t.match(r.stderr + r.stdout, /frames captured into .*capture-a-eth1\.pcapng/);
  t.match(r.stderr + r.stdout, /timestamps: EMULATED time of lab rcapx/, "the run says what the stamps are");
  t.notOk(existsSync(join(out, "capture-a-eth1.pcap")), "no pcap with real stamps beside it");

  const info = await execa("capinfos", [files.a]);
  t.match(info.stdout, /File type: +Wireshark\/\.\.\. - pcapng/);
  t.match(info.stdout, /Capture comment: +timestamps: EMULATED time of lab rcapx/, "the file says so");
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
  const check = await rl(["pcap-check", files.a]);
  t.equal(check.exitCode, 0, `pcap-check reads the pcapng: ${check.stdout} ${check.stderr}`);
  const ns = await execa("ip", ["netns", "list"]);
  t.notMatch(ns.stdout, new RegExp(`rl-${LAB}-`), "the lab is gone");
});
