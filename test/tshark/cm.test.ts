// RDMA CM on the wire, judged from outside: the five CM MADs the NICs send (REQ, REP, RTU, DREQ, DREP in a
// UD SEND ONLY to QP1 over RoCEv2) must come out of Wireshark's InfiniBand dissector as those messages,
// with the fields we wrote, the IP CM private data of the REQ, no malformed frame and no expert warning or
// error. tshark is part of the project's set-up; when it is missing this test fails (never skips).

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { checkCapture } from "../../src/verify/pcap-check.js";
import {
  buildCmFrame,
  CmAttr,
  type CmMessage,
  cmMessage,
  GSI_QKEY,
  parseCmDatagram,
  RDMA_PS_TCP,
} from "../../src/wire/cm-mad.js";
import { verifyIcrcV2 } from "../../src/wire/icrc.js";
import { serializePcap } from "../../src/wire/pcap.js";

const A = 0x0a01_0001;
const B = 0x0a01_0002;
const base = {
  srcMac: 0x02_00_00_00_00_01,
  dstMac: 0x02_00_00_00_00_02,
  dscp: 26,
  ecn: 1,
  udpSrcPort: 0xc123,
} as const;
const messages: { from: number; to: number; m: CmMessage }[] = [
  {
    from: A,
    to: B,
    m: cmMessage({
      attr: CmAttr.Req,
      tid: 0x1234n,
      localCommId: 0x11,
      qpn: 0x100,
      startingPsn: 0x123,
      serviceId: (BigInt(RDMA_PS_TCP) << 16n) | 4791n,
      caGuid: 0x0200_00ff_fe00_0001n,
      srcIp: A,
      dstIp: B,
      trafficClass: 26 << 2,
      srcPort: 0xc123,
    }),
  },
  {
    from: B,
    to: A,
    m: cmMessage({
      attr: CmAttr.Rep,
      tid: 0x1234n,
      localCommId: 0x22,
      remoteCommId: 0x11,
      qpn: 0x101,
      startingPsn: 0x456,
      caGuid: 0x0200_00ff_fe00_0002n,
    }),
  },
  { from: A, to: B, m: cmMessage({ attr: CmAttr.Rtu, tid: 0x1234n, localCommId: 0x11, remoteCommId: 0x22 }) },
  {
    from: A,
    to: B,
    m: cmMessage({ attr: CmAttr.Dreq, tid: 0x1235n, localCommId: 0x11, remoteCommId: 0x22, qpn: 0x101 }),
  },
  {
    from: B,
    to: A,
    m: cmMessage({ attr: CmAttr.Drep, tid: 0x1235n, localCommId: 0x22, remoteCommId: 0x11 }),
  },
];
const frames = messages.map(({ from, to, m }) =>
  buildCmFrame({ ...base, srcIp: from, dstIp: to, message: m }),
);

t.test("our decoder reads back what we wrote, and the ICRC holds", (t) => {
  frames.forEach((f, i) => {
    const parsed = parseCmDatagram(f, 14 + 20 + 8, f.length);
    t.ok(parsed.ok, `frame ${i + 1} parses`);
    if (!parsed.ok) return;
    t.equal(parsed.value.qkey, GSI_QKEY);
    t.equal(parsed.value.srcQp, 1);
    t.same(parsed.value.message, messages[i]!.m, `frame ${i + 1}: every field`);
    t.ok(verifyIcrcV2(f, 14, f.length));
  });
  t.end();
});

t.test("pcap-check finds nothing wrong, and counts them as CM", (t) => {
  const report = checkCapture(serializePcap(frames.map((frame, i) => ({ frame, tNs: i * 1000 }))));
  t.same(report.problems, []);
  t.equal(report.counts.cm, 5);
  t.end();
});

const FIELDS = [
  "_ws.expert.severity",
  "_ws.malformed",
  "infiniband.bth.opcode",
  "infiniband.bth.destqp",
  "infiniband.deth.srcqp",
  "infiniband.mad.mgmtclass",
  "infiniband.mad.attributeid",
  "infiniband.cm.req.localqpn",
  "infiniband.cm.req.startpsn",
  "infiniband.cm.rep.localqpn",
  "infiniband.cm.rep.startpsn",
  "infiniband.cm.rep.remotecommid",
  "infiniband.cm.rtu.remotecommid",
  "infiniband.cm.req.remoteqpneecn",
  "infiniband.cm.drsp.remotecommid",
] as const;

t.test("tshark decodes the five messages without warnings", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "rocelab-cm-"));
  const file = join(dir, "cm.pcap");
  writeFileSync(file, serializePcap(frames.map((frame, i) => ({ frame, tNs: i * 1000 }))));
  const r = await execa(
    "tshark",
    [
      "-r",
      file,
      "-T",
      "fields",
      "-E",
      "separator=/t",
      "-E",
      "occurrence=f",
      ...FIELDS.flatMap((f) => ["-e", f]),
    ],
    { reject: false },
  );
  t.equal(
    r.exitCode,
    0,
    `tshark ran (${r.stderr
      .split("\n")
      .filter((l) => !l.includes("root"))
      .join(" ")})`,
  );
  const rows = r.stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map(
      (l) =>
        Object.fromEntries(l.split("\t").map((v, i) => [FIELDS[i]!, v])) as Record<
          (typeof FIELDS)[number],
          string
        >,
    );
  t.equal(rows.length, 5);
  for (const row of rows) {
    t.equal(row["_ws.expert.severity"], "", "no expert info");
    t.equal(row["_ws.malformed"], "", "not malformed");
    t.equal(row["infiniband.bth.opcode"], "100", "UD SEND ONLY");
    t.equal(row["infiniband.bth.destqp"], "0x000001", "to QP1");
    t.equal(row["infiniband.deth.srcqp"], "0x00000001", "from QP1");
    t.equal(row["infiniband.mad.mgmtclass"], "0x07", "CM class");
  }
  t.same(
    rows.map((r) => r["infiniband.mad.attributeid"]),
    ["0x0010", "0x0013", "0x0014", "0x0015", "0x0016"],
    "REQ REP RTU DREQ DREP",
  );
  t.equal(rows[0]!["infiniband.cm.req.localqpn"], "0x000100");
  t.equal(rows[0]!["infiniband.cm.req.startpsn"], "0x000123");
  t.equal(rows[1]!["infiniband.cm.rep.localqpn"], "0x000101");
  t.equal(rows[1]!["infiniband.cm.rep.startpsn"], "0x000456");
  t.equal(rows[1]!["infiniband.cm.rep.remotecommid"], "0x00000011");
  t.equal(rows[2]!["infiniband.cm.rtu.remotecommid"], "0x00000022");
  t.equal(rows[3]!["infiniband.cm.req.remoteqpneecn"], "0x000101");
  t.equal(rows[4]!["infiniband.cm.drsp.remotecommid"], "0x00000011");
});
