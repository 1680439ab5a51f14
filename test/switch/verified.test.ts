// The verified flag beside a frame's bytes (DeviceEnv.transmit, PacketMeta.verified): a switch passes on
// its sender's word that the ICRC holds only when it changed nothing but the routing rewrite (MACs, TTL,
// IPv4 checksum), never for a frame it marked, remarked, stamped or was handed unverified.
import t from "tap";
import { verifyIcrcV2 } from "../../src/wire/icrc.js";
import { IntMode, intBlockLength, intHopCount, writeIntCollect } from "../../src/wire/int-md.js";
import { Ecn, ipv4Ecn } from "../../src/wire/ipv4.js";
import { buildRoceV2Frame } from "../../src/wire/roce-frame.js";
import { Opcode } from "../../src/wire/roce-opcodes.js";
import { peerIp, peerMac, portMac, SwitchHarness } from "./harness.js";

/** An INT-MD collect block with `slots` hop slots (what HPCC's sender adds). */
function collect(slots: number): Uint8Array {
  const b = new Uint8Array(intBlockLength(IntMode.Collect, slots));
  writeIntCollect(b, 0, slots);
  return b;
}

/** A RoCEv2 WRITE ONLY from port 1's peer to port 2's, with its ICRC (DSCP 26: queue 3). */
function write(psn: number, dscp = 26, int: Uint8Array | null = null): Uint8Array {
  return buildRoceV2Frame({
    srcMac: peerMac(1),
    dstMac: portMac(1),
    srcIp: peerIp(1),
    dstIp: peerIp(2),
    dscp,
    ecn: Ecn.Ect0,
    udpSrcPort: 0xc001,
    opcode: Opcode.RdmaWriteOnly,
    destQp: 0x12,
    psn,
    reth: { va: 0x1000n, rkey: 1, dmaLength: 1000 },
    payload: new Uint8Array(1000).fill(psn),
    int,
  });
}

t.test("routed and otherwise unchanged: the flag goes on with the frame, and the ICRC does hold", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(1, write(1), true);
  h.deliver(1, write(2), false);
  h.run(h.now + 100_000);
  const out = h.data(2);
  t.equal(out.length, 2, "both forwarded");
  t.equal(out[0]!.verified, true, "received verified, sent verified");
  t.equal(out[1]!.verified, false, "received unverified, sent unverified: the next receiver checks it");
  for (const s of out) t.ok(verifyIcrcV2(s.frame, 14, s.frame.length), "ICRC valid after the rewrite");
  t.end();
});

t.test("an ECN-marked frame leaves unverified; its unmarked neighbours stay verified", (t) => {
  // Kmax of one byte: every packet that finds any backlog is marked (WRED's probability 1 above Kmax).
  const h = new SwitchHarness({
    settings: { ecn: { queues: { 3: { kmin: 0, kmax: 1, pmax: 1 } } } },
  }).start();
  for (let i = 0; i < 8; i++) h.deliver(1, write(i), true);
  h.run(h.now + 1_000_000);
  const out = h.data(2);
  t.equal(out.length, 8, "all forwarded");
  const marked = out.filter((s) => ipv4Ecn(s.frame, 14) === Ecn.Ce);
  const plain = out.filter((s) => ipv4Ecn(s.frame, 14) !== Ecn.Ce);
  t.ok(marked.length > 0 && plain.length > 0, `${marked.length} marked, ${plain.length} not`);
  t.same(
    marked.map((s) => s.verified),
    marked.map(() => false),
    "marked: unverified",
  );
  t.same(
    plain.map((s) => s.verified),
    plain.map(() => true),
    "unmarked: verified",
  );
  t.end();
});

t.test("a remarked DSCP (elephant) sends the frame on unverified", (t) => {
  const detect = { enabled: true, size: 20_000, rate: 10e9, window: 10_000, queue: 1 } as const;
  const h = new SwitchHarness({ settings: { elephant: { ...detect, dscp: 10 } } }).start();
  for (let i = 0; i < 40; i++) {
    h.deliver(1, write(i, 0), true);
    h.run(h.now + 100);
  }
  h.run(h.now + 100_000);
  const out = h.data(2);
  const remarked = out.filter((s) => s.frame[15]! >>> 2 === 10);
  t.ok(remarked.length > 0, `${remarked.length} of ${out.length} remarked`);
  t.ok(
    remarked.every((s) => !s.verified),
    "every remarked frame unverified",
  );
  t.ok(
    out.filter((s) => s.frame[15]! >>> 2 !== 10).every((s) => s.verified),
    "the others verified",
  );
  t.end();
});

t.test("an INT hop record sends the frame on unverified", (t) => {
  const h = new SwitchHarness({ settings: { int: { enabled: true, switchId: 7 } } }).start();
  h.deliver(1, write(1, 26, collect(5)), true);
  h.deliver(1, write(2), true);
  h.run(h.now + 100_000);
  const [stamped, plain] = h.data(2);
  t.equal(intHopCount(stamped!.frame, 70, 164), 1, "the first carries this hop's record");
  t.equal(stamped!.verified, false, "stamped: unverified, though the ICRC was patched");
  t.ok(verifyIcrcV2(stamped!.frame, 14, stamped!.frame.length), "(and the patched ICRC holds)");
  t.equal(plain!.verified, true, "no INT block: nothing written, still verified");
  t.end();
});

t.test("frames the switch builds itself (ARP) never leave verified", (t) => {
  const h = new SwitchHarness();
  h.sw.start(0);
  h.run(1000);
  t.ok(h.env.sent.length > 0, "ARP requests sent");
  t.ok(
    h.env.sent.every((s) => !s.verified),
    "none verified",
  );
  t.end();
});
