// JSON lines over a stream socket: one JSON value per line, in both directions. The lab's control socket
// and the devices' socket control channel both speak it (the latter sealed after its handshake:
// sealed-lines.ts).
//
// Reading is linear in what the peer sends: each chunk is searched for newlines once, from where the last
// search stopped, and a partial line is kept as the list of its chunks, joined once when its newline comes
// (appending to one string and searching it from the start again made a 16 MB line without a newline cost
// seconds of CPU: the work grew with the square of its length). A line longer than the reader's limit ends
// the connection as soon as the limit is passed, newline or not.

import type { Socket } from "node:net";

/** Largest line a peer may send before it is cut off (a stats answer of a big switch is ~100 KB). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

export interface LineLimits {
  /** Longest line accepted, bytes (without its newline). */
  readonly maxLineBytes: number;
}

/**
 * Splits a byte stream into lines, in time linear in its length. `push` a chunk at a time; it calls
 * `onLine` with each complete line (UTF-8 text, without the newline) and returns false once a line passed
 * the limit (the reader then takes nothing more).
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private pending = 0;
  private over = false;
  private stopped = false;

  constructor(
    private limits: LineLimits,
    private readonly onLine: (line: string) => boolean | undefined,
  ) {}

  /** Changes the limit for what comes next (a connection that has authenticated may send more). */
  setLimits(limits: LineLimits): void {
    this.limits = limits;
  }

  /** The longest line accepted now. */
  get limit(): number {
    return this.limits.maxLineBytes;
  }

  /** Bytes of the line not finished yet. */
  get buffered(): number {
    return this.pending;
  }

  /** Whether a line passed the limit. */
  get overLimit(): boolean {
    return this.over;
  }

  /**
   * Takes a chunk; false when the stream must end (a line over the limit, or `onLine` returned false).
   */
  push(chunk: Buffer): boolean {
    if (this.stopped) return false;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl < 0 ? chunk.length : nl;
      if (this.pending + (end - start) > this.limits.maxLineBytes) {
        this.over = true;
        return this.stop();
      }
      if (nl < 0) {
        if (start < chunk.length) {
          this.parts.push(chunk.subarray(start));
          this.pending += chunk.length - start;
        }
        return true;
      }
      const tail = chunk.subarray(start, nl);
      const line =
        this.parts.length === 0
          ? tail.toString("utf8")
          : Buffer.concat([...this.parts, tail], this.pending + tail.length).toString("utf8");
      this.parts = [];
      this.pending = 0;
      start = nl + 1;
      if (this.onLine(line) === false) return this.stop();
    }
  }

  /** Takes nothing more. */
  stop(): false {
    this.stopped = true;
    this.parts = [];
    this.pending = 0;
    return false;
  }
}

/** Real ms a connection being closed may take to flush its last words before it is destroyed. */
const LINGER_MS = 1000;

/**
 * Ends a connection whose input is no longer read: what was written (a refusal) is flushed, nothing more
 * is read, and the socket is destroyed after LINGER_MS whatever the peer does.
 */
export function hangUp(socket: Socket): void {
  if (socket.destroyed) return;
  socket.pause();
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

export interface LineReaderOptions extends LineLimits {
  /** A line passed the limit: say why on the socket, if the protocol can, before it is closed. */
  readonly onTooLong?: (limit: number) => void;
}

/**
 * Calls `onLine` with every line `socket` delivers (blank lines skipped). A line longer than the limit
 * ends the connection (after `onTooLong`, hangUp); so does `onLine` returning false. Returns the splitter,
 * whose limit the caller may change (after a handshake), and which the caller may stop.
 */
export function readLines(
  socket: Socket,
  onLine: (line: string) => boolean | undefined,
  opts: LineReaderOptions,
): LineSplitter {
  const splitter = new LineSplitter(opts, (line) => {
    if (line.trim() === "") return true;
    const go = onLine(line);
    return go !== false && !socket.destroyed;
  });
  let ended = false;
  socket.on("data", (chunk: Buffer) => {
    if (splitter.push(chunk) || ended) return;
    ended = true;
    if (splitter.overLimit) opts.onTooLong?.(splitter.limit);
    hangUp(socket);
  });
  return splitter;
}

/**
 * Calls `onMessage` with every JSON value `socket` delivers, one per line. A line that is not JSON, or a
 * line longer than the limit (default MAX_LINE_BYTES), ends the connection: a peer that speaks something
 * else is not ours.
 */
export function readJsonLines(
  socket: Socket,
  onMessage: (m: unknown) => void,
  opts: LineReaderOptions = { maxLineBytes: MAX_LINE_BYTES },
): LineSplitter {
  return readLines(
    socket,
    (line) => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return false;
      }
      onMessage(message);
      return true;
    },
    opts,
  );
}

/** Writes one message as a line; false when the socket is gone. */
export function writeJsonLine(socket: Socket, message: unknown): boolean {
  if (socket.destroyed || !socket.writable) return false;
  socket.write(`${JSON.stringify(message)}\n`);
  return true;
}
