// The fabric: nodes by tier (spines over leaves over hosts) with their state, fabric-wide counters, and
// every link with its state, the utilisation of each direction, which direction PFC holds, queues, marks.
import type { ReactElement } from "react";
import { CONGESTED_BYTES, type LinkRow, type NodeState } from "../derive.js";
import { nodeTiers, tierName } from "../derive-topology.js";
import { eventGroup } from "../event-filter.js";
import { describeLogged } from "../event-text.js";
import {
  formatBytes,
  formatCount,
  formatEmulated,
  formatPercent,
  padLeft,
  padRight,
  sparkline,
} from "../format.js";
import { withLagRows } from "../lag-links.js";
import { pickFit, type Segment, seg, type ViewLines } from "../segments.js";
import type { DashboardState } from "../store.js";
import { type Column, tableHeader, tableRow } from "../table.js";
import { marker, type Theme, Tone } from "../theme.js";
import { ScrolledLines, type ScrolledViewProps } from "./ScrolledLines.js";

/** Wide enough for sparklines and pause fractions. */
const WIDE = 110;
const LABEL = 8;

function nodeCell(n: NodeState | undefined, name: string, theme: Theme): Segment {
  if (!n) return seg(name, Tone.Dim);
  if (!n.running) return seg(`${name} ${marker(theme, n.status.toUpperCase())}`, Tone.Bad);
  const flags = `${n.stormed ? "S" : ""}${n.pausing ? "X" : ""}${n.paused ? "P" : ""}${n.congested ? "E" : ""}${n.dropping ? "D" : ""}`;
  const tone =
    n.dropping || n.stormed
      ? Tone.Bad
      : n.paused
        ? Tone.Pause
        : n.pausing || n.congested
          ? Tone.Warn
          : Tone.Good;
  return seg(flags ? `${name}[${flags}]` : name, tone);
}

/** The tier diagram: one line per tier (more when a tier is wider than the screen), centred. */
function tierLines(state: DashboardState, width: number, theme: Theme): Segment[][] {
  const tiers = nodeTiers(state.topology);
  const byName = new Map(state.nodes.map((n) => [n.name, n]));
  const out: Segment[][] = [];
  const room = Math.max(10, width - LABEL);
  for (let t = tiers.length - 1; t >= 0; t--) {
    const cells = tiers[t]!.map((name) => nodeCell(byName.get(name), name, theme));
    // As much air between nodes as fits on one line.
    const total = (g: number) => cells.reduce((w, c) => w + c.text.length, 0) + g * (cells.length - 1);
    const gap = [4, 2, 1].find((g) => total(g) <= room) ?? 1;
    let line: Segment[] = [];
    let used = 0;
    const lines: { segs: Segment[]; used: number }[] = [];
    for (const cell of cells) {
      const w = cell.text.length;
      if (line.length > 0 && used + gap + w > room) {
        lines.push({ segs: line, used });
        line = [];
        used = 0;
      }
      if (line.length > 0) {
        line.push(seg(" ".repeat(gap)));
        used += gap;
      }
      line.push(cell);
      used += w;
    }
    if (line.length > 0) lines.push({ segs: line, used });
    lines.forEach((l, i) => {
      const label = i === 0 ? tierName(t, tiers.length) : "";
      const indent = lines.length === 1 ? Math.floor((room - l.used) / 2) : 0;
      out.push([seg(padRight(label, LABEL), Tone.Dim), seg(" ".repeat(Math.max(0, indent))), ...l.segs]);
    });
  }
  return out;
}

/** The totals in words, then shorter (every short form is in the help overlay). */
function totalsLine(state: DashboardState, width: number): Segment[] {
  const t = state.totals;
  if (!t) return [seg("waiting for the first counters from the lab...", Tone.Dim)];
  const n = (v: number, tone: Tone) => seg(formatCount(v), v > 0 ? tone : undefined);
  const xoff = n(t.xoffSent, Tone.Pause);
  const ecn = n(t.ecnMarked, Tone.Warn);
  const cnp = [seg(formatCount(t.cnpSent)), seg("/"), seg(formatCount(t.cnpHandled))];
  const lossless = n(t.droppedLossless, Tone.Bad);
  const lossy = n(t.droppedLossy, Tone.Warn);
  return pickFit(
    [
      [
        seg("PFC XOFF sent "),
        xoff,
        seg("  ECN marked "),
        ecn,
        seg("  CNP sent "),
        cnp[0]!,
        seg(" handled "),
        cnp[2]!,
        seg("  drops lossless "),
        lossless,
        seg(" lossy "),
        lossy,
      ],
      [
        seg("XOFF sent "),
        xoff,
        seg("  ECN marked "),
        ecn,
        seg("  CNP sent/handled "),
        ...cnp,
        seg("  drops lossless "),
        lossless,
        seg(" lossy "),
        lossy,
      ],
      [
        seg("XOFF sent "),
        xoff,
        seg("  ECN marked "),
        ecn,
        seg("  CNP sent/handled "),
        ...cnp,
        seg("  drops lossless/lossy "),
        lossless,
        seg("/"),
        lossy,
      ],
      [
        seg("XOFF "),
        xoff,
        seg("  ECN "),
        ecn,
        seg("  CNP sent/handled "),
        ...cnp,
        seg("  drops "),
        lossless,
        seg("/"),
        lossy,
      ],
      [
        seg("XOFF "),
        xoff,
        seg("  ECN "),
        ecn,
        seg("  CNP "),
        ...cnp,
        seg("  drop "),
        lossless,
        seg("/"),
        lossy,
      ],
    ],
    width,
  );
}

/** The markers' legend, shorter on narrow screens. */
function legendLine(width: number): Segment[] {
  const pad = seg(padRight("", LABEL));
  const variants = [
    "[S] PFC storm (watchdog)  [X] sends XOFF  [P] paused by PFC  [E] queue/ECN  [D] drops  (? all keys)",
    "[S] PFC storm (watchdog)  [X] sends XOFF  [P] paused by PFC  [E] queue/ECN  [D] drops",
    "[S] storm  [X] sends XOFF  [P] paused  [E] queue/ECN  [D] drops  ? help",
    "[S] storm  [X] XOFF  [P] paused  [E] queue/ECN  [D] drops",
  ];
  return pickFit(
    variants.map((v) => [pad, seg(v, Tone.Dim)]),
    width,
  );
}

function paused(m: LinkRow["ab"]): boolean {
  return m !== null && (m.pausedNow || m.pausedFrac > 0);
}

function pauseText(l: LinkRow, theme: Theme, wide: boolean): Segment {
  const ab = paused(l.ab);
  const ba = paused(l.ba);
  if (!ab && !ba) return seg("");
  const arrow = ab && ba ? "⇄" : ab ? "→" : "←";
  let text = `${marker(theme, "PAUSED")}${arrow}`;
  if (wide) text += ` ${formatPercent(Math.max(ab ? l.ab!.pausedFrac : 0, ba ? l.ba!.pausedFrac : 0))}`;
  return seg(text, Tone.Pause);
}

function utilText(m: LinkRow["ab"], up: boolean): Segment {
  if (!up || !m) return seg("-", Tone.Dim);
  const u = m.util;
  return seg(formatPercent(u), u !== null && u >= 0.5 ? Tone.Accent : undefined);
}

function sum(l: LinkRow, f: (m: NonNullable<LinkRow["ab"]>) => number): number {
  return (l.ab ? f(l.ab) : 0) + (l.ba ? f(l.ba) : 0);
}

/** The link table's columns: a→b is a's egress, b→a is b's. */
export function linkColumns(state: DashboardState, width: number, theme: Theme): Column<LinkRow>[] {
  const wide = width >= WIDE;
  const labels = withLagRows(state.links, state.topology.lags).map((l) => l.label ?? `${l.a} ↔ ${l.b}`);
  const longest = Math.max(
    12,
    ...state.topology.links.map((l) => `${l.a} ↔ ${l.b}`.length),
    ...labels.map((l) => l.length),
  );
  const spark = (side: "a" | "b"): Column<LinkRow> => ({
    header: "",
    width: 9,
    cell: (l) => seg(sparkline(state.history.util.get(l[side]) ?? [], 9, 1), Tone.Accent),
  });
  const cols: (Column<LinkRow> | null)[] = [
    { header: "LINK (a ↔ b)", width: Math.min(longest, 28), cell: (l) => seg(l.label ?? `${l.a} ↔ ${l.b}`) },
    {
      header: "STATE",
      width: 6,
      cell: (l) => (l.up ? seg("up", Tone.Good) : seg(marker(theme, "DOWN"), Tone.Bad)),
    },
    { header: "A→B", width: 4, align: "right", cell: (l) => utilText(l.ab, l.up) },
    wide ? spark("a") : null,
    { header: "B→A", width: 4, align: "right", cell: (l) => utilText(l.ba, l.up) },
    wide ? spark("b") : null,
    { header: "PFC", width: wide ? 14 : 10, cell: (l) => pauseText(l, theme, wide) },
    {
      header: "QUEUE",
      width: 7,
      align: "right",
      cell: (l) => {
        const q = Math.max(l.ab?.queueBytes ?? 0, l.ba?.queueBytes ?? 0);
        return seg(
          q > 0 ? formatBytes(q) : "0",
          q >= CONGESTED_BYTES ? Tone.Warn : q > 0 ? undefined : Tone.Dim,
        );
      },
    },
    {
      header: "ECN",
      width: 6,
      align: "right",
      cell: (l) => {
        const n = sum(l, (m) => m.ecnMarked);
        return seg(formatCount(n), sum(l, (m) => m.ecnDelta) > 0 ? Tone.Warn : n > 0 ? undefined : Tone.Dim);
      },
    },
    {
      header: "DROP",
      width: 5,
      align: "right",
      cell: (l) => {
        const n = sum(l, (m) => m.drops);
        return seg(formatCount(n), sum(l, (m) => m.dropDelta) > 0 ? Tone.Bad : n > 0 ? undefined : Tone.Dim);
      },
    },
    wide
      ? {
          header: "XOFF",
          width: 5,
          align: "right",
          cell: (l) => {
            const n = sum(l, (m) => m.txPause);
            return seg(
              formatCount(n),
              sum(l, (m) => m.txPauseDelta) > 0 ? Tone.Pause : n > 0 ? undefined : Tone.Dim,
            );
          },
        }
      : null,
  ];
  return cols.filter((c): c is Column<LinkRow> => c !== null);
}

/**
 * Recent events worth a glance on the fabric: pauses, drops, failures first; rows they leave free show the
 * latest ECN/CNP and flow events (dim), so a run that only marks does not look idle.
 */
function recentLines(state: DashboardState, count: number): Segment[][] {
  const quiet = (l: (typeof state.events)[number]) =>
    eventGroup(l.event) === "ecn" || eventGroup(l.event) === "flows";
  const important = state.events.filter((l) => !quiet(l)).slice(-count);
  // Rows left for the rest: a "no pauses ..." line takes one when there is nothing important.
  const room = count - important.length - (important.length === 0 ? 1 : 0);
  const chatter = room > 0 ? state.events.filter(quiet).slice(-room) : [];
  const picked = [...important, ...chatter].sort((a, b) => a.event.t - b.event.t);
  const lines: Segment[][] = [
    [seg("recent pauses, drops and failures, then ECN/CNP (4: the full log)", Tone.Heading)],
  ];
  if (important.length === 0) {
    lines.push([seg(chatter.length > 0 ? " no pauses, drops or failures yet" : " none yet", Tone.Dim)]);
  }
  for (const { event } of picked) {
    const dim = quiet({ event } as (typeof state.events)[number]);
    lines.push([
      seg(` ${padLeft(formatEmulated(event.t), 12)}  `, Tone.Dim),
      seg(`${padRight(event.device, 8)} `, dim ? Tone.Dim : undefined),
      seg(describeLogged(event, state.snapshot), dim ? Tone.Dim : undefined),
    ]);
  }
  return lines;
}

/** Index of the link with the deepest queue (then the busiest wire), or 0 when all are idle. */
function busiestLink(links: readonly LinkRow[]): number {
  let best = 0;
  let bestScore = 0;
  links.forEach((l, i) => {
    let score = 0;
    for (const m of [l.ab, l.ba]) if (m) score = Math.max(score, m.queueBytes + (m.util ?? 0));
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  return best;
}

/** The fabric view's lines at a size; `top` is the first link shown (0: follow the busiest link). */
export function fabricLines(
  state: DashboardState,
  top: number,
  width: number,
  height: number,
  theme: Theme,
): ViewLines {
  const lines: Segment[][] = [...tierLines(state, width, theme)];
  if (height >= 16) lines.push(legendLine(width));
  lines.push([], totalsLine(state, width), []);
  // A link aggregation group is one row (its members combined) with its member links under it.
  const links = withLagRows(state.links, state.topology.lags);
  const cols = linkColumns(state, width, theme);
  const fixed = lines.length + 1;
  // Spare rows below the links (a tall screen) show the latest pauses, drops and failures.
  const spare = height - fixed - Math.max(links.length, state.topology.links.length);
  const recent = spare >= 5 ? recentLines(state, spare - 2) : [];
  const page = Math.max(1, height - fixed - (recent.length > 0 ? recent.length + 1 : 0));
  // Not scrolled (top 0) and not every link fits (a prompt took rows): start where the busiest link
  // is still in sight, rather than cut off the one that matters.
  const start = top > 0 ? top : Math.max(0, busiestLink(links) - page + 1);
  const first = Math.max(0, Math.min(start, links.length - page));
  // More links than rows: the LINK heading says which are shown.
  const shown =
    links.length > page
      ? `LINKS ${first + 1}-${Math.min(links.length, first + page)}/${links.length} ↑↓`
      : null;
  lines.push(tableHeader(shown ? cols.map((c, i) => (i === 0 ? { ...c, header: shown } : c)) : cols));
  if (links.length === 0) {
    for (const l of state.topology.links.slice(0, page)) lines.push([seg(` ${l.a} ↔ ${l.b}`, Tone.Dim)]);
  } else {
    for (const l of links.slice(first, first + page)) lines.push(tableRow(cols, l));
  }
  if (recent.length > 0) lines.push([], ...recent);
  return { lines: lines.slice(0, height), rows: links.length, page };
}

export type FabricViewProps = ScrolledViewProps;

/** The fabric view (the link list scrolls). */
export function FabricView(props: FabricViewProps): ReactElement {
  return <ScrolledLines {...props} linesOf={fabricLines} />;
}
