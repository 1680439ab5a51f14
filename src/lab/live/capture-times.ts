// A live capture's frames with the lab's emulated timestamps: tcpdump's pcap (kernel wall-clock stamps)
// and the device's record of when each frame left or arrived on the emulated wire (frame-times.ts) become
// one pcapng whose section comment says what the timestamps are. Wireshark's I/O graphs, tshark's
// frame.time_delta and TCP/RoCE timing then show the emulated network (a 1 µs link is 1 µs apart), not how
// long the processes took to move the frames.

import { type PcapFile, PcapLinkType } from "../../wire/pcap.js";
import { PacketDirection, type PcapngPacket, serializePcapng } from "../../wire/pcapng.js";
import { matchFrames, type TimedFrame } from "./frame-times.js";

export interface CaptureWhere {
  readonly lab: string;
  readonly node: string;
  readonly port: number;
  readonly dilation: number;
}

export interface CaptureFileBytes {
  readonly bytes: Uint8Array;
  readonly packets: number;
  /** What the timestamps are: the pcapng's comment and the command's report. */
  readonly comment: string;
}

function iface(w: CaptureWhere, snapLength: number) {
  return {
    name: `${w.node}:eth${w.port}`,
    description: `rocelab lab ${w.lab}, ${w.node}:eth${w.port}`,
    linkType: PcapLinkType.Ethernet,
    snapLength,
  };
}

/** tcpdump's frames and stamps as they are, in a pcapng that says the stamps are real. */
export function realPcapng(pcap: PcapFile, w: CaptureWhere): CaptureFileBytes {
  const comment = `timestamps: REAL time (the kernel's wall clock when tcpdump saw the frame on ${w.node}:eth${w.port}); the lab runs at dilation ${w.dilation}, so emulated gaps are about ${w.dilation}x shorter, plus whatever the processes took`;
  const packets = pcap.records.map((r) => ({ frame: r.frame, tNs: r.tNs, originalLength: r.originalLength }));
  return {
    bytes: serializePcapng(comment, iface(w, pcap.snapLength), packets),
    packets: packets.length,
    comment,
  };
}

/**
 * The captured frames stamped with the device's emulated times, in time order. A captured frame the device
 * did not send or read (the kernel's own on the veth, or one before the record started) is stamped from its
 * kernel time, scaled by the dilation, after the nearest frame before it that the device did time.
 */
export function emulatedPcapng(
  pcap: PcapFile,
  frames: readonly TimedFrame[],
  truncated: boolean,
  w: CaptureWhere,
): CaptureFileBytes {
  const matched = matchFrames(pcap.records, frames);
  let anchor: { real: bigint; t: number } | null = null;
  const firstMatch = matched.findIndex((m) => m !== null);
  if (firstMatch >= 0) anchor = { real: pcap.records[firstMatch]!.tNs, t: matched[firstMatch]!.t };
  let unmatched = 0;
  const packets: (PcapngPacket & { readonly t: number })[] = pcap.records.map((r, i) => {
    const m = matched[i]!;
    if (m !== null) {
      anchor = { real: r.tNs, t: m.t };
      return {
        frame: r.frame,
        t: m.t,
        tNs: Math.round(m.t),
        originalLength: r.originalLength,
        direction: m.sent ? PacketDirection.Outbound : PacketDirection.Inbound,
      };
    }
    unmatched++;
    const t =
      anchor === null
        ? Number(r.tNs - pcap.records[0]!.tNs) / w.dilation
        : Math.max(0, anchor.t + Number(r.tNs - anchor.real) / w.dilation);
    return { frame: r.frame, t, tNs: Math.round(t), originalLength: r.originalLength };
  });
  packets.sort((a, b) => a.t - b.t);
  const notes = [
    unmatched > 0
      ? `${unmatched} of ${packets.length} frames were not sent or read by ${w.node}'s device (the kernel's own on the veth) and carry their kernel time scaled by the dilation`
      : null,
    truncated ? "the device's record of frame times filled up: later frames carry scaled kernel times" : null,
  ].filter((n) => n !== null);
  const comment = [
    `timestamps: EMULATED time of lab ${w.lab}, ns since the lab started (readers show 1970-01-01 plus that time): a frame ${w.node}:eth${w.port} sent is stamped when it left the port, a frame it received when it arrived on the emulated wire (dilation ${w.dilation}: real time ran ${w.dilation}x slower)`,
    ...notes,
  ].join("; ");
  return {
    bytes: serializePcapng(comment, iface(w, pcap.snapLength), packets),
    packets: packets.length,
    comment,
  };
}
