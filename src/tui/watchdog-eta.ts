// The PFC watchdog's time towards detection, as the dashboard can tell it: which queues stall (paused by
// the peer's PFC, holding packets, sending nothing — the condition SONiC's pfcwd counts, docs/pfc-watchdog.md)
// since when in emulated time, when the configured detection time is reached, and how long that is in real
// time at the lab's dilation. The watchdog looks every pollInterval and counts whole intervals, so detection
// comes between detectionTime and detectionTime + pollInterval after the stall began.

import { readCounter } from "../device/counters.js";
import type { LabSnapshot, WatchdogView } from "../lab/lab.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import { formatEmulated } from "./format.js";

/** Stalled queues: "node:ethN/queue" → emulated ns at which the dashboard first saw it stalled. */
export type Stalls = ReadonlyMap<string, number>;

/** The stalls in `cur`, keeping the start of those already stalled in `prev`. */
export function trackStalls(stalls: Stalls, cur: LabSnapshot, prev: LabSnapshot | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const [node, st] of Object.entries(cur.stats)) {
    if (st.kind !== "switch") continue;
    const before = prev?.stats[node];
    for (const p of st.ports) {
      const bp = before?.ports.find((x) => x.port === p.port);
      for (const q of p.queues ?? []) {
        const bq = bp?.queues?.find((x) => x.queue === q.queue);
        if (!q.paused || q.depthBytes <= 0 || bq === undefined) continue;
        const sent = readCounter(q.counters, SwitchCounter.queueTxPackets);
        if (sent !== readCounter(bq.counters, SwitchCounter.queueTxPackets)) continue;
        const key = `${node}:eth${p.port}/${q.queue}`;
        // Stalled over the whole interval since the last snapshot, at least.
        out.set(key, stalls.get(key) ?? prev?.now ?? cur.now);
      }
    }
  }
  return out;
}

/** Detection time of a watchdog (sonic detectionTime, h3c interval), ns; null when it is off. */
export function detectionNs(w: WatchdogView | undefined): number | null {
  if (w === undefined || !w.enabled) return null;
  return w.detectionNs;
}

/** When a stall that began at `startNs` is detected: [earliest, latest] emulated ns. */
export function detectionWindow(w: WatchdogView, startNs: number): readonly [number, number] {
  return [startNs + w.detectionNs, startNs + w.detectionNs + w.pollNs];
}

/** Real seconds that `emulatedNs` of emulated time take at `dilation`. */
export function realSeconds(emulatedNs: number, dilation: number): number {
  return (emulatedNs * dilation) / 1e9;
}

/** Real time, short: "0.4 s", "12 s", "5 min 33 s", "2 h 05 min". */
export function formatReal(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) {
    const m = Math.floor(seconds / 60);
    const s = Math.round(seconds - m * 60);
    return s === 0 ? `${m} min` : `${m} min ${s} s`;
  }
  const h = Math.floor(seconds / 3600);
  return `${h} h ${String(Math.round((seconds - h * 3600) / 60)).padStart(2, "0")} min`;
}

/**
 * One stalled queue's progress: "stalled 12.000ms/200ms, detection in 188.000ms (~31 min real)" — the
 * earliest; the watchdog's poll can add up to one pollInterval.
 */
export function stallText(w: WatchdogView, startNs: number, nowNs: number, dilation: number): string {
  const left = Math.max(0, detectionWindow(w, startNs)[0] - nowNs);
  const real = formatReal(realSeconds(left, dilation));
  return `stalled ${formatEmulated(nowNs - startNs)}/${shortEmulated(w.detectionNs)}, detection in ${formatEmulated(left)} (~${real} real)`;
}

/** Emulated time without trailing zeros: "200ms", "12.5ms", "840us". */
export function shortEmulated(ns: number): string {
  return formatEmulated(ns).replace(/\.?0+(us|ms|s)$/, "$1");
}

/**
 * What detection needs, for `e` when the watchdog holds nothing (short: it goes on the status line):
 * "no queue held: needs 200ms stalled, ~33 min real" — a queue paused by PFC with packets queued and none
 * sent for the detection time, and what that is in real time at the lab's dilation.
 */
export function needsText(w: WatchdogView | undefined, dilation: number): string {
  const d = detectionNs(w);
  if (d === null) return "PFC watchdog is off: nothing to re-enable";
  return `no queue held: needs ${shortEmulated(d)} stalled, ~${formatReal(realSeconds(d, dilation))} real`;
}
