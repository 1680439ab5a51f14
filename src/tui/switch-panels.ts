// Panels of a switch's node view that appear when a feature has something to say: the PFC watchdog (each
// port and priority it has stormed, latched or restored, with SONiC's `show pfcwd stats` counters) and
// the VTEP (VXLAN tunnels with what went in and out of each, and ECN carried across: CE copied inner →
// outer at encapsulation, outer CE seen and copied outer → inner, or lost, at decapsulation).

import { type CounterDef, readCounter } from "../device/counters.js";
import type { LabSnapshot, WatchdogView } from "../lab/lab.js";
import { PfcWatchdogCounter } from "../switch/features/pfc-watchdog.js";
import type { SwitchStats } from "../switch/stats-types.js";
import { PRIORITIES } from "../wire/pfc.js";
import { formatBytes, formatCount, padLeft, padRight } from "./format.js";
import { lagLines } from "./lag-panel.js";
import { dottedQuad } from "./peer-names.js";
import { type Segment, seg } from "./segments.js";
import { marker, type Theme, Tone } from "./theme.js";
import { type Stalls, stallText } from "./watchdog-eta.js";

const WD = [
  PfcWatchdogCounter.detected,
  PfcWatchdogCounter.restored,
  PfcWatchdogCounter.txDrop,
  PfcWatchdogCounter.rxDrop,
  PfcWatchdogCounter.txOk,
] as const;

/** Count cell: dim when zero, `tone` otherwise. */
function count(n: number, width: number, tone?: Tone): Segment {
  return seg(` ${padLeft(formatCount(n), width)}`, n > 0 ? tone : Tone.Dim);
}

/** What the watchdog panel needs besides the switch's counters: its configuration and the stalls. */
export interface WatchdogContext {
  readonly watchdog?: WatchdogView;
  readonly stalls: Stalls;
  readonly now: number;
  readonly dilation: number;
}

/** Queues of this switch stalled under PFC and not held by the watchdog: time towards detection. */
function stallLines(stats: SwitchStats, ctx: WatchdogContext): Segment[][] {
  const w = ctx.watchdog;
  if (w === undefined || !w.enabled) return [];
  const rows: Segment[][] = [];
  for (const [key, start] of ctx.stalls) {
    const [where, queue] = key.split("/");
    const [node, port] = where!.split(":");
    if (node !== stats.name) continue;
    rows.push([
      seg(`  ${padRight(port!, 5)} ${padRight(queue!, 4)} `),
      seg(stallText(w, start, ctx.now, ctx.dilation), Tone.Warn),
    ]);
  }
  return rows;
}

/** The watchdog's rows: every port and priority it ever acted on (or holds now), then stalled queues. */
export function watchdogLines(stats: SwitchStats, theme: Theme, ctx?: WatchdogContext): Segment[][] {
  const rows: Segment[][] = [];
  for (const p of stats.ports) {
    for (let prio = 0; prio < PRIORITIES; prio++) {
      const k = (def: CounterDef) => readCounter(p.counters, def, { priority: prio });
      const state = k(PfcWatchdogCounter.state);
      if (state === 0 && WD.every((n) => k(n) === 0)) continue;
      const word =
        state === 2
          ? seg(padRight(marker(theme, "LATCHED"), 10), Tone.Bad)
          : state === 1
            ? seg(padRight(marker(theme, "STORMED"), 10), Tone.Bad)
            : seg(padRight("monitoring", 10), Tone.Good);
      rows.push([
        seg(`  ${padRight(p.name, 5)} ${padRight(String(prio), 4)} `),
        word,
        count(k(PfcWatchdogCounter.detected), 8, Tone.Bad),
        count(k(PfcWatchdogCounter.restored), 8, Tone.Good),
        count(k(PfcWatchdogCounter.txDrop), 7, Tone.Bad),
        count(k(PfcWatchdogCounter.rxDrop), 7, Tone.Bad),
        count(k(PfcWatchdogCounter.txOk), 7, Tone.Warn),
      ]);
    }
  }
  const stalled = ctx ? stallLines(stats, ctx) : [];
  const stallHead: Segment[][] =
    stalled.length > 0
      ? [
          [
            seg(rows.length > 0 ? "" : "PFC watchdog  ", Tone.Heading),
            seg("stalled: paused, packets queued, none sent", Tone.Dim),
          ],
          ...stalled,
        ]
      : [];
  if (rows.length === 0) return stallHead;
  const held = rows.some((r) => r[1]!.tone === Tone.Bad);
  return [
    [
      seg("PFC watchdog", Tone.Heading),
      seg(held ? "   e: re-enable PFC on a port/priority it holds" : "   every storm recovered", Tone.Dim),
    ],
    [
      seg(
        `  ${padRight("PORT", 5)} ${padRight("PRIO", 4)} ${padRight("STATE", 10)} ${padLeft("DETECTED", 8)} ${padLeft("RESTORED", 8)} ${padLeft("TX DROP", 7)} ${padLeft("RX DROP", 7)} ${padLeft("TX OK", 7)}`,
        Tone.Heading,
      ),
    ],
    ...rows,
    ...stallHead,
  ];
}

/** The name of the switch whose VTEP has `address`, from the snapshot (else the address). */
function vtepName(snapshot: LabSnapshot | null, address: number): string {
  for (const [name, st] of Object.entries(snapshot?.stats ?? {}))
    if (st.kind === "switch" && st.detail?.vtep?.address === address) return name;
  return dottedQuad(address);
}

/** The VTEP panel: the VTEP's address, VNI and ECN overlay, and a row per tunnel. */
export function vtepLines(stats: SwitchStats, snapshot: LabSnapshot | null, width: number): Segment[][] {
  const v = stats.detail?.vtep;
  if (v === undefined) return [];
  const wide = width >= 110;
  const lines: Segment[][] = [
    [
      seg(`VTEP ${dottedQuad(v.address)}  VNI ${v.vni}  `, Tone.Heading),
      seg("ECN overlay "),
      v.ecn
        ? seg("on: outer CE → inner header (RFC 6040)", Tone.Good)
        : seg("off: the underlay's CE is lost at decap", Tone.Warn),
    ],
    [
      seg(
        `  ${padRight("TUNNEL TO", 18)} ${padLeft("HOSTS", 5)} ${padLeft("ENCAP", 7)}${wide ? ` ${padLeft("BYTES", 8)}` : ""} ${padLeft("CE→OUT", 6)} ${padLeft("DECAP", 7)}${wide ? ` ${padLeft("BYTES", 8)}` : ""} ${padLeft("OUTER CE", 8)} ${padLeft("→INNER", 6)} ${padLeft("LOST", 5)}`,
        Tone.Heading,
      ),
    ],
  ];
  for (const t of v.tunnels) {
    const row: Segment[] = [
      seg(`  ${padRight(`${vtepName(snapshot, t.remote)} ${dottedQuad(t.remote)}`, 18)}`),
      seg(` ${padLeft(String(t.hosts), 5)}`),
      count(t.encapPackets, 7),
    ];
    if (wide) row.push(seg(` ${padLeft(formatBytes(t.encapBytes), 8)}`));
    row.push(count(t.encapCe, 6, Tone.Warn), count(t.decapPackets, 7));
    if (wide) row.push(seg(` ${padLeft(formatBytes(t.decapBytes), 8)}`));
    row.push(count(t.outerCe, 8, Tone.Warn), count(t.ceCopied, 6, Tone.Warn), count(t.ceLost, 5, Tone.Bad));
    lines.push(row);
  }
  return lines;
}

/** The panels (watchdog, VTEP, link aggregation), each followed by a blank line (nothing when neither has anything). */
export function switchPanels(
  stats: SwitchStats,
  snapshot: LabSnapshot | null,
  width: number,
  theme: Theme,
  wd?: WatchdogContext,
): Segment[][] {
  const out: Segment[][] = [];
  for (const panel of [watchdogLines(stats, theme, wd), vtepLines(stats, snapshot, width), lagLines(stats)])
    if (panel.length > 0) out.push(...panel, []);
  return out;
}
