// The messages of an authenticated socket control channel (control-auth.ts), one per line, each sealed:
//   <MAC, 64 hex digits> <sequence number> <the message as JSON>
// MAC = HMAC-SHA256(session key, "<sender role>\n<sequence number>\n<JSON text>"). Each direction counts
// from 0. A line whose MAC does not match (changed on the way, or sealed with another key), whose number
// is not the next one (replayed, reordered, a message dropped from the middle), or that is not of this form
// is refused, and the caller closes the connection: nothing after it can be trusted.

import { createHmac, timingSafeEqual } from "node:crypto";
import type { Role } from "./control-auth.js";

const MAC_HEX = 64;
const LINE = /^([0-9a-f]{64}) (0|[1-9]\d{0,15}) /;

/** A sealed line that cannot be accepted; the message says why (for the log and the peer). */
export class SealError extends Error {
  override readonly name = "SealError";
}

export class SealedLines {
  private sent = 0;
  private expected = 0;

  /** `role` is this end's; the peer's lines carry the other role. */
  constructor(
    private readonly key: Buffer,
    private readonly role: Role,
  ) {}

  private mac(role: Role, seq: number, json: string): Buffer {
    return createHmac("sha256", this.key).update(`${role}\n${seq}\n`).update(json).digest();
  }

  /** The line (without its newline) that carries `message` next. */
  seal(message: unknown): string {
    const json = JSON.stringify(message);
    const seq = this.sent++;
    return `${this.mac(this.role, seq, json).toString("hex")} ${seq} ${json}`;
  }

  /** The message a line of the peer carries; throws SealError if it cannot be trusted. */
  open(line: string): unknown {
    const m = LINE.exec(line);
    if (!m) throw new SealError("a line that is not a sealed message");
    const seq = Number(m[2]);
    const json = line.slice(m[0].length);
    const peer: Role = this.role === "device" ? "controller" : "device";
    const want = this.mac(peer, seq, json);
    if (!timingSafeEqual(Buffer.from(m[1]!, "hex"), want))
      throw new SealError(`message ${seq}: its MAC does not match (changed on the way, or another key)`);
    if (seq !== this.expected)
      throw new SealError(
        `message ${seq} where ${this.expected} was due (${seq < this.expected ? "replayed" : "one is missing, or out of order"})`,
      );
    this.expected++;
    try {
      return JSON.parse(json);
    } catch {
      throw new SealError(`message ${seq} is not JSON`);
    }
  }
}

/** Length of a sealed line's prefix before the JSON (for limits). */
export const SEAL_OVERHEAD = MAC_HEX + 1 + 16 + 1;
