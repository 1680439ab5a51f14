import t from "tap";
import { fromHex, parseMac, toHex } from "../../src/wire/bytes.js";
import { EtherType } from "../../src/wire/ethernet.js";
import {
  buildPauseFrame,
  buildPfcFrame,
  MacControlOpcode,
  nsToQuanta,
  PFC_DST_MAC,
  parseMacControl,
  parsePfcFrame,
  pauseQuantumNs,
  pfcPriorityEnabled,
  quantaToNs,
} from "../../src/wire/pfc.js";
import { SCAPY_PFC_RESERVED_A5 } from "../helpers/foreign-frames.js";
import { guarded } from "../helpers/guarded.js";

const SRC = parseMac("02:00:00:00:00:01")!;

// IEEE 802.1Qbb-2011 clause 36 frame layout: priority 3 paused for 0xffff quanta (dissected correctly by Wireshark).
const PRIO3_XOFF =
  "0180c2000001 020000000001 8808 0101 0008 0000 0000 0000 ffff 0000 0000 0000 0000" + "00".repeat(26);

t.test("constants", (t) => {
  t.equal(PFC_DST_MAC, 0x0180c2000001);
  t.equal(EtherType.MacControl, 0x8808);
  t.equal(MacControlOpcode.Pfc, 0x0101);
  t.equal(MacControlOpcode.Pause, 0x0001);
  t.end();
});

t.test("the priority-3 XOFF test vector, byte for byte", (t) => {
  const frame = buildPfcFrame({ src: SRC, quanta: [null, null, null, 0xffff, null, null, null, null] });
  t.equal(frame.length, 60);
  t.equal(toHex(frame), toHex(fromHex(PRIO3_XOFF)));
  const p = parsePfcFrame(fromHex(PRIO3_XOFF));
  t.ok(p.ok);
  if (!p.ok) return t.end();
  t.equal(p.value.src, SRC);
  t.same(p.value.control, {
    kind: "pfc",
    enableVector: 0x08,
    reserved: 0,
    quanta: [0, 0, 0, 0xffff, 0, 0, 0, 0],
  });
  t.end();
});

t.test("several priorities: XON (time 0) is enabled, null is not", (t) => {
  const frame = buildPfcFrame({ src: SRC, quanta: [0, null, null, 0, null, null, 100, null] });
  // Wireshark: enable vector 0x0049 = C0, C3, C6; C6 time 100.
  t.equal(
    toHex(frame),
    toHex(
      fromHex(
        "0180c2000001 020000000001 8808 0101 0049 0000 0000 0000 0000 0000 0000 0064 0000" + "00".repeat(26),
      ),
    ),
  );
  const p = parseMacControl(frame, 14);
  t.ok(p.ok);
  if (!p.ok || p.value.kind !== "pfc") return t.end();
  const pfc = p.value;
  const enabled = [0, 1, 2, 3, 4, 5, 6, 7].filter((prio) => pfcPriorityEnabled(pfc.enableVector, prio));
  t.same(enabled, [0, 3, 6]);
  t.equal(pfc.quanta[6], 100);

  const all = buildPfcFrame({ src: SRC, quanta: [1, 2, 3, 4, 5, 6, 7, 0xfffe] });
  const q = parseMacControl(all, 14);
  t.same(q.ok && q.value, {
    kind: "pfc",
    enableVector: 0xff,
    reserved: 0,
    quanta: [1, 2, 3, 4, 5, 6, 7, 0xfffe],
  });
  const none = buildPfcFrame({ src: SRC, quanta: [null, null, null, null, null, null, null, null] });
  t.equal(toHex(none.subarray(14, 34)), "0101" + "0000" + "0000".repeat(8));
  t.end();
});

t.test("802.3x PAUSE", (t) => {
  const frame = buildPauseFrame({ src: SRC, quanta: 4096 });
  // Wireshark: "Pause: pause_time: 4096 quanta".
  t.equal(toHex(frame), toHex(fromHex("0180c2000001 020000000001 8808 0001 1000" + "00".repeat(42))));
  const p = parsePfcFrame(frame);
  t.ok(p.ok);
  if (p.ok) t.same(p.value.control, { kind: "pause", quanta: 4096 });
  t.end();
});

t.test("builders refuse what cannot be encoded", (t) => {
  const seven = [null, null, null, 1, null, null, null];
  t.throws(() => buildPfcFrame({ src: SRC, quanta: seven }), RangeError);
  t.throws(() => buildPfcFrame({ src: SRC, quanta: [...seven, null, null] }), RangeError);
  t.throws(
    () => buildPfcFrame({ src: SRC, quanta: [0x10000, null, null, null, null, null, null, null] }),
    RangeError,
  );
  t.throws(
    () => buildPfcFrame({ src: SRC, quanta: [-1, null, null, null, null, null, null, null] }),
    RangeError,
  );
  t.throws(
    () => buildPfcFrame({ src: SRC, quanta: [1.5, null, null, null, null, null, null, null] }),
    RangeError,
  );
  t.throws(() => buildPauseFrame({ src: SRC, quanta: 70000 }), RangeError);
  t.end();
});

t.test("malformed MAC Control payloads", (t) => {
  const pfc = fromHex(PRIO3_XOFF).subarray(14);
  const cases: [string, Uint8Array, string, number][] = [
    ["no opcode", fromHex("01"), "truncated", 0],
    ["MPCP GATE opcode", fromHex("0002 0000 0000"), "bad-value", 0],
    ["opcode 0", fromHex("0000 0000"), "bad-value", 0],
    ["PFC cut before the last time", pfc.subarray(0, 19), "truncated", 0],
    ["PAUSE cut", fromHex("0001 10"), "truncated", 0],
  ];
  for (const [name, buf, code, offset] of cases) {
    const p = parseMacControl(buf, 0);
    t.notOk(p.ok, name);
    if (!p.ok) {
      t.equal(p.error.code, code, name);
      t.equal(p.error.offset, offset, name);
    }
  }
  const past = parseMacControl(pfc, 50);
  t.notOk(past.ok);
  if (!past.ok) t.equal(past.error.code, "truncated");
  t.end();
});

t.test("parsePfcFrame checks the Ethernet header", (t) => {
  const good = fromHex(PRIO3_XOFF);
  const patch = (at: number, hex: string) => {
    const b = good.slice();
    b.set(fromHex(hex), at);
    return b;
  };
  const tagged = fromHex(
    "0180c2000001 020000000001 8100 6000 8808 0101 0008" + "0000".repeat(8) + "00".repeat(22),
  );
  const cases: [string, Uint8Array, string, number][] = [
    ["shorter than an Ethernet header", good.subarray(0, 13), "truncated", 0],
    ["EtherType IPv4", patch(12, "0800"), "bad-value", 12],
    ["destination 01:80:c2:00:00:02 (slow protocols)", patch(0, "0180c2000002"), "bad-value", 0],
    ["broadcast destination", patch(0, "ffffffffffff"), "bad-value", 0],
    ["VLAN-tagged", tagged, "bad-value", 12],
    ["payload cut", good.subarray(0, 30), "truncated", 14],
    ["unknown opcode", patch(14, "0003"), "bad-value", 14],
  ];
  for (const [name, buf, code, offset] of cases) {
    const p = parsePfcFrame(buf);
    t.notOk(p.ok, name);
    if (!p.ok) {
      t.equal(p.error.code, code, name);
      t.equal(p.error.offset, offset, name);
    }
  }
  t.end();
});

t.test("no read out of bounds on any prefix", (t) => {
  const good = fromHex(PRIO3_XOFF);
  for (let n = 0; n < 34; n++) {
    const p = parsePfcFrame(guarded(good.slice(0, n)));
    if (p.ok || p.error.code !== "truncated") t.fail(`prefix of ${n} bytes`);
  }
  t.ok(parsePfcFrame(guarded(good.slice(0, 34))).ok, "padding is not required");
  t.end();
});

t.test("pause time: 1 quantum = 512 bit times at the link rate", (t) => {
  t.equal(pauseQuantumNs(100e9), 5.12);
  t.equal(pauseQuantumNs(40e9), 12.8);
  t.equal(pauseQuantumNs(10e9), 51.2);
  t.equal(pauseQuantumNs(25e9), 20.48);
  t.equal(pauseQuantumNs(1e9), 512);
  // 65535 × 12.8 ns. (65536 quanta would be 838,860.8 ns.)
  t.equal(quantaToNs(0xffff, 40e9), 838_848);
  t.equal(quantaToNs(0xffff, 100e9), 335_539.2);
  t.equal(quantaToNs(1, 100e9), 5.12);
  t.equal(quantaToNs(3, 40e9), 38.4, "no floating-point residue (3 × 12.8 would give 38.400000000000006)");
  t.equal(quantaToNs(0, 100e9), 0);
  t.end();
});

t.test("ns to quanta rounds up and clamps", (t) => {
  t.equal(nsToQuanta(838_848, 40e9), 0xffff);
  t.equal(nsToQuanta(838_860.8, 40e9), 0xffff, "clamped");
  t.equal(nsToQuanta(1e9, 40e9), 0xffff, "clamped");
  t.equal(nsToQuanta(Number.POSITIVE_INFINITY, 40e9), 0xffff);
  t.equal(nsToQuanta(5.12, 100e9), 1);
  t.equal(nsToQuanta(5.13, 100e9), 2, "a little more than one quantum needs two");
  t.equal(nsToQuanta(1, 100e9), 1, "any positive time is at least one quantum");
  t.equal(nsToQuanta(1000, 100e9), 196, "1 µs at 100G = 195.3 quanta, rounded up");
  t.equal(nsToQuanta(0, 100e9), 0);
  t.equal(nsToQuanta(-5, 100e9), 0);
  t.equal(nsToQuanta(Number.NaN, 100e9), 0);
  for (const rate of [10e9, 25e9, 40e9, 50e9, 100e9, 200e9, 400e9]) {
    for (let q = 0; q <= 0xffff; q++) {
      if (nsToQuanta(quantaToNs(q, rate), rate) !== q) {
        t.fail(`round trip of ${q} quanta at ${rate / 1e9} Gb/s`);
        break;
      }
    }
  }
  t.end();
});

t.test("a PFC frame with a non-zero reserved octet (built by Scapy) is taken, the octet ignored", (t) => {
  const frame = fromHex(SCAPY_PFC_RESERVED_A5);
  t.equal(frame.length, 60);
  const p = parsePfcFrame(frame);
  t.ok(p.ok, "accepted");
  if (p.ok) {
    t.equal(p.value.src, 0x02_00_00_00_00_05);
    t.same(p.value.control, {
      kind: "pfc",
      enableVector: 0x08,
      reserved: 0xa5,
      quanta: [0, 0, 0, 0xffff, 0, 0, 0, 0],
    });
  }
  // Nothing else about the frame may be loosened: the same frame with another opcode is still refused.
  const other = frame.slice();
  other[15] = 0x02;
  t.notOk(parsePfcFrame(other).ok, "an unknown opcode is still refused");
  t.end();
});
