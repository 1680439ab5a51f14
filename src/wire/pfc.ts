// MAC Control frames: IEEE 802.1Qbb priority-based flow control (PFC, opcode 0x0101) and IEEE 802.3x
// PAUSE (opcode 0x0001). Both go to the reserved multicast 01:80:c2:00:00:01 with EtherType 0x8808, are
// consumed by the receiving MAC and are never forwarded or VLAN-tagged. Pause times are in quanta of 512
// bit times at the rate of the link the frame travels on.

import { type MacAddress, readU16, writeU16 } from "./bytes.js";
import {
  ETHERNET_HEADER_LENGTH,
  ETHERNET_MIN_FRAME,
  EtherType,
  parseEthernet,
  serializeEthernet,
} from "./ethernet.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";

/** Destination of every MAC Control frame, 01:80:c2:00:00:01. */
export const PFC_DST_MAC: MacAddress = 0x0180_c200_0001;

export const MacControlOpcode = {
  /** IEEE 802.3x PAUSE: one timer for the whole link. */
  Pause: 0x0001,
  /** IEEE 802.1Qbb PFC (Wireshark: "Class Based Flow Control"): one timer per priority. */
  Pfc: 0x0101,
} as const;
export type MacControlOpcode = (typeof MacControlOpcode)[keyof typeof MacControlOpcode];

/** The 802.1p priorities (IEEE 802.1Q): the classes a PFC frame addresses, the same count everywhere. */
export const PRIORITIES = 8;
/** Largest pause time a frame can carry, in quanta. */
export const MAX_PAUSE_QUANTA = 0xffff;
/** Bit times per pause quantum. */
export const PAUSE_QUANTUM_BITS = 512;
/** MAC Control payload of a PFC frame: opcode, class-enable vector, eight times (before padding). */
export const PFC_PAYLOAD_LENGTH = 20;
/** MAC Control payload of a PAUSE frame: opcode and one time (before padding). */
export const PAUSE_PAYLOAD_LENGTH = 4;

/**
 * Per-priority pause times for `buildPfcFrame`, indexed by priority 0..7. `null`: the priority's enable bit
 * is clear and receivers ignore its time. A number: pause for that many quanta (0..65535); 0 is XON, which
 * resumes the priority at once.
 */
export type PfcQuanta = readonly (number | null)[];

export interface PfcFrameInit {
  /** The sending port's MAC. */
  readonly src: MacAddress;
  /** Exactly 8 entries, one per priority. */
  readonly quanta: PfcQuanta;
}

function checkQuanta(q: number, what: string): void {
  if (!Number.isInteger(q) || q < 0 || q > MAX_PAUSE_QUANTA) {
    throw new RangeError(`${what}: ${q} quanta is not an integer in 0..65535`);
  }
}

/**
 * A 60-byte PFC frame (no FCS), zero-padded. Throws RangeError when `quanta` does not have 8 entries or
 * holds a time outside 0..65535: that is a bug in the caller, and masking it would send a wrong pause.
 */
export function buildPfcFrame(init: PfcFrameInit): Uint8Array {
  if (init.quanta.length !== PRIORITIES) {
    throw new RangeError(`PFC quanta needs 8 entries (one per priority), got ${init.quanta.length}`);
  }
  const frame = new Uint8Array(ETHERNET_MIN_FRAME);
  const at = serializeEthernet(
    { dst: PFC_DST_MAC, src: init.src, etherType: EtherType.MacControl },
    frame,
    0,
  );
  writeU16(frame, at, MacControlOpcode.Pfc);
  let enableVector = 0;
  for (let p = 0; p < PRIORITIES; p++) {
    const q = init.quanta[p];
    if (q === null || q === undefined) continue;
    checkQuanta(q, `priority ${p}`);
    enableVector |= 1 << p;
    writeU16(frame, at + 4 + 2 * p, q);
  }
  // The high octet of the vector is reserved and stays 0.
  writeU16(frame, at + 2, enableVector);
  return frame;
}

export interface PauseFrameInit {
  readonly src: MacAddress;
  /** Pause time for the whole link, 0..65535 quanta; 0 resumes. */
  readonly quanta: number;
}

/** A 60-byte 802.3x PAUSE frame (no FCS), zero-padded. Throws RangeError when `quanta` is out of range. */
export function buildPauseFrame(init: PauseFrameInit): Uint8Array {
  checkQuanta(init.quanta, "PAUSE");
  const frame = new Uint8Array(ETHERNET_MIN_FRAME);
  const at = serializeEthernet(
    { dst: PFC_DST_MAC, src: init.src, etherType: EtherType.MacControl },
    frame,
    0,
  );
  writeU16(frame, at, MacControlOpcode.Pause);
  writeU16(frame, at + 2, init.quanta);
  return frame;
}

export interface PfcControl {
  readonly kind: "pfc";
  /** Class-enable vector, 0..255: bit n set means priority n's time applies. */
  readonly enableVector: number;
  /**
   * The reserved first octet of the two-octet priority_enable_vector, as received. Senders transmit 0;
   * receivers ignore it (IEEE 802.1Q clause 36, the PFC frame of 802.1Qbb), so a frame whose reserved
   * octet is not 0 still pauses the priorities its enable bits name. Kept so a checker can flag a sender.
   */
  readonly reserved: number;
  /**
   * The eight times as carried, in quanta, indexed by priority. A time whose enable bit is clear means
   * nothing (normally 0): check `pfcPriorityEnabled` first.
   */
  readonly quanta: readonly number[];
}

export interface PauseControl {
  readonly kind: "pause";
  /** Pause time for the whole link, in quanta; 0 resumes. */
  readonly quanta: number;
}

export type MacControl = PfcControl | PauseControl;

/** Whether priority `priority` (0..7) is enabled in a class-enable vector. */
export function pfcPriorityEnabled(enableVector: number, priority: number): boolean {
  return ((enableVector >>> priority) & 1) === 1;
}

/**
 * Parses a MAC Control payload at `offset` (the first byte after the Ethernet header: the opcode). Only
 * PFC and PAUSE are known; other opcodes (EPON's MPCP, for example) are BadValue. Padding is not checked.
 */
export function parseMacControl(buf: Uint8Array, offset = 0): Parsed<MacControl> {
  const short = need("maccontrol", buf, offset, 2, "opcode");
  if (short) return short;
  const opcode = readU16(buf, offset);
  if (opcode === MacControlOpcode.Pause) {
    const shortPause = need("maccontrol", buf, offset, PAUSE_PAYLOAD_LENGTH, "PAUSE payload");
    if (shortPause) return shortPause;
    return ok({ kind: "pause", quanta: readU16(buf, offset + 2) });
  }
  if (opcode !== MacControlOpcode.Pfc) {
    return fail(
      "maccontrol",
      WireErrorCode.BadValue,
      `opcode 0x${opcode.toString(16).padStart(4, "0")} is neither PFC (0x0101) nor PAUSE (0x0001)`,
      offset,
    );
  }
  const shortPfc = need("maccontrol", buf, offset, PFC_PAYLOAD_LENGTH, "PFC payload");
  if (shortPfc) return shortPfc;
  // The vector's high octet is reserved: ignored on receipt, as 802.1Q has receivers do.
  const enableVector = buf[offset + 3]!;
  const reserved = buf[offset + 2]!;
  const quanta: number[] = [];
  for (let p = 0; p < PRIORITIES; p++) quanta.push(readU16(buf, offset + 4 + 2 * p));
  return ok({ kind: "pfc", enableVector, reserved, quanta });
}

export interface MacControlFrame {
  /** The sender's port MAC. */
  readonly src: MacAddress;
  readonly control: MacControl;
}

/**
 * Parses a whole frame as a MAC Control frame (PFC or PAUSE): EtherType 0x8808, destination
 * 01:80:c2:00:00:01 and no VLAN tag (BadValue otherwise), then the payload as `parseMacControl` does.
 */
export function parsePfcFrame(frame: Uint8Array): Parsed<MacControlFrame> {
  const eth = parseEthernet(frame, 0);
  if (!eth.ok) return eth;
  const h = eth.value;
  if (h.vlan !== null) {
    return fail("maccontrol", WireErrorCode.BadValue, "MAC Control frames are never VLAN-tagged", 12);
  }
  if (h.etherType !== EtherType.MacControl) {
    return fail(
      "maccontrol",
      WireErrorCode.BadValue,
      `EtherType 0x${h.etherType.toString(16).padStart(4, "0")}, expected 0x8808 (MAC Control)`,
      12,
    );
  }
  if (h.dst !== PFC_DST_MAC) {
    return fail(
      "maccontrol",
      WireErrorCode.BadValue,
      `destination ${h.dst.toString(16).padStart(12, "0")}, expected 0180c2000001`,
      0,
    );
  }
  const control = parseMacControl(frame, ETHERNET_HEADER_LENGTH);
  if (!control.ok) return control;
  return ok({ src: h.src, control: control.value });
}

// Time conversion. A quantum lasts 512 bit times of the link the frame is received on, so the same
// quanta mean 4× less time at 100 Gb/s than at 25 Gb/s.

/** Duration of one pause quantum in ns at `rateBps` bits per second (5.12 ns at 100 Gb/s). */
export function pauseQuantumNs(rateBps: number): number {
  return (PAUSE_QUANTUM_BITS * 1e9) / rateBps;
}

/** Duration of `quanta` pause quanta in ns at `rateBps` bits per second. */
export function quantaToNs(quanta: number, rateBps: number): number {
  // Multiplying before dividing keeps whole-ns results exact (65535 quanta at 40 Gb/s is 838,848 ns).
  return (quanta * PAUSE_QUANTUM_BITS * 1e9) / rateBps;
}

/**
 * The smallest number of quanta that pauses for at least `ns` nanoseconds at `rateBps`, clamped to
 * 0..65535. Rounds up so that a sender asking for a pause never gets a shorter one.
 */
export function nsToQuanta(ns: number, rateBps: number): number {
  if (!(ns > 0)) return 0;
  const exact = (ns * rateBps) / (PAUSE_QUANTUM_BITS * 1e9);
  // Shave a relative 1e-12 off first so that floating-point noise on an exact multiple (a value from
  // quantaToNs) does not round up to the next quantum.
  const q = Math.ceil(exact * (1 - 1e-12));
  return Math.min(q, MAX_PAUSE_QUANTA);
}
