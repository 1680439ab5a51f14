// The panel under the view while an action asks for something: a form (incast, UDP) or a choice (which
// link, which node, which preset).
import type { ReactElement } from "react";
import { THRESHOLD_PRESETS } from "../../scenario/action.js";
import { padRight } from "../format.js";
import { useTheme } from "../hooks/use-theme.js";
import type { KeyContext } from "../key-context.js";
import { pfcEnableLines } from "../pfc-enable.js";
import { type Segment, seg } from "../segments.js";
import { marker, type Theme, Tone } from "../theme.js";
import { choiceCount, type Prompt } from "../ui-state.js";
import { Lines } from "./Lines.js";

/** Choices shown at once in a chooser. */
const CHOICES_SHOWN = 8;

const TITLES: Record<Prompt["kind"], string> = {
  incast: "Incast: N senders write into one host (RDMA WRITE, lossless class)",
  udp: "Background UDP: kernel datagrams from one host to another (lossy class)",
  link: "Link down / up: Enter toggles the chosen link",
  kill: "Kill a node: SIGKILL its device process (r restarts it)",
  restart: "Restart a node: a fresh device process",
  preset: "ECN/PFC threshold preset for every switch (presets: default, aggressive, balanced, conservative)",
  "pfc-storm": "PFC storm: the host's NIC sends XOFF for ever on one priority, as a broken NIC does",
  "pfc-enable": "Re-enable PFC on a port and priority the PFC watchdog holds (rocelab pfc enable)",
};

const PRESET_TEXT: Record<(typeof THRESHOLD_PRESETS)[number], string> = {
  default: "ECN 150KB/1500KB 20%, PFC XOFF dynamic (alpha 1/8)",
  aggressive: "ECN 50KB/200KB 100%, PFC XOFF 100KB, XON -17KB",
  balanced: "ECN 150KB/1500KB 100%, PFC XOFF 3000KB, XON -500KB",
  conservative: "ECN 500KB/3000KB 100%, PFC XOFF 6000KB, XON -1000KB",
};

function choiceText(
  p: Extract<Prompt, { kind: "link" | "kill" | "restart" | "preset" }>,
  i: number,
  ctx: KeyContext,
  theme: Theme,
): Segment[] {
  switch (p.kind) {
    case "link": {
      const l = ctx.links[i]!;
      return [
        seg(`${l.a} ↔ ${l.b}  `),
        l.up
          ? seg("up (Enter: take it DOWN)", Tone.Good)
          : seg(`${marker(theme, "DOWN")} (Enter: bring it up)`, Tone.Bad),
      ];
    }
    case "preset": {
      const preset = THRESHOLD_PRESETS[i]!;
      const inUse = preset === ctx.preset ? "  (in use)" : "";
      return [seg(padRight(preset, 13)), seg(`${PRESET_TEXT[preset]}${inUse}`, Tone.Dim)];
    }
    default: {
      const n = ctx.nodes[i]!;
      return [
        seg(`${padRight(n.name, 10)} ${padRight(n.kind, 7)}`),
        n.status === "running"
          ? seg(n.status, Tone.Good)
          : seg(marker(theme, n.status.toUpperCase()), Tone.Bad),
      ];
    }
  }
}

/** The prompt's lines. */
export function promptLines(p: Prompt, ctx: KeyContext, width: number, theme: Theme): Segment[][] {
  const lines: Segment[][] = [[seg("─".repeat(width), Tone.Dim)], [seg(TITLES[p.kind], Tone.Heading)]];
  if ("fields" in p) {
    p.fields.forEach((f, i) => {
      const focused = i === p.focus;
      lines.push([
        seg(focused ? "> " : "  ", Tone.Accent),
        seg(padRight(f.label, 11)),
        seg(`[${padRight(`${f.value}${focused ? "_" : ""}`, 12)}]`, focused ? Tone.Selected : undefined),
        seg(`  ${f.hint}`, Tone.Dim),
      ]);
    });
    lines.push(
      p.error
        ? [seg(`ERROR: ${p.error}`, Tone.Bad)]
        : [seg("Enter start   Tab/↑/↓ field   Backspace edit   Esc cancel", Tone.Dim)],
    );
    return lines;
  }
  if (p.kind === "pfc-enable") return [...lines, ...pfcEnableLines(p, CHOICES_SHOWN, theme)];
  const count = choiceCount(p.kind, ctx);
  const first = Math.max(0, Math.min(p.index - Math.floor(CHOICES_SHOWN / 2), count - CHOICES_SHOWN));
  for (let i = first; i < Math.min(count, first + CHOICES_SHOWN); i++) {
    const chosen = i === p.index;
    lines.push([
      seg(chosen ? "> " : "  ", Tone.Accent),
      ...choiceText(p, i, ctx, theme).map((s) => (chosen && !s.tone ? { ...s, tone: Tone.Selected } : s)),
    ]);
  }
  lines.push([seg(`↑/↓ choose (${p.index + 1}/${count})   Enter confirm   Esc cancel`, Tone.Dim)]);
  return lines;
}

export interface PromptPanelProps {
  readonly prompt: Prompt;
  readonly context: KeyContext;
  readonly width: number;
  readonly height: number;
}

/** The prompt panel. */
export function PromptPanel({ prompt, context, width, height }: PromptPanelProps): ReactElement {
  const theme = useTheme();
  return <Lines lines={promptLines(prompt, context, width, theme)} width={width} height={height} />;
}
