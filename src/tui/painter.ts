// Paints Ink's frames on a full-screen terminal without flicker. Ink (in debug mode) hands over each whole
// frame; the painter rewrites only the rows that changed, each at its absolute position, inside a
// synchronized update, at most `fps` times a second. Ink 6.8's own redraw either erases and rewrites every
// line (flicker on terminals without synchronized output) or, in its incremental mode, loses track of the
// cursor by a row per frame when the frame ends in a newline, so the dashboard creeps down the screen.

import { EventEmitter } from "node:events";

const BEGIN_SYNC = "\u001b[?2026h";
const END_SYNC = "\u001b[?2026l";
const ERASE_LINE_END = "\u001b[K";
const CLEAR_SCREEN = "\u001b[2J";
const HIDE_CURSOR = "\u001b[?25l";
const SHOW_CURSOR = "\u001b[?25h";

/** The part of a terminal stream the painter needs. */
export interface PaintTarget {
  readonly columns: number;
  readonly rows: number;
  write(data: string): unknown;
  on(event: "resize", listener: () => void): unknown;
  off(event: "resize", listener: () => void): unknown;
}

/** The escape sequences that turn frame `previous` into frame `next` (rows 1-based, absolute). */
export function frameDiff(previous: readonly string[], next: readonly string[]): string {
  let out = "";
  for (let row = 0; row < Math.max(previous.length, next.length); row++) {
    const line = next[row] ?? "";
    if (line === previous[row]) continue;
    out += `\u001b[${row + 1};1H${line}${ERASE_LINE_END}`;
  }
  return out;
}

/**
 * A stream Ink renders into (its `stdout`): it reports the terminal's size, forwards resizes, and paints.
 * Call close() to stop painting and show the cursor again.
 */
export class FramePainter extends EventEmitter {
  readonly isTTY = true;
  private previous: string[] = [];
  private pending: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastPaint = 0;
  private closed = false;
  private readonly minIntervalMs: number;

  constructor(
    private readonly target: PaintTarget,
    fps = 12,
  ) {
    super();
    this.minIntervalMs = 1000 / fps;
    target.on("resize", this.onResize);
    target.write(HIDE_CURSOR + CLEAR_SCREEN);
  }

  get columns(): number {
    return this.target.columns;
  }

  get rows(): number {
    return this.target.rows;
  }

  /** Ink writes a whole frame; it is painted now or at the next slot. */
  write(frame: string): boolean {
    if (this.closed) return true;
    this.pending = frame;
    const wait = this.lastPaint + this.minIntervalMs - performance.now();
    if (wait <= 0) this.paint();
    else this.timer ??= setTimeout(() => this.paint(), wait);
    return true;
  }

  /** Stops painting; the cursor shows again. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.target.off("resize", this.onResize);
    this.target.write(SHOW_CURSOR);
  }

  private paint(): void {
    this.timer = null;
    if (this.closed || this.pending === null) return;
    const next = this.pending.split("\n").slice(0, this.rows);
    this.pending = null;
    this.lastPaint = performance.now();
    const diff = frameDiff(this.previous, next);
    this.previous = next;
    if (diff !== "") this.target.write(BEGIN_SYNC + diff + END_SYNC);
  }

  private readonly onResize = (): void => {
    // Everything moves on a resize: start from a clean screen, and let Ink lay out again.
    this.previous = [];
    this.target.write(CLEAR_SCREEN);
    this.emit("resize");
  };
}
