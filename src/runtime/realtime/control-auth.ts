// Authentication of a device's socket control channel: both ends hold the same secret (a token file) and
// each proves it to the other without sending it. The device opens with a random challenge; the
// controller answers with HMAC-SHA256(token, "controller" + challenge) and a challenge of its own; the
// device answers that with HMAC-SHA256(token, "device" + the controller's challenge) in its `ready`.
// A listener on the device's address that does not know the token cannot pass for the device, and a
// captured exchange is no use later (fresh challenges). From then on every message in both directions is
// sealed (sealed-lines.ts): an HMAC-SHA256, keyed from the token and both challenges, over its direction,
// its sequence number and its text, so a message changed, dropped from the middle, replayed or reordered
// on the way ends the connection. The channel is not encrypted: keep it on a management network, or
// tunnel it (docs/attach.md).

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";

/** Shortest token accepted, bytes (after trimming surrounding white space). */
export const MIN_TOKEN_BYTES = 16;
/** The control protocol: 2 seals every message after the handshake (1 did not). */
export const CONTROL_PROTOCOL = 2;
const PROTOCOL = `rocelab-control-v${CONTROL_PROTOCOL}`;

export type Role = "controller" | "device";

/**
 * The token in `file`. Refused: a file anyone but its owner may read (as ssh refuses such keys), and a
 * token shorter than MIN_TOKEN_BYTES. The message says how to make a good one.
 */
export function readTokenFile(file: string): Buffer {
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`token file ${file}: ${(e as Error).message}`);
  }
  if ((mode & 0o077) !== 0)
    throw new Error(
      `token file ${file} may be read by others (mode ${(mode & 0o777).toString(8)}): chmod 600 ${file}`,
    );
  const token = Buffer.from(text.trim(), "utf8");
  if (token.length < MIN_TOKEN_BYTES)
    throw new Error(
      `token file ${file} holds ${token.length} bytes; at least ${MIN_TOKEN_BYTES} are needed (for example: openssl rand -hex 32 > ${file})`,
    );
  return token;
}

/** A fresh challenge (hex). */
export function newChallenge(): string {
  return randomBytes(32).toString("hex");
}

/** What `role` sends to prove it holds `token`, for the other side's `challenge`. */
export function proof(token: Buffer, role: Role, challenge: string): string {
  return createHmac("sha256", token).update(`${PROTOCOL}\n${role}\n${challenge}`).digest("hex");
}

/**
 * The key that seals the session's messages: HMAC-SHA256 of the token over both challenges, so each
 * connection has its own and a message of one is no use in another.
 */
export function sessionKey(token: Buffer, deviceChallenge: string, controllerChallenge: string): Buffer {
  return createHmac("sha256", token)
    .update(`${PROTOCOL}\nsession\n${deviceChallenge}\n${controllerChallenge}`)
    .digest();
}

/** Whether `given` is `role`'s proof for `challenge` (constant-time comparison). */
export function proofMatches(token: Buffer, role: Role, challenge: string, given: unknown): boolean {
  if (typeof given !== "string") return false;
  const want = Buffer.from(proof(token, role, challenge), "hex");
  const got = Buffer.from(given, "hex");
  return got.length === want.length && timingSafeEqual(got, want);
}
