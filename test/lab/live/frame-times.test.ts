// Matching a live capture's frames to the device's record of their emulated times (lab/live/frame-times.ts,
// capture-times.ts), and the round trips of pings and trace probes read from that record.
import t from "tap";
import { emulatedPcapng } from "../../../src/lab/live/capture-times.js";
import {
  echoRoundTrips,
  matchFrames,
  probeRoundTrips,
  type TimedFrame,
} from "../../../src/lab/live/frame-times.js";
import { FRAME_HEAD_BYTES } from "../../../src/runtime/realtime/frame-times.js";
import { parseIp } from "../../../src/wire/bytes.js";
import { buildIcmpFrame, IcmpType } from "../../../src/wire/icmp.js";
import type { PcapFile } from "../../../src/wire/pcap.js";
import { parsePcapng } from "../../../src/wire/pcapng.js";

const H1 = parseIp("10.1.0.1")!;
const H8 = parseIp("10.1.0.15")!;
const echo = (type: 0 | 8, seq: number, src = H1, dst = H8) =>
  buildIcmpFrame({
    srcMac: 1,
    dstMac: 2,
    srcIp: src,
    dstIp: dst,
    message: { type, identifier: 77, sequence: seq },
  });
const timed = (sent: boolean, t: number, frame: Uint8Array): TimedFrame => ({
  sent,
  t,
  length: frame.length,
  head: frame.slice(0, FRAME_HEAD_BYTES),
});

t.test("each captured frame finds its record, in each direction's order", async (t) => {
  const a = echo(8, 1);
  const b = echo(0, 1, H8, H1);
  const c = echo(8, 2);
  // Recorded before the capture started (skipped), then a, b, c; the capture also has a frame of the kernel's.
  const kernel = new Uint8Array(90).fill(7);
  const records = [
    timed(true, 5, echo(8, 0)),
    timed(true, 100, a),
    timed(false, 110, b),
    timed(true, 400, c),
  ];
  const captured = [a, kernel, b, c].map((frame) => ({ frame, originalLength: frame.length }));
  const m = matchFrames(captured, records);
  t.same(
    m.map((x) => x?.t ?? null),
    [100, null, 110, 400],
  );
  t.same(echoRoundTrips(records), new Map([["77:1", 10]]), "request out at 100, reply in at 110");
});

t.test(
  "a pcapng in emulated time: matched frames, and a frame of the kernel's scaled by the dilation",
  async (t) => {
    const a = echo(8, 1);
    const b = echo(0, 1, H8, H1);
    const kernel = new Uint8Array(90).fill(7);
    const pcap: PcapFile = {
      linkType: 1,
      fcsLength: null,
      nanosecond: true,
      bigEndian: false,
      versionMajor: 2,
      versionMinor: 4,
      snapLength: 65535,
      records: [
        { tNs: 1_700_000_000_000_000_000n, frame: a, originalLength: a.length },
        { tNs: 1_700_000_000_002_000_000n, frame: kernel, originalLength: 90 },
        { tNs: 1_700_000_000_015_000_000n, frame: b, originalLength: b.length },
      ],
    };
    const out = emulatedPcapng(pcap, [timed(true, 1_000_000, a), timed(false, 1_010_500, b)], false, {
      lab: "x",
      node: "h1",
      port: 1,
      dilation: 1000,
    });
    t.equal(out.packets, 3);
    t.match(
      out.comment,
      /^timestamps: EMULATED time of lab x.*; 1 of 3 frames were not sent or read by h1's device/,
    );
    const back = parsePcapng(out.bytes);
    t.ok(back.ok);
    if (!back.ok) return;
    t.same(
      back.value.records.map((r) => r.tNs),
      [1_000_000n, 1_002_000n, 1_010_500n],
      "the kernel's frame 2 ms real after a: 2 µs emulated after it",
    );
  },
);

t.test("trace probes and the time-exceeded that quotes them", async (t) => {
  const probe = buildIcmpFrame({
    srcMac: 1,
    dstMac: 2,
    srcIp: H1,
    dstIp: H8,
    identification: 0x5202,
    ttl: 2,
    message: { type: IcmpType.EchoRequest, identifier: 1, sequence: 1 },
  });
  // A UDP probe: the protocol byte says 17 (only the IP header is read).
  probe[14 + 9] = 17;
  const answer = buildIcmpFrame({
    srcMac: 2,
    dstMac: 1,
    srcIp: parseIp("10.0.0.3")!,
    dstIp: H1,
    message: { type: IcmpType.TimeExceeded, code: 0, original: probe.subarray(14, 14 + 28) },
  });
  t.same(probeRoundTrips([timed(true, 50, probe), timed(false, 4_070, answer)]), new Map([[2, 4_020]]));
});

t.test("a live run's capture says what its timestamps are and what it left out", async (t) => {
  const { describeLiveCapture } = await import("../../../src/lab/live/capture.js");
  const clean = describeLiveCapture({
    file: "o/c.pcap",
    frames: 12,
    untimed: 0,
    beforeStart: 0,
    truncated: false,
    droppedByKernel: 0,
    cutShort: false,
    unreadAtStop: 0,
  });
  t.equal(clean, "12 frames captured into o/c.pcap (emulated ns since the scenario's time 0)");
  const all = describeLiveCapture({
    file: "o/c.pcap",
    frames: 12,
    untimed: 2,
    beforeStart: 3,
    truncated: true,
    droppedByKernel: 82,
    cutShort: true,
    unreadAtStop: 1041,
  });
  t.match(all, /2 not timed by the device \(the kernel's own\): scaled kernel time/);
  t.match(all, /3 before the scenario's time 0 left out/);
  t.match(all, /record of frame times filled up/);
  t.match(all, /82 dropped by the kernel before tcpdump read them .*missing from the file, not from the run/);
  t.match(all, /the last frame left out: tcpdump stopped while writing it/);
  t.match(
    all,
    /1041 still in tcpdump's buffer when it was stopped .*missing from the file, not from the run/,
  );
});

t.test("tcpdump's closing statistics: what the kernel dropped", async (t) => {
  const { kernelDrops } = await import("../../../src/lab/live/capture.js");
  const stderr = [
    "tcpdump: listening on eth3, link-type EN10MB (Ethernet), snapshot length 65535 bytes",
    "1041 packets captured",
    "1123 packets received by filter",
    "82 packets dropped by kernel",
  ].join("\n");
  t.equal(kernelDrops(stderr), 82);
  t.equal(kernelDrops(stderr.replace("82 packets dropped", "0 packets dropped")), 0);
  t.equal(kernelDrops("1 packet captured\n1 packet received by filter"), 0, "no statistics line: 0");
});

t.test("tcpdump's closing statistics: what it had not read when stopped", async (t) => {
  const { unreadAtStop } = await import("../../../src/lab/live/capture.js");
  // A loaded machine: tcpdump behind when the run's end interrupted it (leaf1:eth2 of the DCQCN incast).
  t.equal(
    unreadAtStop("2361 packets captured\n3402 packets received by filter\n0 packets dropped by kernel"),
    1041,
  );
  t.equal(unreadAtStop("1 packet captured\n1 packet received by filter\n0 packets dropped by kernel"), 0);
  t.equal(unreadAtStop("tcpdump: listening on eth1"), 0, "no statistics: 0");
});
