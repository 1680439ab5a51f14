import t from "tap";
import { ArpOp, buildArpFrame, parseArp, serializeArp } from "../../src/wire/arp.js";
import {
  BROADCAST_MAC,
  fromHex,
  ipToString,
  macToString,
  parseIp,
  parseMac,
  toHex,
} from "../../src/wire/bytes.js";
import { EtherType, parseEthernet } from "../../src/wire/ethernet.js";
import { guarded } from "../helpers/guarded.js";

const MAC1 = parseMac("02:00:00:00:00:01")!;
const MAC2 = parseMac("02:00:00:00:00:02")!;
const IP1 = parseIp("10.0.0.1")!;
const IP2 = parseIp("10.0.0.2")!;

// "Who has 10.0.0.2? Tell 10.0.0.1" (decoded as such by Wireshark 4.0).
const REQUEST_FRAME =
  "ffffffffffff 020000000001 0806" +
  "0001 0800 06 04 0001 020000000001 0a000001 000000000000 0a000002" +
  "00".repeat(18);

t.test("a request frame, byte for byte", (t) => {
  const frame = buildArpFrame({
    op: ArpOp.Request,
    senderMac: MAC1,
    senderIp: IP1,
    targetMac: 0,
    targetIp: IP2,
  });
  t.equal(frame.length, 60);
  t.equal(toHex(frame), toHex(fromHex(REQUEST_FRAME)));
  const p = parseArp(frame, 14);
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.equal(p.value.op, ArpOp.Request);
  t.equal(macToString(p.value.senderMac), "02:00:00:00:00:01");
  t.equal(ipToString(p.value.senderIp), "10.0.0.1");
  t.equal(p.value.targetMac, 0);
  t.equal(ipToString(p.value.targetIp), "10.0.0.2");
  t.end();
});

t.test("a reply goes to the target MAC unless told otherwise", (t) => {
  const reply = { op: ArpOp.Reply, senderMac: MAC2, senderIp: IP2, targetMac: MAC1, targetIp: IP1 } as const;
  const frame = buildArpFrame(reply);
  t.equal(
    toHex(frame),
    toHex(
      fromHex(
        "020000000001 020000000002 0806" +
          "0001 0800 06 04 0002 020000000002 0a000002 020000000001 0a000001" +
          "00".repeat(18),
      ),
    ),
  );
  const eth = parseEthernet(frame);
  t.ok(eth.ok);
  if (eth.ok) t.equal(eth.value.etherType, EtherType.ARP);
  const p = parseArp(frame, 14);
  t.ok(p.ok);
  if (p.ok) t.same(p.value, reply);

  // Gratuitous ARP: a request sent to broadcast explicitly, and a reply with an explicit destination.
  const g = buildArpFrame({
    op: ArpOp.Reply,
    senderMac: MAC2,
    senderIp: IP2,
    targetMac: 0,
    targetIp: IP2,
    dst: BROADCAST_MAC,
  });
  t.equal(toHex(g.subarray(0, 6)), "ffffffffffff");
  const u = buildArpFrame({
    op: ArpOp.Request,
    senderMac: MAC1,
    senderIp: IP1,
    targetMac: 0,
    targetIp: IP2,
    dst: MAC2,
  });
  t.equal(toHex(u.subarray(0, 6)), "020000000002", "unicast request (neighbour re-probe)");
  t.end();
});

t.test("serialize writes at an offset and returns the offset past it", (t) => {
  const buf = new Uint8Array(40);
  const end = serializeArp(
    { op: ArpOp.Request, senderMac: MAC1, senderIp: IP1, targetMac: 0, targetIp: IP2 },
    buf,
    5,
  );
  t.equal(end, 33);
  t.equal(toHex(buf.subarray(5, 33)), toHex(fromHex(REQUEST_FRAME).subarray(14, 42)));
  t.equal(buf[4], 0);
  t.equal(buf[33], 0);
  t.end();
});

t.test("anything but Ethernet/IPv4 request or reply is refused", (t) => {
  const good = fromHex(REQUEST_FRAME).subarray(14, 42);
  const patch = (at: number, hex: string) => {
    const b = good.slice();
    b.set(fromHex(hex), at);
    return b;
  };
  const cases: [string, Uint8Array, string, number][] = [
    ["short", good.subarray(0, 27), "truncated", 0],
    ["hardware type 6 (IEEE 802)", patch(0, "0006"), "bad-value", 0],
    ["protocol type IPv6", patch(2, "86dd"), "bad-value", 2],
    ["hardware length 8", patch(4, "08"), "bad-value", 4],
    ["protocol length 16", patch(5, "10"), "bad-value", 5],
    ["RARP request (op 3)", patch(6, "0003"), "bad-value", 6],
    ["op 0", patch(6, "0000"), "bad-value", 6],
  ];
  for (const [name, buf, code, offset] of cases) {
    const p = parseArp(buf, 0);
    t.notOk(p.ok, name);
    if (!p.ok) {
      t.equal(p.error.code, code, name);
      t.equal(p.error.protocol, "arp", name);
      t.equal(p.error.offset, offset, name);
    }
  }
  const past = parseArp(fromHex(REQUEST_FRAME), 40);
  t.notOk(past.ok, "offset leaves fewer than 28 bytes");
  if (!past.ok) t.equal(past.error.code, "truncated");
  const negative = parseArp(fromHex(REQUEST_FRAME), -1);
  t.notOk(negative.ok);
  if (!negative.ok) t.equal(negative.error.code, "truncated");
  t.end();
});

t.test("no read out of bounds on any prefix", (t) => {
  const good = fromHex(REQUEST_FRAME).subarray(14, 42);
  for (let n = 0; n < good.length; n++) {
    const p = parseArp(guarded(good.slice(0, n)), 0);
    if (p.ok || p.error.code !== "truncated") t.fail(`prefix of ${n} bytes`);
  }
  t.ok(parseArp(guarded(good.slice()), 0).ok, "the whole packet parses through the guard");
  t.end();
});
