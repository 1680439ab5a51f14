// Forged and malformed RoCE packets into a running lab, as a user with a packet tool would send them
// (issue 36): written with the project's own codecs and sent from host e's namespace with a's address as
// their source, at the PSN the target QP expects (`stats`: rqPsn, as ibv_query_qp's rq_psn). A host pair
// keeps its QP pair from one workload to the next, so each case has a receiver of its own: a WRITE with a
// wrong R_Key (to b) or outside the region (to c) draws NAK Remote Access Error, one over the path MTU (to
// d) NAK Invalid Request, read off the wire by tshark; a truncated BTH is counted as malformed. Then the
// incident the issue found as a livelock: eight forged WRITEs with valid PSNs move f's expected PSN past
// a's; a's next real WRITE must end — its PSNs behind f's answered as duplicates, its first packet past them
// (a WRITE MIDDLE that continues no message at f) NAKed Invalid Request, the flow failed with that status —
// instead of being retransmitted for ever.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t, { type Test } from "tap";
import type { QpStats } from "../../src/nic/stats-types.js";
import { regionBase, rkeyFor } from "../../src/nic/transport/memory-region.js";
import { hostAddress, planAddresses } from "../../src/scenario/address-plan.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { type Ipv4Address, ipToString } from "../../src/wire/bytes.js";
import { ETHERNET_HEADER_LENGTH } from "../../src/wire/ethernet.js";
import { Ecn, IPV4_HEADER_LENGTH } from "../../src/wire/ipv4.js";
import { buildRoceV2Frame } from "../../src/wire/roce-frame.js";
import { Opcode } from "../../src/wire/roce-opcodes.js";
import { UDP_HEADER_LENGTH } from "../../src/wire/udp.js";
import { labNamespaces, nicStatsOf, pollUntil, requireRoot, rl, rlStarted, upLab } from "../helpers/live.js";
import { tempDir } from "../helpers/temp-dir.js";

requireRoot(t);

const LAB = "forge";
const MTU = 1024;
const HOSTS = ["a", "b", "c", "d", "e", "f"] as const;
const TOPOLOGY = `
name: forge
description: "six hosts on one switch, path MTU ${MTU}; a writes to b, c, d and f, e forges as a"
defaults:
  link: { rate: 100G, delay: 1us }
  mtu: ${MTU}
nodes:
  sw: { kind: switch }
${HOSTS.map((h) => `  ${h}: { kind: host }`).join("\n")}
links:
${HOSTS.map((h, i) => `  - ["${h}:eth1", "sw:eth${i + 1}"]`).join("\n")}
`;
const NAK_INVALID_REQUEST = 0x61;
const NAK_REMOTE_ACCESS = 0x62;

const dir = tempDir("rl-forge-");
const file = join(dir, "forge.yaml");
writeFileSync(file, TOPOLOGY);
const plan = planAddresses(loadTopology(file));
const ip = (h: string): Ipv4Address => hostAddress(plan, h).ip;

t.teardown(async () => {
  await rl(["down", "--name", LAB]);
});

/** `host`'s QP towards `peer`, as `stats` shows it. */
async function qpOf(host: string, peer: string): Promise<QpStats> {
  const q = (await nicStatsOf(LAB, host)).detail.qps.find((x) => x.remoteIp === ip(peer));
  if (q === undefined) throw new Error(`${host} has no QP towards ${peer}`);
  return q;
}

async function counter(host: string, name: string): Promise<number> {
  return (await nicStatsOf(LAB, host)).counters[name] ?? 0;
}

/** A WRITE ONLY from a (its address, its QP) to `to`'s QP `q`, as IP packet bytes. */
function write(
  to: string,
  q: QpStats,
  psn: number,
  o: { payload?: number; rkey?: number; va?: bigint } = {},
): Uint8Array {
  const payload = new Uint8Array(o.payload ?? 1000).fill(0x5a);
  const frame = buildRoceV2Frame({
    srcMac: 0x02_00_00_00_00_01,
    dstMac: 0x02_00_00_00_00_02,
    srcIp: ip("a"),
    dstIp: ip(to),
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: q.udpSrcPort,
    opcode: Opcode.RdmaWriteOnly,
    destQp: q.qpn,
    psn,
    ackReq: true,
    reth: {
      va: o.va ?? regionBase(q.qpn) + 4096n,
      rkey: o.rkey ?? rkeyFor(q.qpn),
      dmaLength: payload.length,
    },
    payload,
  });
  return frame.subarray(ETHERNET_HEADER_LENGTH);
}

/** e sends `packets` (IP packets with a's source address) towards `to`, in order. */
async function forge(to: string, packets: readonly Uint8Array[]): Promise<void> {
  const hex = packets.map((p) => Buffer.from(p).toString("hex"));
  const tool = [process.execPath, "test/helpers/raw-send.mjs", ipToString(ip(to)), ...hex];
  const r = await execa("ip", ["netns", "exec", `rl-${LAB}-e`, "env", "-u", "NODE_OPTIONS", ...tool], {
    reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`raw-send: ${r.stderr}`);
}

/** The QP pair a → `to`, set up by one 8 KB WRITE run to completion: `to`'s side of it. */
async function pairTo(t: Test, to: string): Promise<QpStats> {
  const r = await rl([
    "inject",
    "incast",
    "--to",
    to,
    "--from",
    "1",
    "--size",
    "8KB",
    "--wait",
    "60",
    "--name",
    LAB,
  ]);
  t.equal(r.exitCode, 0, `a writes 8 KB to ${to}: ${r.stderr}`);
  return qpOf(to, "a");
}

t.test("forged requests draw IBTA's NAKs on the wire; a truncated BTH is malformed", async (t) => {
  await upLab(t, LAB, file);
  // Every NAK to a leaves the switch on sw:eth1; the capture runs while the cases are sent.
  const pcap = join(dir, "a.pcap");
  const capture = rlStarted(["capture", "sw:eth1", "-w", pcap, "--seconds", "15", "--name", LAB]);
  await new Promise((r) => setTimeout(r, 1500));

  const cases = [
    {
      to: "b",
      what: "a wrong R_Key",
      syndrome: NAK_REMOTE_ACCESS,
      o: (q: QpStats) => ({ rkey: rkeyFor(q.qpn) ^ 1 }),
    },
    {
      to: "c",
      what: "a WRITE past the region's end",
      syndrome: NAK_REMOTE_ACCESS,
      o: (q: QpStats) => ({ va: regionBase(q.qpn) + 2n ** 32n - 100n }),
    },
    {
      to: "d",
      what: "a WRITE over the path MTU",
      syndrome: NAK_INVALID_REQUEST,
      o: () => ({ payload: MTU + 36 }),
    },
  ];
  const sent: { qpn: number; psn: number; syndrome: number; what: string }[] = [];
  for (const c of cases) {
    const q = await pairTo(t, c.to);
    t.equal(
      q.rqPsn,
      (8 * 1024) / MTU,
      `${c.what}: ${c.to}'s QP ${q.qpn} expects PSN 8 after the 8-packet WRITE`,
    );
    t.equal((await qpOf("a", c.to)).sqPsn, q.rqPsn, "a's sq_psn is its rq_psn");
    await forge(c.to, [write(c.to, q, q.rqPsn, c.o(q))]);
    const after = await pollUntil(
      () => qpOf(c.to, "a"),
      (x) => x.state === "error",
    );
    t.equal(after.state, "error", `${c.what}: ${c.to}'s QP went to the error state`);
    t.equal(after.rqPsn, q.rqPsn, "and did not take the request");
    sent.push({ qpn: q.remoteQpn, psn: q.rqPsn, syndrome: c.syndrome, what: c.what });
    t.equal((await qpOf("a", c.to)).state, "rts", `${c.what}: a's QP ignores a NAK for a PSN it never sent`);
  }
  for (const [h, n] of [
    ["b", 1],
    ["c", 1],
    ["d", 0],
  ] as const)
    t.equal(await counter(h, "resp_remote_access_errors"), n, `${h}: resp_remote_access_errors ${n}`);

  // A BTH cut after 8 of its 12 bytes: the UDP length says so, the IP length too (the kernel sets it).
  const malformed = await counter("b", "drop_malformed");
  const q = await qpOf("b", "a");
  const cut = write("b", q, q.rqPsn).slice(0, IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + 8);
  new DataView(cut.buffer).setUint16(IPV4_HEADER_LENGTH + 4, UDP_HEADER_LENGTH + 8);
  new DataView(cut.buffer).setUint16(IPV4_HEADER_LENGTH + 6, 0); // no UDP checksum (IPv4 allows it)
  await forge("b", [cut]);
  t.equal(
    await pollUntil(
      () => counter("b", "drop_malformed"),
      (n) => n > malformed,
    ),
    malformed + 1,
    "the truncated BTH is counted as malformed, not as an ICRC error",
  );

  const cap = await capture;
  t.equal(cap.exitCode, 0, cap.stderr);
  const fields = ["infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.aeth.syndrome"];
  const r = await execa("tshark", [
    "-r",
    pcap,
    "-Y",
    "infiniband.aeth",
    "-T",
    "fields",
    ...fields.flatMap((f) => ["-e", f]),
  ]);
  const naks = r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("\t").map(Number));
  for (const s of sent)
    t.ok(
      naks.some(([qp, psn, syn]) => qp === s.qpn && psn === s.psn && syn === s.syndrome),
      `${s.what}: tshark reads NAK 0x${s.syndrome.toString(16)} to a's QP ${s.qpn} at PSN ${s.psn}`,
    );
});

t.test("forged WRITEs with valid PSNs, then a real WRITE on that QP: it ends with a status", async (t) => {
  const q = await pairTo(t, "f");
  const e = q.rqPsn;
  await forge(
    "f",
    Array.from({ length: 8 }, (_, i) => write("f", q, (e + i) & 0xff_ffff)),
  );
  const moved = await pollUntil(
    () => qpOf("f", "a"),
    (x) => x.rqPsn === ((e + 8) & 0xff_ffff),
  );
  t.equal(moved.rqPsn, (e + 8) & 0xff_ffff, "eight forged WRITEs moved f's expected PSN past a's");
  t.equal(moved.state, "rts", "they were valid requests");
  t.equal((await qpOf("a", "f")).sqPsn, e, "a has not sent past its own PSN");

  const r = await rl([
    "inject",
    "incast",
    "--to",
    "f",
    "--from",
    "1",
    "--size",
    "1MB",
    "--wait",
    "60",
    "--name",
    LAB,
  ]);
  t.equal(r.exitCode, 1, "the real WRITE fails, and --wait says so");
  t.match(r.stderr, /a -> f qp \d+ invalid_request/, "with the status an RDMA NIC gives");
  const a = await qpOf("a", "f");
  t.equal(a.state, "error", "a's QP is in the error state");
  t.ok(a.retransmits < 64, `no retransmission loop (${a.retransmits} retransmitted)`);
  t.ok((await counter("f", "duplicate_request")) > 0, "f answered a's PSNs behind its own as duplicates");

  const down = await rl(["down", "--name", LAB]);
  t.equal(down.exitCode, 0, down.stderr);
  t.same(await labNamespaces(LAB), [], "no namespace left");
});
