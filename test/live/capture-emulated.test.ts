// `rocelab capture` stamps frames with the lab's emulated time by default (#40): captured at both ends of
// h1's 1 µs link, the same echo request is exactly the link's delay apart, and h1's request-to-reply gap
// is the emulated round trip (µs), where `--time real` shows the real one (ms at dilation 1000). Read by
// tshark, as Wireshark would.
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { requireRoot, rl, upLab } from "../helpers/live.js";
import { tempDir } from "../helpers/temp-dir.js";

const LAB = "lcap";

/** ICMP echoes of a capture: type, sequence number and the frame's time in ns (as tshark reads it). */
async function echoes(file: string): Promise<{ type: number; seq: number; ns: bigint }[]> {
  const r = await execa("tshark", [
    "-r",
    file,
    "-Y",
    "icmp.type == 8 || icmp.type == 0",
    "-T",
    "fields",
    "-e",
    "icmp.type",
    "-e",
    "icmp.seq",
    "-e",
    "frame.time_epoch",
  ]);
  return r.stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const [type, seq, epoch] = l.split("\t") as [string, string, string];
      const [s, frac = ""] = epoch.split(".");
      return {
        type: Number(type),
        seq: Number(seq),
        ns: BigInt(s!) * 1_000_000_000n + BigInt(frac.padEnd(9, "0").slice(0, 9)),
      };
    });
}

t.test("capture: emulated timestamps by default, real on request", async (t) => {
  requireRoot(t);
  t.teardown(async () => {
    await rl(["down", "--name", LAB]);
  });
  await upLab(t, LAB);
  const dir = tempDir("rocelab-capture-");
  const files = {
    h1: join(dir, "h1.pcapng"),
    leaf1: join(dir, "leaf1.pcapng"),
    real: join(dir, "h1-real.pcapng"),
  };
  const captures = [
    rl(["capture", "h1:eth1", "-w", files.h1, "--seconds", "6", "--name", LAB]),
    rl(["capture", "leaf1:eth3", "-w", files.leaf1, "--seconds", "6", "--name", LAB]),
    rl(["capture", "h1:eth1", "-w", files.real, "--seconds", "6", "--time", "real", "--name", LAB]),
  ];
  await new Promise((r) => setTimeout(r, 2500));
  const ping = await rl(["exec", "h1", "--name", LAB, "--", "ping", "-c", "3", "-i", "0.3", "h8"]);
  t.equal(ping.exitCode, 0, ping.stderr);
  const [h1, leaf1, real] = await Promise.all(captures);
  for (const r of [h1!, leaf1!, real!]) t.equal(r.exitCode, 0, r.stderr);
  t.match(
    h1!.stdout,
    /frames captured on h1:eth1 into .*h1\.pcapng \(pcapng\)\ntimestamps: EMULATED time of lab lcap/,
  );
  t.match(real!.stdout, /timestamps: REAL time/);

  const info = await execa("capinfos", [files.h1]);
  t.match(
    info.stdout,
    /Capture comment: +timestamps: EMULATED time of lab lcap/,
    "the file says what its stamps are",
  );
  t.match(info.stdout, /Strict time order: +True/);

  const atH1 = await echoes(files.h1);
  const atLeaf1 = await echoes(files.leaf1);
  const atReal = await echoes(files.real);
  t.equal(atH1.filter((e) => e.type === 8).length, 3, "3 echo requests on h1:eth1");
  for (const req of atH1.filter((e) => e.type === 8)) {
    const there = atLeaf1.find((e) => e.type === 8 && e.seq === req.seq);
    t.equal(
      there === undefined ? null : Number(there.ns - req.ns),
      1000,
      `seq ${req.seq}: leaf1 saw it 1 µs (the link's delay) after h1 sent it`,
    );
    const reply = atH1.find((e) => e.type === 0 && e.seq === req.seq);
    const rtt = reply === undefined ? -1 : Number(reply.ns - req.ns);
    t.ok(
      rtt >= 8000 && rtt < 50_000,
      `seq ${req.seq}: emulated round trip ${rtt} ns (8 links of 1 µs and more)`,
    );
    const realReq = atReal.find((e) => e.type === 8 && e.seq === req.seq);
    const realReply = atReal.find((e) => e.type === 0 && e.seq === req.seq);
    const realRtt = realReq && realReply ? Number(realReply.ns - realReq.ns) : -1;
    t.ok(realRtt > 1_000_000, `seq ${req.seq}: the kernel saw ${realRtt} ns real (dilation 1000)`);
  }
  const check = await rl(["pcap-check", files.h1]);
  t.equal(check.exitCode, 0, `pcap-check reads the pcapng: ${check.stdout} ${check.stderr}`);
});
