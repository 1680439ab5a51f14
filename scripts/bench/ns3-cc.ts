// The congestion controls `sim-vs-ns3 --cc …` compares with HPCC's ns-3 (alibaba-edu/High-Precision-
// Congestion-Control, simulation/run.py and scratch/third.cc): for each, the lines of the config.txt that
// run.py writes for `--cc X --bw 100`, and rocelab's matching host and switch settings.
//
// * dcqcn: run.py `--cc dcqcn` (CC_MODE 1); our `dcqcn: hpcc-ns3` profile.
// * hpcc: run.py `--cc hp` (CC_MODE 3): η (U_TARGET) 0.95, MI_THRESH 0, FAST_REACT 1, RATE_AI 10·bw/25
//   = 40 Mb/s, a window of the largest BDP (HAS_WIN 1, GLOBAL_T 1, VAR_WIN 1), INT_MULTI bw/25 = 4, ACKs on
//   the data queue (ACK_HIGH_PRIO 0). Its switches push an IntHop at dequeue; ours need `int.enabled`.
// * timely: run.py `--cc timely` (CC_MODE 7): RATE_AI bw = 100 Mb/s, RATE_HAI 5·bw = 500 Mb/s, no window,
//   ACK_HIGH_PRIO 1; its data packets carry an 8-byte timestamp (IntHeader::TS).
// * dctcp: run.py `--cc dctcp` (CC_MODE 8): EWMA_GAIN 1/16, DCTCP_RATE_AI 615 Mb/s, a window of the largest
//   BDP (ours: the same wire time), ECN marking at Kmin = Kmax = 30·bw/10 KB = 300 KB with Pmax 1, ACK_HIGH_PRIO 0.
// * off: no ECN marking (ENABLE_QCN 0), DCQCN's mode with nothing to react to; our `cc: none`.
//
// Every mode runs with run.py's MIN_RATE 1000Mb/s, so ours set minRate to it too.

import { INT_DEFAULT_MAX_HOPS, IntMode, intBlockLength } from "../../src/wire/int-md.js";

export const CC_MODES = ["dcqcn", "off", "hpcc", "timely", "dctcp"] as const;
export type CcMode = (typeof CC_MODES)[number];

/** `--cc a,b`: the modes, each checked (the error names the flag and what is allowed). */
export function parseCcModes(text: string): CcMode[] {
  const xs = text.split(",").map((s) => s.trim());
  const bad = xs.filter((x) => !(CC_MODES as readonly string[]).includes(x));
  if (xs.length === 0 || bad.length > 0)
    throw new Error(`--cc ${text}: expected a list of ${CC_MODES.join(", ")} (not ${bad.join(", ")})`);
  return xs as CcMode[];
}

export function ccLabel(cc: CcMode): string {
  return { dcqcn: "DCQCN", off: "CC off", hpcc: "HPCC", timely: "TIMELY", dctcp: "DCTCP" }[cc];
}

/** run.py's CC_MODE. */
const NS3_MODE: Record<CcMode, number> = { dcqcn: 1, off: 1, hpcc: 3, timely: 7, dctcp: 8 };

/** Bytes HPCC's IntHeader adds to each packet (int-header.cc GetStaticSize: 5 hops × 8 + 2, or the 8-byte TS). */
export function ns3IntBytes(cc: CcMode): number {
  return cc === "hpcc" ? 5 * 8 + 2 : cc === "timely" ? 8 : 0;
}

/** Bytes of the INT block rocelab's NIC puts in each data packet under `cc` (from src/wire/int-md.ts). */
export function ourIntBytes(cc: CcMode): number {
  if (cc === "hpcc") return intBlockLength(IntMode.Collect, INT_DEFAULT_MAX_HOPS);
  if (cc === "timely") return intBlockLength(IntMode.Timestamp, INT_DEFAULT_MAX_HOPS);
  return 0;
}

/**
 * Wire time per payload byte, HPCC's data packet over ours: HPCC's 1,048 bytes (+ its IntHeader) per 1,000
 * of payload, truncated to whole ns, against ours: 1,024 bytes of payload, 82 of framing (headers, ICRC,
 * FCS, preamble, gap) and the INT block.
 */
export function wireScale(cc: CcMode): number {
  const theirs = Math.floor(((1048 + ns3IntBytes(cc)) * 8) / 100) / 1000;
  const ours = ((1024 + 82 + ourIntBytes(cc)) * 8) / 100 / 1024;
  return theirs / ours;
}

/**
 * Buffer bytes per ns of wire, ours over HPCC's, for `cc`'s data packet: ours 1,082 bytes in the buffer
 * (+ the INT block) for 1,106 (+ the block) of wire, HPCC's 1,048 (+ its IntHeader) for that many bytes'
 * whole ns at 100 Gb/s. `--byte-scale` multiplies our byte settings by it, so each holds HPCC's wire time:
 * 0.9685 without INT, 0.9732 for TIMELY, 0.9789 for HPCC.
 */
export function byteScale(cc: CcMode): number {
  const ours = (1082 + ourIntBytes(cc)) / (((1106 + ourIntBytes(cc)) * 8) / 100);
  const theirs = (1048 + ns3IntBytes(cc)) / Math.floor(((1048 + ns3IntBytes(cc)) * 8) / 100);
  return ours / theirs;
}

/**
 * The base RTT as third.cc computes it for a path of `hops` 1 µs links at 100 Gb/s (twice the delay plus
 * one packet's payload serialised per hop), with our 1,024-byte payload: HPCC's T, and with it the window.
 */
export function baseRttNs(hops: number): number {
  return Math.round(2 * hops * 1000 + (hops * 1024 * 8) / 100);
}

/** Bytes in flight at 100 Gb/s over `baseRttNs(hops)` (third.cc's maxBdp). */
export function bdpBytes(hops: number): number {
  return Math.round((baseRttNs(hops) * 100) / 8);
}

/**
 * Our host settings for `cc` (`hops`: the longest path, as GLOBAL_T 1 takes the largest RTT). `wireWindow`
 * (`--hpcc-window wire`): HPCC's window in ns-3's wire time, as DCTCP's always is. Both simulators bound the
 * payload bytes in flight by maxBdp (ns-3's snd_nxt − snd_una), so one BDP of payload is 1.09 BDPs of
 * wire in ns-3 (1,090-byte packets for 1,000 of payload) and 1.24 here (1,270 for 1,024): wireScale
 * makes ours ns-3's 13.6 µs of wire. u's queue term keeps R_max · T (hpcc.ts).
 */
export function ccHostSettings(cc: CcMode, hops: number, wireWindow = false): Record<string, unknown> {
  const minRate = "1000Mb/s";
  switch (cc) {
    case "dcqcn":
      return { cc: "dcqcn", dcqcn: "hpcc-ns3" };
    case "off":
      return { cc: "none" };
    case "hpcc":
      return {
        cc: "hpcc",
        hpcc: {
          eta: 0.95,
          maxStage: 0,
          fastReact: true,
          rai: "40Mb/s",
          baseRtt: `${baseRttNs(hops)}ns`,
          minRate,
          ...(wireWindow ? { window: Math.round(bdpBytes(hops) * wireScale(cc)) } : {}),
        },
      };
    case "timely":
      return { cc: "timely", timely: { rai: "100Mb/s", rhai: "500Mb/s", minRate } };
    case "dctcp":
      // ns-3's window is maxBdp bytes of its 1,000-byte payloads (52 packets, 4.3 µs of wire through one
      // switch); ours holds the same wire time, as each flow's bytes do (wireScale): 52,050 bytes would be
      // 4 % more, and a resumed sender's burst after a PFC pause one or two packets longer.
      return {
        cc: "dctcp",
        dctcp: { g: 1 / 16, rai: "615Mb/s", window: Math.round(bdpBytes(hops) * wireScale(cc)), minRate },
      };
  }
}

/** Our switches' ECN (at dequeue, on the lossless queue 3) and INT for `cc`; `kb` scales byte settings. */
export function ccSwitchSettings(
  cc: CcMode,
  kb: (bytes: number) => number | string,
): Record<string, unknown> {
  const ecn =
    cc === "off"
      ? { queues: { "3": null } }
      : cc === "dctcp"
        ? { fast: true, queues: { "3": { kmin: kb(300_000), kmax: kb(300_000), pmax: "100%" } } }
        : { fast: true, queues: { "3": { kmin: kb(400_000), kmax: kb(1_600_000), pmax: "20%" } } };
  return { ecn, ...(cc === "hpcc" ? { int: { enabled: true } } : {}) };
}

/** The config.txt lines run.py writes for `cc` at 100 Gb/s (the rest of the file is the same for all). */
export function ns3CcConfig(cc: CcMode): string[] {
  const hp = cc === "hpcc";
  const win = cc === "hpcc" || cc === "dctcp";
  const kmax = cc === "dctcp" ? 300 : 1600;
  const kmin = cc === "dctcp" ? 300 : 400;
  const pmax = cc === "dctcp" ? "1.00" : "0.20";
  return [
    `ENABLE_QCN ${cc === "off" ? 0 : 1}`,
    `CC_MODE ${NS3_MODE[cc]}`,
    `EWMA_GAIN ${cc === "dctcp" ? 0.0625 : 0.00390625}`,
    `RATE_AI ${hp ? 40 : cc === "timely" ? 100 : cc === "dctcp" ? 10 : 20}Mb/s`,
    `RATE_HAI ${hp ? 40 : cc === "timely" ? 500 : cc === "dctcp" ? 10 : 200}Mb/s`,
    `DCTCP_RATE_AI ${cc === "dctcp" ? 615 : 1000}Mb/s`,
    `HAS_WIN ${win ? 1 : 0}`,
    `VAR_WIN ${win ? 1 : 0}`,
    `FAST_REACT ${hp ? 1 : 0}`,
    `INT_MULTI ${hp ? 4 : 1}`,
    `ACK_HIGH_PRIO ${win ? 0 : 1}`,
    `KMAX_MAP 2 100000000000 ${kmax} 400000000000 ${kmax * 4}`,
    `KMIN_MAP 2 100000000000 ${kmin} 400000000000 ${kmin * 4}`,
    `PMAX_MAP 2 100000000000 ${pmax} 400000000000 ${pmax}`,
  ];
}
