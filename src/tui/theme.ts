// Colour or not, and how a state reads either way. Without colour (NO_COLOR, TERM=dumb, a terminal without
// colours) every state the colours carry is also spelled out: `*PAUSED*`, `DOWN`, `ERROR:`.

import { createContext } from "react";

/** What a piece of text means; the theme decides how it looks. */
export const Tone = {
  Normal: "normal",
  Dim: "dim",
  Heading: "heading",
  Good: "good",
  Warn: "warn",
  Bad: "bad",
  Pause: "pause",
  Accent: "accent",
  Selected: "selected",
} as const;
export type Tone = (typeof Tone)[keyof typeof Tone];

export interface Theme {
  readonly colour: boolean;
}

/** Styles Ink's <Text> takes. */
export interface ToneStyle {
  readonly color?: string;
  readonly bold?: boolean;
  readonly dimColor?: boolean;
  readonly inverse?: boolean;
}

const COLOURED: Record<Tone, ToneStyle> = {
  normal: {},
  dim: { dimColor: true },
  heading: { bold: true },
  good: { color: "green" },
  warn: { color: "yellow" },
  bad: { color: "red", bold: true },
  pause: { color: "magenta", bold: true },
  accent: { color: "cyan" },
  selected: { inverse: true },
};

/** The Ink text style of a tone. Without colour only bold remains (NO_COLOR allows emphasis). */
export function toneStyle(theme: Theme, tone: Tone | undefined): ToneStyle {
  if (!tone) return {};
  if (theme.colour) return COLOURED[tone];
  return tone === "heading" ? { bold: true } : {};
}

/** A state word: itself in colour, `*WORD*` without, so it stands out in plain text too. */
export function marker(theme: Theme, word: string): string {
  return theme.colour ? word : `*${word}*`;
}

/**
 * Whether to use colour on `stream`: not with NO_COLOR set (https://no-color.org) or TERM=dumb; FORCE_COLOR
 * forces it; otherwise whatever the terminal says it supports.
 */
export function colourEnabled(
  env: NodeJS.ProcessEnv,
  stream: { isTTY?: boolean; hasColors?: () => boolean },
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  if (env.TERM === "dumb") return false;
  if (!stream.isTTY) return false;
  return stream.hasColors ? stream.hasColors() : true;
}

export const ThemeContext = createContext<Theme>({ colour: true });
