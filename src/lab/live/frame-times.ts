// The emulated times of the frames on one port of a live lab (runtime/realtime/frame-times.ts records them in
// the device): asked for while something runs (a capture, a ping, a trace), then matched to what that
// something saw — the captured frames of a pcap, the ICMP echoes of a ping, the probes of a trace.

import type { FrameTime, FrameTimes } from "../../runtime/realtime/frame-times.js";
import type { LiveLab } from "./live-lab.js";

/** A recorded frame with its head as bytes. */
export interface TimedFrame {
  readonly sent: boolean;
  readonly t: number;
  readonly length: number;
  readonly head: Uint8Array;
}

export function decodeFrameTimes(times: readonly FrameTime[]): TimedFrame[] {
  return times.map((f) => ({
    sent: f.o === 1,
    t: f.t,
    length: f.n,
    head: new Uint8Array(Buffer.from(f.h, "base64")),
  }));
}

/**
 * Runs `during` while `node:eth<port>` records its frames' emulated times; stops the recording however
 * `during` ends.
 */
export async function withFrameTimes<T>(
  lab: LiveLab,
  node: string,
  port: number,
  during: () => Promise<T>,
): Promise<{ result: T; frames: TimedFrame[]; truncated: boolean }> {
  await lab.request("frame-times", { node, port, on: true });
  let result: T;
  try {
    result = await during();
  } catch (e) {
    await lab.request("frame-times", { node, port, on: false }).catch(() => undefined);
    throw e;
  }
  const r = await lab.request<FrameTimes>("frame-times", { node, port, on: false });
  return { result, frames: decodeFrameTimes(r.frames), truncated: r.truncated };
}

/** How far ahead in a direction's list a captured frame's record is looked for. */
const MATCH_WINDOW = 50_000;

/** Whether the captured `frame` (of original length `length`) is the recorded `f`. */
function same(f: TimedFrame, frame: Uint8Array, length: number): boolean {
  if (f.length !== length) return false;
  const n = Math.min(f.head.length, frame.length);
  for (let i = 0; i < n; i++) if (f.head[i] !== frame[i]) return false;
  return true;
}

/**
 * For each captured frame (in capture order), the recorded frame it is, or null: each direction's frames
 * are in the order the device sent or read them, so the search goes forward from the last match in each.
 */
export function matchFrames(
  captured: readonly { readonly frame: Uint8Array; readonly originalLength: number }[],
  frames: readonly TimedFrame[],
): (TimedFrame | null)[] {
  const lists = [frames.filter((f) => f.sent), frames.filter((f) => !f.sent)];
  const cursors = [0, 0];
  return captured.map((c) => {
    let best: { list: number; index: number } | null = null;
    for (let l = 0; l < 2; l++) {
      const list = lists[l]!;
      const end = Math.min(list.length, cursors[l]! + MATCH_WINDOW);
      for (let i = cursors[l]!; i < end; i++) {
        if (!same(list[i]!, c.frame, c.originalLength)) continue;
        if (best === null || i - cursors[l]! < best.index - cursors[best.list]!) best = { list: l, index: i };
        break;
      }
    }
    if (best === null) return null;
    cursors[best.list] = best.index + 1;
    return lists[best.list]![best.index]!;
  });
}

/** The IPv4 packet in a frame's head: its offset, protocol and identification (after an 802.1Q tag too). */
export function ipv4Of(head: Uint8Array): { at: number; proto: number; id: number; ihl: number } | null {
  let at = 14;
  let type = (head[12]! << 8) | head[13]!;
  if (type === 0x8100) {
    type = (head[16]! << 8) | head[17]!;
    at = 18;
  }
  if (type !== 0x0800 || head.length < at + 20 || head[at]! >> 4 !== 4) return null;
  return { at, proto: head[at + 9]!, id: (head[at + 4]! << 8) | head[at + 5]!, ihl: (head[at]! & 0xf) * 4 };
}

/** ICMP echo request/reply round trips seen on a host's port: id:seq -> emulated ns. */
export function echoRoundTrips(frames: readonly TimedFrame[]): Map<string, number> {
  const asked = new Map<string, number>();
  const out = new Map<string, number>();
  for (const f of frames) {
    const ip = ipv4Of(f.head);
    if (ip === null || ip.proto !== 1) continue;
    const icmp = ip.at + ip.ihl;
    if (f.head.length < icmp + 8) continue;
    const type = f.head[icmp]!;
    const key = `${(f.head[icmp + 4]! << 8) | f.head[icmp + 5]!}:${(f.head[icmp + 6]! << 8) | f.head[icmp + 7]!}`;
    if (type === 8 && f.sent) asked.set(key, f.t);
    else if (type === 0 && !f.sent) {
      const t0 = asked.get(key);
      if (t0 !== undefined && !out.has(key)) out.set(key, f.t - t0);
    }
  }
  return out;
}

/**
 * Round trips of TTL-limited probes (trace-tool.ts: IP identification 0x5200 + TTL) to the ICMP
 * time-exceeded that quotes them: TTL -> emulated ns.
 */
export function probeRoundTrips(frames: readonly TimedFrame[], idBase = 0x5200): Map<number, number> {
  const sent = new Map<number, number>();
  const out = new Map<number, number>();
  for (const f of frames) {
    const ip = ipv4Of(f.head);
    if (ip === null) continue;
    if (f.sent && ip.proto === 17 && ip.id >= idBase && ip.id < idBase + 256) sent.set(ip.id, f.t);
    if (!f.sent && ip.proto === 1) {
      const icmp = ip.at + ip.ihl;
      if (f.head.length < icmp + 8 + 6 || f.head[icmp] !== 11) continue;
      const quotedId = (f.head[icmp + 12]! << 8) | f.head[icmp + 13]!;
      const t0 = sent.get(quotedId);
      if (t0 !== undefined && !out.has(quotedId - idBase)) out.set(quotedId - idBase, f.t - t0);
    }
  }
  return out;
}
