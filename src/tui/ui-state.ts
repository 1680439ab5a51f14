// The dashboard's own state (which view, which node, scroll positions, an open prompt) and the one pure
// function that turns a key press into the next state and, for actions, an effect on the lab. Keeping it
// pure lets the key handling be tested without a terminal or a lab.

import { THRESHOLD_PRESETS } from "../scenario/action.js";
import { switchChange } from "../scenario/settings-layers.js";
import { act, type Effect } from "./effect.js";
import { EVENT_FILTERS, type EventFilter } from "./event-filter.js";
import { splitEndpoint } from "./format.js";
import { type FormPrompt, incastForm, pfcStormForm, submitForm, udpForm } from "./forms.js";
import type { KeyContext, KeyPress } from "./key-context.js";
import { openPfcEnable, type PfcEnablePrompt, pfcEnableKey } from "./pfc-enable.js";

export const TABS = ["fabric", "node", "flows", "events"] as const;
export type Tab = (typeof TABS)[number];

export type ChoiceKind = "link" | "kill" | "restart" | "preset";

export type { FormField, FormKind, FormPrompt } from "./forms.js";
export { incastForm, pfcStormForm, submitForm, udpForm } from "./forms.js";

export type Prompt = FormPrompt | { readonly kind: ChoiceKind; readonly index: number } | PfcEnablePrompt;

export interface EventsScroll {
  readonly filter: EventFilter;
  /** Rows scrolled up from the newest (0: following new events). */
  readonly offset: number;
  /** While scrolled, the log shows events up to this sequence number so it holds still. */
  readonly frozenAt: number | null;
}

export interface UiState {
  readonly tab: Tab;
  readonly help: boolean;
  /** First line of the help overlay shown (it scrolls when longer than the screen). */
  readonly helpTop?: number;
  readonly prompt: Prompt | null;
  /** Index of the node shown in the node view (topology order). */
  readonly node: number;
  /** The user chose the node (n, p, arrows): the node view no longer opens on the busiest node. */
  readonly nodePicked?: boolean;
  /** Selected port row in the node view. */
  readonly port: number;
  /** First row shown in the fabric's link table and in the flows table. */
  readonly scroll: { readonly fabric: number; readonly flows: number };
  readonly events: EventsScroll;
  /** The flows view shows rates, paths or how each flow ended (`v` cycles). */
  readonly flowsMode: FlowsMode;
}

export const INITIAL_UI: UiState = {
  tab: "fabric",
  help: false,
  prompt: null,
  node: 0,
  port: 0,
  scroll: { fabric: 0, flows: 0 },
  events: { filter: "all", offset: 0, frozenAt: null },
  flowsMode: "rates",
};

export { splitKeys } from "./split-keys.js";

export interface KeyResult {
  readonly ui: UiState;
  readonly effect: Effect | null;
}

/** How many choices a chooser prompt has. */
export function choiceCount(kind: ChoiceKind, ctx: KeyContext): number {
  switch (kind) {
    case "link":
      return ctx.links.length;
    case "preset":
      return THRESHOLD_PRESETS.length;
    default:
      return ctx.nodes.length;
  }
}

export type FlowsMode = "rates" | "paths" | "status";
const NEXT_FLOWS_MODE: Record<FlowsMode, FlowsMode> = { rates: "paths", paths: "status", status: "rates" };

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}

/** The effect of choosing entry `index` of a chooser. */
export function choose(kind: ChoiceKind, index: number, ctx: KeyContext): Effect | null {
  switch (kind) {
    case "link": {
      const l = ctx.links[index];
      if (!l) return null;
      const { node, port } = splitEndpoint(l.a);
      return act({ kind: "link", node, port, up: !l.up });
    }
    case "preset": {
      const preset = THRESHOLD_PRESETS[index];
      return preset ? act({ kind: "set", change: switchChange({ profile: preset }) }) : null;
    }
    default: {
      const n = ctx.nodes[index];
      return n ? act({ kind: "device", node: n.name, running: kind === "restart" }) : null;
    }
  }
}

function openChooser(ui: UiState, kind: ChoiceKind, ctx: KeyContext): KeyResult {
  if (choiceCount(kind, ctx) === 0)
    return { ui, effect: { type: "notice", text: `nothing to choose for ${kind}` } };
  let index = 0;
  if (kind === "kill") index = clamp(ui.node, 0, ctx.nodes.length - 1);
  if (kind === "restart") {
    const stopped = ctx.nodes.findIndex((n) => n.status !== "running");
    index = stopped >= 0 ? stopped : clamp(ui.node, 0, ctx.nodes.length - 1);
  }
  // The cursor starts on the preset in use (marked so), not on a guess at the next one.
  if (kind === "preset") index = Math.max(0, THRESHOLD_PRESETS.indexOf(ctx.preset));
  return { ui: { ...ui, prompt: { kind, index } }, effect: null };
}

/** Text a field takes: no control characters (those are keys, not text). */
function printable(input: string): boolean {
  return input.length > 0 && [...input].every((ch) => ch >= " " && ch !== "\u007f");
}

function formKey(ui: UiState, p: FormPrompt, press: KeyPress, ctx: KeyContext): KeyResult {
  const { input, key } = press;
  const n = p.fields.length;
  if (key.escape) return { ui: { ...ui, prompt: null }, effect: null };
  if (key.return) {
    const r = submitForm(p, ctx);
    if ("error" in r) return { ui: { ...ui, prompt: { ...p, error: r.error } }, effect: null };
    return { ui: { ...ui, prompt: null }, effect: r };
  }
  if ((key.tab && key.shift) || key.upArrow)
    return { ui: { ...ui, prompt: { ...p, focus: (p.focus + n - 1) % n } }, effect: null };
  if (key.tab || key.downArrow)
    return { ui: { ...ui, prompt: { ...p, focus: (p.focus + 1) % n } }, effect: null };
  const fields = [...p.fields];
  const f = fields[p.focus]!;
  if (key.backspace || key.delete) {
    fields[p.focus] = { ...f, value: f.value.slice(0, -1) };
  } else if (key.ctrl && input === "u") {
    fields[p.focus] = { ...f, value: "" };
  } else if (!key.ctrl && !key.meta && printable(input)) {
    fields[p.focus] = { ...f, value: f.value + input };
  } else {
    return { ui, effect: null };
  }
  return { ui: { ...ui, prompt: { ...p, fields, error: null } }, effect: null };
}

function chooserKey(
  ui: UiState,
  p: Extract<Prompt, { kind: ChoiceKind }>,
  press: KeyPress,
  ctx: KeyContext,
): KeyResult {
  const { input, key } = press;
  const count = choiceCount(p.kind, ctx);
  if (key.escape || input === "q") return { ui: { ...ui, prompt: null }, effect: null };
  if (key.return) return { ui: { ...ui, prompt: null }, effect: choose(p.kind, p.index, ctx) };
  let index = p.index;
  if (key.upArrow || (key.tab && key.shift) || input === "k") index = (index + count - 1) % count;
  else if (key.downArrow || key.tab || input === "j") index = (index + 1) % count;
  else if (key.home) index = 0;
  else if (key.end) index = count - 1;
  else if (key.pageUp) index = Math.max(0, index - 5);
  else if (key.pageDown) index = Math.min(count - 1, index + 5);
  else return { ui, effect: null };
  return { ui: { ...ui, prompt: { ...p, index } }, effect: null };
}

/** Scrolls a list whose first shown row is `top`; the list has `rows` rows of which `page` fit. */
function scrollList(top: number, press: KeyPress, rows: number, page: number): number | null {
  const { key } = press;
  const max = Math.max(0, rows - page);
  if (key.upArrow) return clamp(top - 1, 0, max);
  if (key.downArrow) return clamp(top + 1, 0, max);
  if (key.pageUp) return clamp(top - Math.max(1, page - 1), 0, max);
  if (key.pageDown) return clamp(top + Math.max(1, page - 1), 0, max);
  if (key.home) return 0;
  if (key.end) return max;
  return null;
}

function eventsKey(ui: UiState, press: KeyPress, ctx: KeyContext): KeyResult | null {
  const { input, key } = press;
  const ev = ui.events;
  if (input === "f") {
    const next = EVENT_FILTERS[(EVENT_FILTERS.indexOf(ev.filter) + 1) % EVENT_FILTERS.length]!;
    return { ui: { ...ui, events: { filter: next, offset: 0, frozenAt: null } }, effect: null };
  }
  const max = Math.max(0, ctx.rows - ctx.page);
  let offset: number;
  if (key.upArrow) offset = ev.offset + 1;
  else if (key.downArrow) offset = ev.offset - 1;
  else if (key.pageUp) offset = ev.offset + Math.max(1, ctx.page - 1);
  else if (key.pageDown) offset = ev.offset - Math.max(1, ctx.page - 1);
  else if (key.home) offset = max;
  else if (key.end) offset = 0;
  else return null;
  offset = clamp(offset, 0, max);
  const frozenAt = offset === 0 ? null : (ev.frozenAt ?? ctx.eventsTotal);
  return { ui: { ...ui, events: { ...ev, offset, frozenAt } }, effect: null };
}

/** Switches to `tab`; the node view opens on the busiest node until the user has chosen one. */
function openTab(ui: UiState, tab: Tab, ctx: KeyContext): UiState {
  if (tab !== "node" || ui.tab === "node" || ui.nodePicked || ctx.busiest === undefined)
    return { ...ui, tab };
  return { ...ui, tab, node: ctx.busiest, port: 0 };
}

/** The next state for a key press, and what to do about it. */
export function reduceKey(ui: UiState, press: KeyPress, ctx: KeyContext): KeyResult {
  const { input, key } = press;
  // Ctrl-C always quits, whatever is open.
  if (key.ctrl && input === "c") return { ui, effect: { type: "quit" } };
  const p = ui.prompt;
  if (p?.kind === "pfc-enable") {
    const r = pfcEnableKey(p, input, key);
    return { ui: { ...ui, prompt: r.prompt }, effect: r.effect };
  }
  if (p) {
    return "fields" in p ? formKey(ui, p, press, ctx) : chooserKey(ui, p, press, ctx);
  }
  if (ui.help) {
    if (key.escape || key.return || input === "?" || input === "q")
      return { ui: { ...ui, help: false, helpTop: 0 }, effect: null };
    const top = scrollList(ui.helpTop ?? 0, press, ctx.rows, ctx.page);
    return { ui: top === null ? ui : { ...ui, helpTop: top }, effect: null };
  }
  if (input === "q") return { ui, effect: { type: "quit" } };
  if (input === "?") return { ui: { ...ui, help: true }, effect: null };
  const tab = TABS.indexOf(ui.tab);
  if (/^[1-4]$/.test(input)) return { ui: openTab(ui, TABS[Number(input) - 1]!, ctx), effect: null };
  if (key.tab) {
    const next = (tab + (key.shift ? TABS.length - 1 : 1)) % TABS.length;
    return { ui: openTab(ui, TABS[next]!, ctx), effect: null };
  }
  switch (input) {
    case "i":
      return { ui: { ...ui, prompt: incastForm(ctx) }, effect: null };
    case "u":
      return { ui: { ...ui, prompt: udpForm(ctx) }, effect: null };
    case "x": {
      const onScreen = ui.tab === "node" ? ctx.nodes[ui.node]?.name : undefined;
      return { ui: { ...ui, prompt: pfcStormForm(ctx, onScreen) }, effect: null };
    }
    case "s":
      return { ui, effect: act({ kind: "stop", workloads: "all" }) };
    case "l":
      return openChooser(ui, "link", ctx);
    case "k":
      return openChooser(ui, "kill", ctx);
    case "r":
      return openChooser(ui, "restart", ctx);
    case "t":
      return openChooser(ui, "preset", ctx);
    case "e": {
      const r = openPfcEnable(
        ctx.held ?? [],
        ui.tab === "node" ? ctx.nodes[ui.node]?.name : undefined,
        ctx.watchdogNeeds,
      );
      if (typeof r === "string") return { ui, effect: { type: "notice", text: r } };
      return { ui: { ...ui, prompt: r }, effect: null };
    }
    case " ":
      return {
        ui,
        effect: ctx.sim ? { type: "pause" } : { type: "notice", text: "a live lab cannot pause" },
      };
    case "+":
    case "=":
      return {
        ui,
        effect: ctx.sim
          ? { type: "speed", factor: 0.5 }
          : { type: "notice", text: "a live lab's dilation is fixed" },
      };
    case "-":
    case "_":
      return {
        ui,
        effect: ctx.sim
          ? { type: "speed", factor: 2 }
          : { type: "notice", text: "a live lab's dilation is fixed" },
      };
  }
  switch (ui.tab) {
    case "node": {
      const count = ctx.nodes.length;
      if (count > 0 && (key.rightArrow || input === "n"))
        return { ui: { ...ui, node: (ui.node + 1) % count, port: 0, nodePicked: true }, effect: null };
      if (count > 0 && (key.leftArrow || input === "p"))
        return {
          ui: { ...ui, node: (ui.node + count - 1) % count, port: 0, nodePicked: true },
          effect: null,
        };
      const last = Math.max(0, ctx.rows - 1);
      if (key.upArrow) return { ui: { ...ui, port: clamp(ui.port - 1, 0, last) }, effect: null };
      if (key.downArrow) return { ui: { ...ui, port: clamp(ui.port + 1, 0, last) }, effect: null };
      if (key.home) return { ui: { ...ui, port: 0 }, effect: null };
      if (key.end) return { ui: { ...ui, port: last }, effect: null };
      break;
    }
    case "fabric":
    case "flows": {
      if (ui.tab === "flows" && input === "v") {
        const flowsMode = NEXT_FLOWS_MODE[ui.flowsMode];
        return { ui: { ...ui, flowsMode, scroll: { ...ui.scroll, flows: 0 } }, effect: null };
      }
      const top = scrollList(ui.scroll[ui.tab], press, ctx.rows, ctx.page);
      if (top !== null) return { ui: { ...ui, scroll: { ...ui.scroll, [ui.tab]: top } }, effect: null };
      break;
    }
    case "events": {
      const r = eventsKey(ui, press, ctx);
      if (r) return r;
      break;
    }
  }
  return { ui, effect: null };
}
