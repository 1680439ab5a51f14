// Elephant/mice: the 802.1p and DSCP remark actions (H3C RoCE overview §1.4.3.3: an elephant's drop
// precedence, local precedence or dot1q priority; H3C Comware's `remark dot1p` / `remark dscp`).
import t from "tap";
import { ipv4HeaderValid } from "../../src/device/l2/ipv4-check.js";
import { readU16 } from "../../src/wire/bytes.js";
import { ethPayloadOffset } from "../../src/wire/ethernet.js";
import { ipv4Dscp } from "../../src/wire/ipv4.js";
import { peerIp, SwitchHarness } from "./harness.js";

const detect = { enabled: true, size: 20_000, rate: 10e9, window: 10_000, queue: 1 } as const;

/** `n` packets of one flow from port 1 to port 2's peer, 100 ns apart (optionally 802.1Q-tagged). */
function flow(h: SwitchHarness, n: number, opts: { dscp?: number; pcp?: number } = {}): void {
  for (let i = 0; i < n; i++) {
    const f = h.udp(1, peerIp(2), { dscp: opts.dscp ?? 0 });
    h.deliver(1, opts.pcp === undefined ? f : tagged(f, opts.pcp));
    h.run(h.now + 100);
  }
  h.run(h.now + 100_000);
}

/** `f` with an 802.1Q tag (TPID 0x8100, PCP `pcp`, VID 0) inserted after the MAC addresses, by hand. */
function tagged(f: Uint8Array, pcp: number): Uint8Array {
  const out = new Uint8Array(f.length + 4);
  out.set(f.subarray(0, 12), 0);
  out.set([0x81, 0x00, pcp << 5, 0x00], 12);
  out.set(f.subarray(12), 16);
  return out;
}

t.test("dot1p: elephants take the remarked priority's queue, mice keep theirs", (t) => {
  const h = new SwitchHarness({
    settings: { elephant: { ...detect, dot1p: 5 }, qos: { priorityToQueue: [0, 1, 2, 3, 4, 2, 6, 7] } },
  }).start();
  flow(h, 60);
  t.equal(h.counter("elephant_flows_detected"), 1);
  t.equal(h.queueCounter(2, 0, "tx_packets"), 19, "mouse packets before detection");
  t.equal(h.queueCounter(2, 2, "tx_packets"), 41, "802.1p 5 maps to queue 2 (`queue: 1` is not used)");
  t.equal(h.queueCounter(2, 1, "tx_packets"), 0);
  t.equal(h.portCounter(1, "elephant_remarked"), 41);
  const ev = h.env.events.find((e) => e.kind === "info" && e.detail?.startsWith("elephant "));
  t.match(ev?.detail, /to queue 2, yellow, 802\.1p 5$/);
  t.end();
});

t.test("dot1p: a tagged elephant leaves with the new PCP, an untagged one unchanged", (t) => {
  const h = new SwitchHarness({ settings: { elephant: { ...detect, dot1p: 5 } } }).start();
  flow(h, 60, { pcp: 3 });
  const out = h.env.sent.filter((s) => s.port === 2 && readU16(s.frame, 12) === 0x8100);
  t.equal(out.length, 60, "every frame forwarded with its tag");
  const pcps = out.map((s) => s.frame[14]! >>> 5);
  t.same([...new Set(pcps.slice(0, 19))], [3], "mice keep PCP 3");
  t.same([...new Set(pcps.slice(19))], [5], "elephants leave with PCP 5");
  t.ok(
    out.every((s) => ipv4HeaderValid(s.frame, ethPayloadOffset(s.frame))),
    "IPv4 checksums valid",
  );
  t.end();
});

t.test("dscp: elephants leave with the remarked DSCP and a valid checksum; nothing else changes", (t) => {
  const h = new SwitchHarness({ settings: { elephant: { ...detect, dscp: 10 } } }).start();
  flow(h, 60, { dscp: 0 });
  const out = h.data(2);
  t.equal(out.length, 60);
  const dscps = out.map((s) => ipv4Dscp(s.frame, 14));
  t.same([...new Set(dscps.slice(0, 19))], [0], "mice keep DSCP 0");
  t.same([...new Set(dscps.slice(19))], [10], "elephants leave with DSCP 10");
  t.ok(
    out.every((s) => ipv4HeaderValid(s.frame, 14)),
    "checksums valid",
  );
  t.equal(h.queueCounter(2, 1, "tx_packets"), 41, "on this switch the queue is still `queue`");
  t.equal(h.portCounter(1, "elephant_remarked"), 41);
  t.end();
});

t.test("without dot1p or dscp nothing is remarked", (t) => {
  const h = new SwitchHarness({ settings: { elephant: detect } }).start();
  flow(h, 60, { dscp: 26 });
  t.same([...new Set(h.data(2).map((s) => ipv4Dscp(s.frame, 14)))], [26]);
  t.equal(h.portCounter(1, "elephant_remarked"), 0);
  t.end();
});
