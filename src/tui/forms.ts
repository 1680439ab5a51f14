// The dashboard's forms: incast (`i`), background UDP (`u`) and a NIC's PFC storm (`x`), each prefilled,
// and the one function that checks a filled-in form and turns it into an effect on the lab.

import { parseRate, parseSize } from "../device/units.js";
import { act, type Effect } from "./effect.js";
import type { KeyContext } from "./key-context.js";

/** A text field of a form prompt. */
export interface FormField {
  readonly name: string;
  readonly label: string;
  readonly value: string;
  readonly hint: string;
}

export type FormKind = "incast" | "udp" | "pfc-storm";

export interface FormPrompt {
  readonly kind: FormKind;
  readonly fields: readonly FormField[];
  readonly focus: number;
  readonly error: string | null;
}

function hostsOf(ctx: KeyContext): string[] {
  return ctx.nodes.filter((n) => n.kind === "host").map((n) => n.name);
}

/** The incast form, prefilled: the last host receives from the first four others, 4 MB each. */
export function incastForm(ctx: KeyContext): FormPrompt {
  const hosts = hostsOf(ctx);
  return {
    kind: "incast",
    focus: 0,
    error: null,
    fields: [
      { name: "to", label: "receiver", value: hosts[hosts.length - 1] ?? "", hint: hosts.join(" ") },
      {
        name: "from",
        label: "senders",
        value: String(Math.max(1, Math.min(4, hosts.length - 1))),
        hint: `1-${Math.max(1, hosts.length - 1)}, the first hosts other than the receiver`,
      },
      { name: "size", label: "bytes each", value: "4MB", hint: "e.g. 512KB, 4MB, 16MiB" },
    ],
  };
}

/** The background-UDP form, prefilled: first host to last host at 10 Gb/s. */
export function udpForm(ctx: KeyContext): FormPrompt {
  const hosts = hostsOf(ctx);
  return {
    kind: "udp",
    focus: 0,
    error: null,
    fields: [
      { name: "from", label: "from", value: hosts[0] ?? "", hint: hosts.join(" ") },
      { name: "to", label: "to", value: hosts[hosts.length - 1] ?? "", hint: hosts.join(" ") },
      { name: "rate", label: "rate", value: "10G", hint: "emulated bits/s, e.g. 500M, 10G, 40G" },
    ],
  };
}

/**
 * The PFC storm form: a host's NIC sends XOFF for ever on one priority, as a broken NIC does; `off` stops
 * it. Prefilled with the host on screen (node view) or the last host, and the RoCE priority 3.
 */
export function pfcStormForm(ctx: KeyContext, onScreen: string | undefined): FormPrompt {
  const hosts = hostsOf(ctx);
  const host =
    onScreen !== undefined && hosts.includes(onScreen) ? onScreen : (hosts[hosts.length - 1] ?? "");
  return {
    kind: "pfc-storm",
    focus: 0,
    error: null,
    fields: [
      { name: "host", label: "host", value: host, hint: hosts.join(" ") },
      { name: "priority", label: "priority", value: "3", hint: "0-7 (RoCE: 3), or off to stop its storm" },
    ],
  };
}

function field(p: { fields: readonly FormField[] }, name: string): string {
  return p.fields.find((f) => f.name === name)?.value.trim() ?? "";
}

/** Validates a form; an effect when it is good, else what is wrong. */
export function submitForm(p: FormPrompt, ctx: KeyContext): Effect | { error: string } {
  const hosts = hostsOf(ctx);
  if (p.kind === "pfc-storm") {
    const host = field(p, "host");
    if (!hosts.includes(host)) return { error: `host must be one of: ${hosts.join(", ")}` };
    const text = field(p, "priority").toLowerCase();
    if (text === "off") return act({ kind: "pfc-storm", host, priority: null });
    const priority = Number(text);
    if (text === "" || !Number.isInteger(priority) || priority < 0 || priority > 7)
      return { error: `priority must be 0-7, or off to stop ${host}'s storm` };
    return act({ kind: "pfc-storm", host, priority });
  }
  if (p.kind === "incast") {
    const to = field(p, "to");
    if (!hosts.includes(to)) return { error: `receiver must be a host: ${hosts.join(", ")}` };
    const from = Number(field(p, "from"));
    if (!Number.isInteger(from) || from < 1 || from > hosts.length - 1)
      return { error: `senders must be 1-${hosts.length - 1}` };
    const bytes = parseSize(field(p, "size"));
    if (bytes === null || bytes <= 0) return { error: `"${field(p, "size")}" is not a size (e.g. 4MB)` };
    return act({ kind: "incast", to, from, bytes });
  }
  const from = field(p, "from");
  const to = field(p, "to");
  if (!hosts.includes(from)) return { error: `from must be a host: ${hosts.join(", ")}` };
  if (!hosts.includes(to) || to === from) return { error: "to must be another host" };
  const rateBps = parseRate(field(p, "rate"));
  if (rateBps === null) return { error: `"${field(p, "rate")}" is not a rate (e.g. 10G)` };
  return act({ kind: "udp", from, to, rateBps });
}
