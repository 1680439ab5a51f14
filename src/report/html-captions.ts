// The captions under the report page's charts. The chart already carries its title (which series it
// shows and why), so a caption that repeated it said nothing: each caption gives the run's figure the
// chart is about and how to read the chart (what a healthy and a sick run look like on it).

import { formatDuration, formatSize } from "../device/units.js";
import { EXTRA_PLOT_FILES } from "./extra-plots.js";
import { PLOT_FILES } from "./plot-kit.js";
import type { Report } from "./report.js";
import { fctValueText, flowsText, goodputText } from "./summary-text.js";

type Caption = (r: Report) => string;

const CAPTIONS: Readonly<Record<string, Caption>> = {
  [PLOT_FILES.queueDepth]: (r) =>
    `Deepest switch queue of the run: ${formatSize(r.summary.queuePeakBytes)}, ${r.summary.ecnMarked} packets marked CE. A queue that stays high after the marks began means the senders have not slowed enough; one that climbs to the PFC threshold pauses its upstream (next chart).`,
  [PLOT_FILES.pfcPause]: (r) =>
    `${r.summary.pauseFramesTx} XOFF frames sent; queues spent ${formatDuration(r.summary.pauseTimeNs)} paused, summed over every port and priority (the PFC table below has each one). A bar that starts later one hop further upstream is the pause spreading: head-of-line blocking.`,
  [PLOT_FILES.dcqcn]: (r) =>
    `${r.summary.cnpHandled} CNPs handled by the senders (${r.summary.cnpSent} sent). Each cut follows a CNP; the climbs between are DCQCN's recovery (fast recovery, then additive and hyper increase). Rates that keep sawing at the bottom mean persistent marking.`,
  [PLOT_FILES.goodput]: (r) =>
    `Goodput over the run: ${goodputText(r.summary)}. The sum line is what the receivers got; gaps in it are PFC pauses or losses, a flat line below the line rate is congestion control holding the senders back.`,
  [PLOT_FILES.fctCdf]: (r) =>
    `FCT p50 ${fctValueText(r.summary.fctNs, "p50")}, p99 ${fctValueText(r.summary.fctNs, "p99")}; flows ${flowsText(r.summary)}. A long tail (the curve flattening near the top) is the few flows that waited behind pauses or retransmitted.`,
  [PLOT_FILES.ccState]: () =>
    "What the window-based and delay-based algorithms steer by (docs/int.md): HPCC's window follows U, the largest normalised inflight over the hops, towards η (0.95); U above η means a queue is building. DCTCP's window (with dctcp.window set) follows its rate, cut by α/2 at most once per RTT while marks arrive; its α is in the rate chart. TIMELY's RTT samples rising past T_high (or with a positive gradient) cut its rate.",
  [EXTRA_PLOT_FILES.cnpRate]: (r) =>
    `${r.summary.cnpSent} CNPs sent, ${Math.round(r.summary.cnpPerSecond)} per emulated second on average. A receiver keeps sending them while marked packets arrive (at most one per QP per CNP interval), so the rate falls when the senders' rates converge.`,
  [EXTRA_PLOT_FILES.linkUtilisation]: (r) => {
    const lb = r.loadBalance;
    const balance =
      lb && lb.links > 0
        ? `Load balance over the ${lb.links} switch-to-switch directions that carried traffic: max/mean ${lb.figure.toFixed(2)} (1 is even). `
        : "";
    return `${balance}Ports below 1 % busy (LLDP, ARP, pauses and ACKs only) are left out; uneven bars between parallel uplinks are ECMP collisions.`;
  },
};

/** The caption of chart `file` (in DIR/plots/), or "" for a chart without one. */
export function plotCaption(file: string, r: Report): string {
  return CAPTIONS[file]?.(r) ?? "";
}
