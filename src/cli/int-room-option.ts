// `rocelab up --int-room [HOPS]`: size the live lab's ports for HPCC's INT block up front, so that a later
// `rocelab set hosts cc: hpcc` finds room for it. A port's MTU is the path MTU + 128 + the INT room
// (lab/live/provision.ts interfaceMtu); without room the kernel refuses every full-size HPCC data frame, so a
// running lab refuses the change instead (docs/int.md). HOPS is the number of hop records the senders will
// reserve (hpcc.maxHops, 1..15; default 5, HPCC's default); the room of HPCC's block covers TIMELY's
// (24 bytes) too.

import { INT_DEFAULT_MAX_HOPS, INT_MAX_HOPS, IntMode, intBlockLength } from "../wire/int-md.js";
import { UsageError } from "./errors.js";

export interface IntRoom {
  /** Hop records the room is sized for (hpcc.maxHops). */
  readonly hops: number;
  /** Bytes of INT per data packet the ports take on top of a full-size frame. */
  readonly bytes: number;
}

/** The room for HPCC data packets that reserve `hops` hop records. */
export function intRoomFor(hops: number): IntRoom {
  return { hops, bytes: intBlockLength(IntMode.Collect, hops) };
}

/** `--int-room` as commander gives it: absent (undefined), given bare (true) or with a value. */
export function parseIntRoom(value: string | boolean | undefined): IntRoom | null {
  if (value === undefined || value === false) return null;
  if (value === true) return intRoomFor(INT_DEFAULT_MAX_HOPS);
  const hops = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || hops < 1 || hops > INT_MAX_HOPS)
    throw new UsageError(
      `--int-room "${value}": expected the INT hop records HPCC's packets will reserve (hpcc.maxHops), a whole number from 1 to ${INT_MAX_HOPS}, or nothing for ${INT_DEFAULT_MAX_HOPS}`,
    );
  return intRoomFor(hops);
}
