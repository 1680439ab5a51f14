// The `e` key: re-enable PFC on a switch port and priority the PFC watchdog switched off (stormed) or
// latched off, as `rocelab pfc enable NODE:ethN PRIO` does. A chooser of every (switch, port, priority)
// the watchdog holds — the node on screen first — then a confirmation, since PFC comes back on a queue
// that may still be stormed.

import { readCounter } from "../device/counters.js";
import type { LabSnapshot } from "../lab/lab.js";
import { PfcWatchdogCounter } from "../switch/features/pfc-watchdog.js";
import { PRIORITIES } from "../wire/pfc.js";
import { act, type Effect } from "./effect.js";
import { padRight } from "./format.js";
import type { HeldPriority } from "./key-context.js";
import { type Segment, seg } from "./segments.js";
import { marker, type Theme, Tone } from "./theme.js";

export interface PfcEnablePrompt {
  readonly kind: "pfc-enable";
  readonly items: readonly HeldPriority[];
  readonly index: number;
  /** The choice is made: waiting for y. */
  readonly confirm: boolean;
}

/** Every (switch, port, priority) the watchdog holds stormed or latched in the snapshot. */
export function heldPriorities(s: LabSnapshot | null): HeldPriority[] {
  const out: HeldPriority[] = [];
  for (const [node, st] of Object.entries(s?.stats ?? {})) {
    if (st.kind !== "switch") continue;
    for (const p of st.ports) {
      for (let prio = 0; prio < PRIORITIES; prio++) {
        const state = readCounter(p.counters, PfcWatchdogCounter.state, { priority: prio });
        if (state <= 0) continue;
        out.push({
          node,
          port: p.port,
          priority: prio,
          state,
          detected: readCounter(p.counters, PfcWatchdogCounter.detected, { priority: prio }),
          restored: readCounter(p.counters, PfcWatchdogCounter.restored, { priority: prio }),
        });
      }
    }
  }
  return out;
}

/** The chooser, or what to say when the watchdog holds nothing. `first` (the node on screen) leads. */
export function openPfcEnable(
  held: readonly HeldPriority[],
  first: string | undefined,
  why = "PFC watchdog holds no queue",
): PfcEnablePrompt | string {
  // `why` says what detection needs (watchdog-eta.ts needsText); it goes on the status line.
  if (held.length === 0) return why;
  const items = [...held.filter((h) => h.node === first), ...held.filter((h) => h.node !== first)];
  return { kind: "pfc-enable", items, index: 0, confirm: false };
}

/** A key in the prompt: the next prompt (null: closed) and, once confirmed with y, the effect. */
export function pfcEnableKey(
  p: PfcEnablePrompt,
  input: string,
  key: {
    readonly escape?: boolean;
    readonly return?: boolean;
    readonly upArrow?: boolean;
    readonly downArrow?: boolean;
  },
): { prompt: PfcEnablePrompt | null; effect: Effect | null } {
  if (p.confirm) {
    const h = p.items[p.index]!;
    if (input === "y" || input === "Y")
      return {
        prompt: null,
        effect: act({ kind: "pfc-enable", node: h.node, port: h.port, priority: h.priority }),
      };
    // Anything else backs out to the list; Esc and q close it.
    return { prompt: key.escape || input === "q" ? null : { ...p, confirm: false }, effect: null };
  }
  if (key.escape || input === "q") return { prompt: null, effect: null };
  if (key.return) return { prompt: { ...p, confirm: true }, effect: null };
  const n = p.items.length;
  if (key.upArrow || input === "k") return { prompt: { ...p, index: (p.index + n - 1) % n }, effect: null };
  if (key.downArrow || input === "j") return { prompt: { ...p, index: (p.index + 1) % n }, effect: null };
  return { prompt: p, effect: null };
}

function stateText(h: HeldPriority, theme: Theme): Segment {
  return seg(marker(theme, h.state === 2 ? "LATCHED" : "STORMED"), Tone.Bad);
}

/** The prompt's body (under its title). */
export function pfcEnableLines(p: PfcEnablePrompt, shown: number, theme: Theme): Segment[][] {
  const h = p.items[p.index]!;
  if (p.confirm) {
    return [
      [
        seg(`Re-enable PFC on ${h.node}:eth${h.port} priority ${h.priority} `, Tone.Heading),
        seg("("),
        stateText(h, theme),
        seg(`, ${h.detected} storms detected)?`),
      ],
      [
        seg(
          "PFC and storm detection come back at once; if the peer still storms, the watchdog detects it again.",
          Tone.Dim,
        ),
      ],
      [seg("y re-enable   any other key: back   Esc cancel", Tone.Dim)],
    ];
  }
  const lines: Segment[][] = [];
  const first = Math.max(0, Math.min(p.index - Math.floor(shown / 2), p.items.length - shown));
  for (let i = first; i < Math.min(p.items.length, first + shown); i++) {
    const it = p.items[i]!;
    const chosen = i === p.index;
    lines.push([
      seg(chosen ? "> " : "  ", Tone.Accent),
      seg(
        padRight(`${it.node}:eth${it.port} priority ${it.priority}`, 26),
        chosen ? Tone.Selected : undefined,
      ),
      stateText(it, theme),
      seg(`  storms detected ${it.detected}, restored ${it.restored}`, Tone.Dim),
    ]);
  }
  lines.push([
    seg(`↑/↓ choose (${p.index + 1}/${p.items.length})   Enter re-enable...   Esc cancel`, Tone.Dim),
  ]);
  return lines;
}
