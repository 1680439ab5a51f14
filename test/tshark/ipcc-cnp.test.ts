// The outside judge on the CNPs IPCC builds: a switch with IPCC on, a congested queue, and the CNP it
// sends back on the ingress port is decoded by tshark (RoCEv2 CNP, opcode 129, the sender's QP, DSCP 48,
// nothing malformed) and passes our own capture checker (ICRC, BECN, reserved bytes).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { checkCapture } from "../../src/verify/pcap-check.js";
import { Ecn } from "../../src/wire/ipv4.js";
import { serializePcap } from "../../src/wire/pcap.js";
import { AethSyndrome, buildRoceV2Frame, Opcode } from "../../src/wire/roce.js";
import { peerIp, peerMac, portMac, SwitchHarness } from "../switch/harness.js";

const SENDER_QP = 0x1234;
const SPORT = 0xc0de;

function roce(from: number, to: number, opcode: Opcode, destQp: number, psn: number): Uint8Array {
  return buildRoceV2Frame({
    srcMac: peerMac(from),
    dstMac: portMac(from),
    srcIp: peerIp(from),
    dstIp: peerIp(to),
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: SPORT,
    opcode,
    destQp,
    psn,
    ...(opcode === Opcode.Acknowledge
      ? { aeth: { syndrome: AethSyndrome.AckUnlimited, msn: 0 } }
      : { payload: new Uint8Array(1024) }),
  });
}

t.test("tshark decodes IPCC's CNP as a RoCEv2 CNP to the sender's QP", async (t) => {
  const h = new SwitchHarness({
    settings: { ipcc: { enabled: true, curve: { minDepth: 10_000, highOccupancy: 0.01 } } },
  }).start();
  h.deliver(2, roce(2, 1, Opcode.Acknowledge, SENDER_QP, 0));
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  for (let i = 0; i < 40; i++) h.deliver(1, roce(1, 2, Opcode.RdmaWriteMiddle, 0x77, i));
  h.run(h.now + 45_000);
  const cnps = h.data(1).filter((s) => s.frame.length > 42 && s.frame[42] === Opcode.Cnp);
  t.ok(cnps.length > 0, "the switch sent a CNP on the ingress port");
  const file = join(t.testdir({}), "ipcc-cnp.pcap");
  const pcap = serializePcap(cnps.map((s) => ({ frame: s.frame, tNs: s.t })));
  writeFileSync(file, pcap);

  const report = checkCapture(pcap);
  t.same(report.problems, [], "our checker: ICRC, BECN, reserved bytes all right");
  t.same(
    report.kinds,
    cnps.map(() => "cnp"),
  );

  const r = await execa(
    "tshark",
    [
      "-r",
      file,
      "-T",
      "fields",
      "-E",
      "separator=|",
      ...[
        "frame.protocols",
        "infiniband.bth.opcode",
        "infiniband.bth.destqp",
        "ip.dsfield.dscp",
        "_ws.malformed",
      ].flatMap((f) => ["-e", f]),
    ],
    { reject: false },
  );
  t.equal(
    r.exitCode,
    0,
    r.stderr || "tshark ran (it is part of the set-up; this test must not pass without it)",
  );
  const [protocols, opcode, destQp, dscp, malformed] = (r.stdout.split("\n")[0] ?? "").split("|");
  t.match(protocols, /udp:infiniband/, "decoded as RoCEv2 (InfiniBand over UDP)");
  t.equal(opcode, "129", "opcode 0x81");
  t.equal(Number(destQp), SENDER_QP, "to the sender's QP");
  t.equal(dscp, "48");
  t.equal(malformed ?? "", "", "not malformed");
  t.end();
});
