// pcapng as rocelab writes it (wire/pcapng.ts): read back by our reader and by tshark, with the section's
// comment, the interface's name, nanosecond stamps and each frame's direction.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { PacketDirection, parsePcapng, serializePcapng } from "../../src/wire/pcapng.js";
import { tempDir } from "../helpers/temp-dir.js";

const frame = (n: number, fill: number) => {
  const f = new Uint8Array(n).fill(fill);
  f.set([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x88, 0xb5]);
  return f;
};

const packets = [
  { frame: frame(60, 1), tNs: 1_000, direction: PacketDirection.Outbound },
  { frame: frame(61, 2), tNs: 2_001, direction: PacketDirection.Inbound },
  { frame: frame(1086, 3), tNs: 5_000_000_123n },
];
const bytes = serializePcapng(
  "timestamps: EMULATED",
  { name: "h1:eth1", description: "d", linkType: 1, snapLength: 65535 },
  packets,
);

t.test("our reader gets back what was written", async (t) => {
  const p = parsePcapng(bytes);
  t.ok(p.ok);
  if (!p.ok) return;
  t.same(p.value.comments, ["timestamps: EMULATED"]);
  t.same(p.value.interfaces, [{ name: "h1:eth1", tsResolNs: 1 }]);
  t.same(
    p.value.records.map((r) => [r.tNs, r.frame.length, r.originalLength]),
    [
      [1000n, 60, 60],
      [2001n, 61, 61],
      [5_000_000_123n, 1086, 1086],
    ],
  );
  t.same([...p.value.records[1]!.frame], [...packets[1]!.frame]);
  t.notOk(parsePcapng(bytes.subarray(0, bytes.length - 3)).ok, "a cut file is refused");
});

t.test("tshark reads the stamps to the nanosecond, the direction and the comment", async (t) => {
  const file = join(tempDir("rocelab-pcapng-"), "x.pcapng");
  writeFileSync(file, bytes);
  const r = await execa(
    "tshark",
    ["-r", file, "-T", "fields", "-e", "frame.time_delta", "-e", "frame.len", "-e", "frame.p2p_dir"],
    {
      reject: false,
    },
  );
  t.equal(r.exitCode, 0, r.stderr);
  const rows = r.stdout
    .trim()
    .split("\n")
    .map((l) => l.split("\t"));
  t.same(
    rows.map((x) => x[0]),
    ["0.000000000", "0.000001001", "4.999998122"],
  );
  t.same(
    rows.map((x) => x[1]),
    ["60", "61", "1086"],
  );
  const info = await execa("capinfos", [file], { reject: false });
  t.match(info.stdout, /Capture comment: +timestamps: EMULATED/);
  t.match(info.stdout, /Name = h1:eth1/);
  const dirs = await execa("tshark", ["-r", file, "-T", "fields", "-e", "frame.packet_flags_direction"], {
    reject: false,
  });
  t.same(
    dirs.stdout.split("\n").slice(0, 3),
    ["0x00000002", "0x00000001", ""],
    "epb_flags: outbound, inbound, none",
  );
});
