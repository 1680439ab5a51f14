// What a key asks for: a lab action the lab carries out (scenario/action.ts), or something of the
// dashboard's own (pause, speed, a notice, quit).

import { describeAction, type LabAction } from "../scenario/action.js";

/** Something the lab (or the program) should do. */
export type Effect =
  | { readonly type: "quit" }
  /** A lab action (scenario/action.ts): the lab carries it out. */
  | { readonly type: "action"; readonly action: LabAction }
  | { readonly type: "pause" }
  | { readonly type: "speed"; readonly factor: number }
  | { readonly type: "notice"; readonly text: string };

/** The effect of a lab action. */
export function act(action: LabAction): Effect {
  return { type: "action", action };
}

/** A short description of an effect, for the status line while it runs. */
export function describeEffect(e: Effect): string {
  switch (e.type) {
    case "action":
      return describeAction(e.action);
    case "pause":
      return "pause";
    case "speed":
      return "speed";
    case "notice":
      return e.text;
    case "quit":
      return "quit";
  }
}
