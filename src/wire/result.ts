// Parse results. A codec never throws on bad input and never reads out of bounds: it returns a typed
// error naming the protocol, what is wrong and where.

export const WireErrorCode = {
  /** The buffer ends before the header (or a length field) says it should. */
  Truncated: "truncated",
  /** A version field is not the one this codec speaks. */
  BadVersion: "bad-version",
  /** Two lengths disagree (a header's length field vs the bytes present, for example). */
  BadLength: "bad-length",
  /** A checksum or CRC does not match. */
  BadChecksum: "bad-checksum",
  /** A field holds a value the protocol forbids (a reserved bit set, an unknown type). */
  BadValue: "bad-value",
} as const;
export type WireErrorCode = (typeof WireErrorCode)[keyof typeof WireErrorCode];

export interface WireError {
  /** Short protocol name: "ethernet", "ipv4", "bth", ... */
  readonly protocol: string;
  readonly code: WireErrorCode;
  /** Human-readable, names the field and the values involved. */
  readonly message: string;
  /** Byte offset (in the buffer handed to the parser) where the problem was found. */
  readonly offset: number;
}

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: WireError };

export function ok<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

export function fail(protocol: string, code: WireErrorCode, message: string, offset: number): Parsed<never> {
  return { ok: false, error: { protocol, code, message, offset } };
}

/** Fails with `Truncated` unless `need` bytes are available from `offset`. */
export function need(
  protocol: string,
  buf: Uint8Array,
  offset: number,
  need: number,
  what = "header",
): Parsed<never> | null {
  if (offset < 0 || offset + need > buf.length) {
    const have = Math.max(0, buf.length - offset);
    return fail(protocol, WireErrorCode.Truncated, `${what} needs ${need} bytes, ${have} left`, offset);
  }
  return null;
}

/** Formats an error as one line: `ipv4 bad-checksum at byte 14: ...`. */
export function formatWireError(e: WireError): string {
  return `${e.protocol} ${e.code} at byte ${e.offset}: ${e.message}`;
}
