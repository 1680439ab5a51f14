// The outside judge: Wireshark's tshark decodes the frame catalog, and every frame must come out as the
// protocol it was built to be, with the field values the catalog expects, no malformed frame and no expert
// error. tshark is part of the project's set-up; when it is missing this test fails (never skips).

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { execa } from "execa";
import t from "tap";
import { registerFramesCommand } from "../../src/cli/frames-command.js";
import type { CommandIo } from "../../src/cli/pcap-check-command.js";
import { buildFrameCatalog, type FrameExpectation } from "../../src/verify/frame-catalog.js";
import { checkCapture } from "../../src/verify/pcap-check.js";
import { parsePcap, serializePcap } from "../../src/wire/pcap.js";

const MISSING =
  "tshark is not installed (or not on PATH): run `node scripts/setup` as root, which installs it; " +
  "these tests need an outside decoder and must not pass without one";

/** Wireshark's expert severities (epan/proto.h): PI_WARN and PI_ERROR. */
const PI_WARN = 0x00600000;
const PI_ERROR = 0x00800000;

const catalog = buildFrameCatalog();

/** tshark's version line, or null when it cannot be run at all. */
async function tsharkVersion(): Promise<string | null> {
  const r = await execa("tshark", ["--version"], { reject: false });
  if (r.failed || r.exitCode !== 0) return null;
  return r.stdout.split("\n")[0] ?? "";
}

/** Fields read from every frame; `-E occurrence=a` gives every occurrence, comma-separated. */
const FIELDS = [
  "frame.number",
  "frame.protocols",
  "_ws.expert.severity",
  "_ws.expert.message",
  "_ws.malformed",
  "vlan.priority",
  "vlan.id",
  "ip.dsfield.dscp",
  "ip.dsfield.ecn",
  "ip.ttl",
  "infiniband.bth.opcode",
  "infiniband.bth.destqp",
  "infiniband.bth.psn",
  "infiniband.bth.a",
  "infiniband.bth.padcnt",
  "infiniband.bth.p_key",
  "infiniband.reserved",
  "infiniband.aeth.syndrome",
  "infiniband.aeth.msn",
  "infiniband.reth.r_key",
  "infiniband.reth.dmalen",
  "infiniband.immdt",
  "infiniband.vendor",
  "data.len",
  "macc.opcode",
  ...([0, 1, 2, 3, 4, 5, 6, 7] as const).map((c) => `macc.cbfc.enbv.c${c}` as const),
  ...([0, 1, 2, 3, 4, 5, 6, 7] as const).map((c) => `macc.cbfc.pause_time.c${c}` as const),
  "macc.pause_time",
  "vxlan.vni",
  "arp.opcode",
  "icmp.type",
  "icmp.code",
  "lldp.time_to_live",
  "lldp.tlv.system.name",
  "lldp.port.id",
] as const;
type Field = (typeof FIELDS)[number];
type Row = Record<Field, string[]>;

/** Runs tshark over `file` with the fields above; one row per frame. */
async function tsharkFields(file: string, extra: readonly string[]): Promise<Row[]> {
  const r = await execa(
    "tshark",
    [
      "-r",
      file,
      ...extra,
      "-T",
      "fields",
      "-E",
      "header=n",
      "-E",
      "separator=/t",
      "-E",
      "occurrence=a",
      "-E",
      "aggregator=,",
      "-E",
      "quote=n",
      ...FIELDS.flatMap((f) => ["-e", f]),
    ],
    { reject: false },
  );
  if (r.exitCode !== 0) throw new Error(`tshark failed (exit ${r.exitCode}): ${r.stderr}`);
  return r.stdout
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const cells = line.split("\t");
      const row = {} as Row;
      FIELDS.forEach((f, i) => {
        const cell = cells[i] ?? "";
        row[f] = cell === "" ? [] : cell.split(",");
      });
      return row;
    });
}

const hex = (v: number, digits: number) => v.toString(16).padStart(digits, "0");
const bool = (b: boolean) => (b ? "1" : "0");

/**
 * How each expectation reads in tshark's `-T fields` output (first occurrence: the outermost header).
 * A field whose expectation is absent must be absent from the frame too, so a frame cannot carry a header
 * the catalog did not mean it to.
 */
const SIMPLE: { field: Field; want: (e: FrameExpectation) => string | undefined }[] = [
  { field: "vlan.priority", want: (e) => e.vlanPcp?.toString() },
  { field: "vlan.id", want: (e) => e.vlanVid?.toString() },
  { field: "ip.dsfield.dscp", want: (e) => e.dscp?.toString() },
  { field: "ip.dsfield.ecn", want: (e) => e.ecn?.toString() },
  { field: "ip.ttl", want: (e) => e.ttl?.toString() },
  { field: "infiniband.bth.opcode", want: (e) => e.opcode?.toString() },
  {
    field: "infiniband.bth.destqp",
    want: (e) => (e.destQp === undefined ? undefined : `0x${hex(e.destQp, 6)}`),
  },
  { field: "infiniband.bth.psn", want: (e) => e.psn?.toString() },
  { field: "infiniband.bth.a", want: (e) => (e.ackReq === undefined ? undefined : bool(e.ackReq)) },
  { field: "infiniband.bth.padcnt", want: (e) => e.padCount?.toString() },
  { field: "infiniband.bth.p_key", want: (e) => e.pkey?.toString() },
  { field: "infiniband.aeth.syndrome", want: (e) => e.syndrome?.toString() },
  { field: "infiniband.aeth.msn", want: (e) => e.msn?.toString() },
  { field: "infiniband.reth.r_key", want: (e) => (e.rkey === undefined ? undefined : `0x${hex(e.rkey, 8)}`) },
  { field: "infiniband.reth.dmalen", want: (e) => e.dmaLength?.toString() },
  { field: "infiniband.immdt", want: (e) => (e.immDt === undefined ? undefined : hex(e.immDt, 8)) },
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((c) => ({
    field: `macc.cbfc.enbv.c${c}` as Field,
    want: (e: FrameExpectation) => (e.pfcEnable ? bool(e.pfcEnable[c]!) : undefined),
  })),
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((c) => ({
    field: `macc.cbfc.pause_time.c${c}` as Field,
    want: (e: FrameExpectation) => e.pfcPauseTimes?.[c]?.toString(),
  })),
  { field: "macc.pause_time", want: (e) => e.pauseTime?.toString() },
  { field: "vxlan.vni", want: (e) => e.vni?.toString() },
  { field: "arp.opcode", want: (e) => e.arpOpcode?.toString() },
  { field: "icmp.type", want: (e) => e.icmpType?.toString() },
  { field: "icmp.code", want: (e) => e.icmpCode?.toString() },
  { field: "lldp.time_to_live", want: (e) => e.lldpTtl?.toString() },
  { field: "lldp.tlv.system.name", want: (e) => e.lldpSystemName },
  { field: "lldp.port.id", want: (e) => e.lldpPortId },
];

/** True when `want` appears in `have` in order (other protocols may come between). */
function inOrder(have: readonly string[], want: readonly string[]): boolean {
  let i = 0;
  for (const p of have) if (i < want.length && p === want[i]) i++;
  return i === want.length;
}

function hasSeverity(row: Row, atLeast: number): boolean {
  return row["_ws.expert.severity"].some((s) => Number(s) >= atLeast);
}

t.test("tshark, the outside decoder, agrees with the frame catalog", { timeout: 180_000 }, async (t) => {
  const version = await tsharkVersion();
  if (version === null) {
    t.fail(MISSING);
    return;
  }
  t.comment(version);
  const dir = t.testdir({});
  const file = join(dir, "catalog.pcap");

  // Write the capture with the command itself, as `rocelab frames --pcap FILE` does.
  const lines: string[] = [];
  const errors: string[] = [];
  let code: number | null = null;
  const io: CommandIo = {
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    setExitCode: (c) => {
      code = c;
    },
  };
  const program = new Command()
    .name("rocelab")
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  registerFramesCommand(program, io);
  await program.parseAsync(["frames", "--pcap", file], { from: "user" });
  t.equal(code, 0);
  t.same(errors, []);
  t.equal(lines.length, catalog.length + 1, "one line per frame and a closing line");
  catalog.forEach((c, i) => {
    t.match(lines[i], new RegExp(`^\\s*${i + 1}  ${c.name}\\s`), `line ${i + 1}`);
  });
  t.equal(lines.at(-1), `wrote ${catalog.length} frames to ${file}`);

  const bytes = readFileSync(file);
  const parsed = parsePcap(bytes);
  t.ok(parsed.ok, "our reader reads what the command wrote");
  if (parsed.ok) {
    t.same(
      parsed.value.records.map((r) => r.tNs),
      catalog.map((_, i) => BigInt(i) * 1000n),
      "1 µs apart",
    );
  }

  const rows = await tsharkFields(file, ["--disable-protocol", "rpcordma"]);
  t.equal(rows.length, catalog.length, "tshark reads every frame");

  catalog.forEach((c, i) => {
    const row = rows[i];
    const n = i + 1;
    t.test(`frame ${n}: ${c.name}`, (t) => {
      if (!row) {
        t.fail("tshark did not report this frame");
        return t.end();
      }
      const e = c.expect;
      t.same(row["frame.number"], [String(n)]);
      t.same(row["_ws.malformed"], [], "not malformed");
      t.notOk(hasSeverity(row, PI_ERROR), `no expert error (${row["_ws.expert.message"].join("; ")})`);
      t.notOk(hasSeverity(row, PI_WARN), `no expert warning (${row["_ws.expert.message"].join("; ")})`);
      const protocols = row["frame.protocols"][0]?.split(":") ?? [];
      t.ok(inOrder(protocols, e.protocols), `${protocols.join(":")} shows ${e.protocols.join(" > ")}`);
      for (const { field, want } of SIMPLE) {
        const expected = want(e);
        if (expected === undefined) t.same(row[field], [], `${field} absent`);
        else t.equal(row[field][0], expected, field);
      }
      // BECN has no field in Wireshark 4.0: BTH byte 4 is shown as `infiniband.reserved`.
      if (e.becn !== undefined) {
        const byte4 = Number.parseInt(row["infiniband.reserved"][0] ?? "", 16);
        t.equal((byte4 & 0x40) !== 0, e.becn, "BECN (infiniband.reserved & 0x40)");
      }
      // Wireshark hands payload and pad together to the data dissector.
      if (e.payloadLength !== undefined) {
        const shown = e.payloadLength + (e.padCount ?? 0);
        if (shown === 0) t.same(row["data.len"], [], "no payload");
        else t.equal(row["data.len"][0], String(shown), "data.len = payload + pad");
      }
      if (e.kind === "cnp") {
        t.equal(row["infiniband.bth.opcode"][0], "129", "CNP shows opcode 129");
        // Wireshark does not know 0x81 and shows the 16 reserved bytes and the ICRC as vendor data.
        t.match(
          row["infiniband.vendor"].at(-1),
          /^0{32}[0-9a-f]{8}$/,
          "16 zero reserved bytes, then the ICRC",
        );
      }
      t.end();
    });
  });

  // The whole run through the expert-info tap: no error-level entries at all.
  const expert = await execa("tshark", ["-r", file, "--disable-protocol", "rpcordma", "-q", "-z", "expert"], {
    reject: false,
  });
  t.equal(expert.exitCode, 0, expert.stderr);
  t.notMatch(expert.stdout, /Errors \(\d+\)/, "tshark -z expert lists no errors");
  t.notMatch(expert.stdout, /Warnings \(\d+\)/, "tshark -z expert lists no warnings");

  // The payload pattern is chosen so that no payload heuristic claims it: with RPC-over-RDMA enabled,
  // every payload still decodes as plain data and nothing is malformed.
  const heuristics = await tsharkFields(file, []);
  t.equal(heuristics.length, catalog.length);
  heuristics.forEach((row, i) => {
    const c = catalog[i]!;
    t.same(row["_ws.malformed"], [], `${c.name}: not malformed with every heuristic on`);
    const protocols = row["frame.protocols"][0] ?? "";
    if ((c.expect.payloadLength ?? 0) > 0)
      t.match(protocols, /:infiniband:data$/, `${c.name}: payload left as data`);
  });
});

t.test(
  "one flipped payload bit: tshark does not notice, checkCapture does",
  { timeout: 120_000 },
  async (t) => {
    const version = await tsharkVersion();
    if (version === null) {
      t.fail(MISSING);
      return;
    }
    const dir = t.testdir({});
    const records = catalog.map((c, i) => ({ frame: c.frame, tNs: BigInt(i) * 1000n }));
    const clean = serializePcap(records);
    t.same(checkCapture(clean).problems, [], "the catalog is clean");

    const n = catalog.findIndex((c) => c.name === "send-first") + 1;
    const flipped = catalog[n - 1]!.frame.slice();
    flipped[14 + 20 + 8 + 12 + 2000]! ^= 0x20;
    const bad = serializePcap(records.map((r, i) => (i === n - 1 ? { ...r, frame: flipped } : r)));
    const report = checkCapture(bad);
    t.equal(report.problems.length, 1);
    t.equal(report.problems[0]?.frame, n);
    t.match(report.problems[0]?.message, /^icrc: /);

    // Wireshark shows the ICRC but never validates it: the damaged frame decodes like the others.
    const file = join(dir, "flipped.pcap");
    writeFileSync(file, bad);
    const rows = await tsharkFields(file, ["--disable-protocol", "rpcordma"]);
    const row = rows[n - 1];
    t.ok(row);
    if (row) {
      t.same(row["_ws.malformed"], []);
      t.notOk(hasSeverity(row, PI_WARN));
    }
  },
);

t.test(
  "rocelab frames: a path that cannot be written is an error naming the file, exit status 1",
  async (t) => {
    const dir = t.testdir({ "a-file": "" });
    const target = join(dir, "a-file", "catalog.pcap");
    const errors: string[] = [];
    const lines: string[] = [];
    let code: number | null = null;
    const program = new Command()
      .name("rocelab")
      .exitOverride()
      .configureOutput({ writeErr: () => {} });
    registerFramesCommand(program, {
      out: (l) => lines.push(l),
      err: (l) => errors.push(l),
      setExitCode: (c) => {
        code = c;
      },
    });
    await program.parseAsync(["frames", "--pcap", target], { from: "user" });
    t.equal(code, 1);
    t.same(lines, []);
    t.same(errors, [`rocelab frames: ${join(dir, "a-file")} is not a directory`]);
    // --pcap is required.
    await t.rejects(program.parseAsync(["frames"], { from: "user" }), {
      code: "commander.missingMandatoryOptionValue",
    });
  },
);
