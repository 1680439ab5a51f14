// A run of characters Ink hands over at once, as the key presses they are (ui-state.ts's reducer takes
// one key at a time).

import type { KeyPress } from "./key-context.js";

/**
 * The keys in a run of characters that arrived together (typed fast, pasted, or sent by tmux). Ink splits
 * escape sequences (arrows, Home...) into separate keys but hands over a run of plain characters, Enter,
 * Tab and Backspace included, as one string.
 */
export function splitKeys(input: string): KeyPress[] {
  return [...input].map((ch): KeyPress => {
    switch (ch) {
      case "\r":
      case "\n":
        return { input: "", key: { return: true } };
      case "\t":
        return { input: "", key: { tab: true } };
      case "\u007f":
      case "\b":
        return { input: "", key: { backspace: true } };
      case "\u001b":
        return { input: "", key: { escape: true } };
    }
    const code = ch.charCodeAt(0);
    // Ctrl-A..Ctrl-Z arrive as codes 1-26.
    if (code < 0x20) return { input: String.fromCharCode(code + 96), key: { ctrl: true } };
    return { input: ch, key: {} };
  });
}
