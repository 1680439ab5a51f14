// JSON lines over a stream socket: one JSON value per line, in both directions. The lab's control socket
// and the devices' socket control channel both speak it.

import type { Socket } from "node:net";

/** Largest line a peer may send before it is cut off (a stats answer of a big switch is ~100 KB). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Calls `onMessage` with every JSON value `socket` delivers, one per line. A line that is not JSON, or a
 * line longer than MAX_LINE_BYTES, ends the connection: a peer that speaks something else is not ours.
 */
export function readJsonLines(socket: Socket, onMessage: (m: unknown) => void): void {
  let buffered = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() === "") continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        socket.destroy();
        return;
      }
      onMessage(message);
      if (socket.destroyed) return;
    }
    if (buffered.length > MAX_LINE_BYTES) socket.destroy();
  });
}

/** Writes one message as a line; false when the socket is gone. */
export function writeJsonLine(socket: Socket, message: unknown): boolean {
  if (socket.destroyed || !socket.writable) return false;
  socket.write(`${JSON.stringify(message)}\n`);
  return true;
}
