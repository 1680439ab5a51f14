// pcap-check above IPv4 and beside it: ICMP, RoCEv2 and RoCEv1 (BTH, its extended headers, ICRC), and MAC
// Control (802.3x PAUSE, 802.1Qbb PFC).

import { internetChecksum, macToString, readU16 } from "../wire/bytes.js";
import { GSI_QKEY, GSI_QP, parseCmDatagram, UD_SEND_ONLY } from "../wire/cm-mad.js";
import { ETHERNET_MIN_FRAME, type EthernetHeader } from "../wire/ethernet.js";
import { IcmpType, parseIcmp } from "../wire/icmp.js";
import { computeIcrcV1, computeIcrcV2, readIcrc, verifyIcrcV1, verifyIcrcV2 } from "../wire/icrc.js";
import { ipv4HeaderChecksum } from "../wire/ipv4.js";
import {
  MacControlOpcode,
  PFC_DST_MAC,
  PFC_PAYLOAD_LENGTH,
  PRIORITIES,
  parseMacControl,
} from "../wire/pfc.js";
import { WireErrorCode } from "../wire/result.js";
import { aethKind, DEFAULT_PKEY, Opcode, opcodeName, parseRoce, type RoceHeaders } from "../wire/roce.js";
import { GRH_LENGTH, parseRoceV1Frame } from "../wire/rocev1.js";
import { FCS_LENGTH, fcsProblem } from "./frame-fcs.js";
import { FrameKind, hex, wire } from "./frame-kind.js";
import { checkIntBlock, emptyIntTally, type IntTally } from "./pcap-check-int.js";

/** INT trailers seen since the last `resetIntTally` (the capture being checked). */
export const intTally: IntTally = emptyIntTally();

export function resetIntTally(): void {
  Object.assign(intTally, emptyIntTally());
}

export function checkIcmp(frame: Uint8Array, l4: number, ipEnd: number, say: (m: string) => void): FrameKind {
  const parsed = parseIcmp(frame, l4, ipEnd);
  if (!parsed.ok) {
    // parseIcmp verifies the checksum before it looks at the type, so an unknown type (a redirect, a
    // timestamp request) has a good checksum: nothing wrong, just nothing the lab sends.
    if (parsed.error.code !== WireErrorCode.BadValue) say(wire(parsed.error));
    return FrameKind.Icmp;
  }
  const m = parsed.value;
  if (m.type === IcmpType.TimeExceeded || m.type === IcmpType.DestinationUnreachable) {
    // The quoted header is the datagram as the router received it: its checksum must still hold.
    const q = m.dataOffset;
    if (m.dataLength >= 20 && frame[q]! >>> 4 === 4) {
      const qhl = (frame[q]! & 0x0f) * 4;
      if (qhl >= 20 && qhl <= m.dataLength && internetChecksum(frame, q, qhl) !== 0) {
        say(
          `icmp quoted ipv4 header checksum: ${hex(readU16(frame, q + 10), 4)}, expected ${hex(ipv4HeaderChecksum(frame, q), 4)}`,
        );
      }
    }
  }
  return FrameKind.Icmp;
}

/** Kind of a RoCE packet from its opcode byte alone (when the packet could not be parsed). */
export function roceKindFromOpcode(frame: Uint8Array, bthOff: number, end: number): FrameKind {
  if (bthOff >= end || bthOff >= frame.length) return FrameKind.RoceData;
  const opcode = frame[bthOff]!;
  if (opcode === Opcode.Cnp) return FrameKind.Cnp;
  if (opcode === Opcode.Acknowledge) return FrameKind.Ack;
  return FrameKind.RoceData;
}

export function checkRoceV2(
  frame: Uint8Array,
  ipOff: number,
  bthOff: number,
  udpEnd: number,
  ipEnd: number,
  say: (m: string) => void,
): FrameKind {
  if (bthOff < udpEnd && frame[bthOff] === UD_SEND_ONLY)
    return checkCm(frame, ipOff, bthOff, udpEnd, ipEnd, say);
  // A receiver trims the packet to the UDP length, so that is where the ICRC is looked for.
  const parsed = parseRoce(frame, bthOff, udpEnd);
  if (!parsed.ok) {
    say(`roce ${wire(parsed.error)}`);
    return roceKindFromOpcode(frame, bthOff, udpEnd);
  }
  const roce = parsed.value;
  const headersEnd = bthOff + roce.headerLength;
  const intAt = roce.intLength > 0 ? headersEnd : -1;
  checkIntBlock(frame, headersEnd, udpEnd - 4, intAt, roce.intLength, intTally, say);
  const kind = checkTransport(frame, bthOff, roce, say);
  // The ICRC runs from the IPv4 header to the end of the UDP payload.
  const icrcEnd = Math.min(udpEnd, ipEnd);
  if (!verifyIcrcV2(frame, ipOff, icrcEnd)) {
    say(
      `icrc: ${hex(readIcrc(frame, icrcEnd), 8)}, expected ${hex(computeIcrcV2(frame, ipOff, icrcEnd), 8)} (RoCEv2 ${opcodeName(roce.bth.opcode)}, PSN ${roce.bth.psn})`,
    );
  }
  return kind;
}

/**
 * A UD datagram: the lab sends only CM MADs to QP1 (IBTA Vol. 1 ch. 12); its DETH must carry the GSI's
 * Q_Key and source QP 1, its MAD must be a CM message we speak, and the ICRC must hold.
 */
function checkCm(
  frame: Uint8Array,
  ipOff: number,
  bthOff: number,
  udpEnd: number,
  ipEnd: number,
  say: (m: string) => void,
): FrameKind {
  const destQp =
    frame.length >= bthOff + 8
      ? (frame[bthOff + 5]! << 16) | (frame[bthOff + 6]! << 8) | frame[bthOff + 7]!
      : -1;
  if (destQp !== GSI_QP) say(`cm: UD SEND ONLY to QP ${destQp}: the lab's datagrams are CM MADs to QP1`);
  const parsed = parseCmDatagram(frame, bthOff, udpEnd);
  if (!parsed.ok) say(wire(parsed.error));
  else {
    if (parsed.value.qkey !== GSI_QKEY)
      say(`deth Q_Key: ${hex(parsed.value.qkey, 8)}, expected 0x80010000 (GSI)`);
    if (parsed.value.srcQp !== GSI_QP) say(`deth source QP: ${parsed.value.srcQp}, expected 1 (GSI)`);
  }
  const icrcEnd = Math.min(udpEnd, ipEnd);
  if (!verifyIcrcV2(frame, ipOff, icrcEnd)) {
    say(
      `icrc: ${hex(readIcrc(frame, icrcEnd), 8)}, expected ${hex(computeIcrcV2(frame, ipOff, icrcEnd), 8)} (RoCEv2 CM MAD)`,
    );
  }
  return FrameKind.Cm;
}

export function checkRoceV1(frame: Uint8Array, say: (m: string) => void): FrameKind {
  const parsed = parseRoceV1Frame(frame, { verifyIcrc: false });
  if (!parsed.ok) {
    say(`rocev1 ${wire(parsed.error)}`);
    return FrameKind.RoceData;
  }
  const { grh, grhOffset, roce } = parsed.value;
  const kind = checkTransport(frame, grhOffset + GRH_LENGTH, roce, say);
  const end = grhOffset + GRH_LENGTH + grh.payloadLength;
  if (!verifyIcrcV1(frame, grhOffset, end)) {
    say(
      `icrc: ${hex(readIcrc(frame, end), 8)}, expected ${hex(computeIcrcV1(frame, grhOffset, end), 8)} (RoCEv1 ${opcodeName(roce.bth.opcode)}, PSN ${roce.bth.psn})`,
    );
  }
  return kind;
}

/** BTH sanity past what `parseRoce` enforces, the CNP and AETH rules, and the packet's kind. */
export function checkTransport(
  frame: Uint8Array,
  bthOff: number,
  roce: RoceHeaders,
  say: (m: string) => void,
): FrameKind {
  const { bth } = roce;
  const name = opcodeName(bth.opcode);
  if (bth.pkey !== DEFAULT_PKEY) say(`bth P_Key: ${hex(bth.pkey, 4)}, expected 0xffff (${name})`);
  // Reserved bits: Resv6 (BTH byte 4, below FECN and BECN) and Resv7 (byte 8, below AckReq). Senders zero
  // them; BTH_LENGTH bounds both reads, which parseRoce has checked.
  const resv6 = frame[bthOff + 4]! & 0x3f;
  const resv7 = frame[bthOff + 8]! & 0x7f;
  if (resv6 !== 0) say(`bth Resv6: ${hex(resv6, 2)}, reserved bits must be 0 (${name})`);
  if (resv7 !== 0) say(`bth Resv7: ${hex(resv7, 2)}, reserved bits must be 0 (${name})`);
  if (bth.opcode === Opcode.Cnp) {
    if (!bth.becn) say("cnp BECN: clear, a CNP must have BECN set (BTH byte 4 = 0x40)");
    const reserved = roce.cnpReserved;
    if (reserved) {
      const at = reserved.findIndex((b) => b !== 0);
      if (at >= 0) say(`cnp reserved bytes: byte ${at} of 16 is ${hex(reserved[at]!, 2)}, all must be 0`);
    }
    return FrameKind.Cnp;
  }
  if (roce.aeth) {
    const k = aethKind(roce.aeth.syndrome);
    if (k === "reserved") say(`aeth syndrome: ${hex(roce.aeth.syndrome, 2)} is a reserved value (${name})`);
    if (bth.opcode === Opcode.Acknowledge) return k === "ack" ? FrameKind.Ack : FrameKind.Nak;
  }
  return FrameKind.RoceData;
}

export function checkMacControl(frame: Uint8Array, eth: EthernetHeader, say: (m: string) => void): FrameKind {
  const l3 = eth.headerLength;
  if (eth.dst !== PFC_DST_MAC) {
    say(`maccontrol destination: ${macToString(eth.dst)}, expected 01:80:c2:00:00:01`);
  }
  if (eth.vlan) say("maccontrol 802.1Q: MAC Control frames are never VLAN-tagged");
  // 60 bytes, or 64 when the capture kept the FCS (checked then).
  if (frame.length === ETHERNET_MIN_FRAME + FCS_LENGTH) {
    const fcs = fcsProblem(frame);
    if (fcs) say(fcs);
  } else if (frame.length !== ETHERNET_MIN_FRAME) {
    say(`maccontrol length: ${frame.length} bytes, expected 60 (64 with the FCS)`);
  }
  const parsed = parseMacControl(frame, l3);
  // Classify from the raw opcode even when the payload is bad, so a broken PFC frame still counts as PFC.
  const opcode = frame.length >= l3 + 2 ? readU16(frame, l3) : -1;
  if (!parsed.ok) {
    say(wire(parsed.error));
    if (opcode === MacControlOpcode.Pause) return FrameKind.Pause;
    if (opcode !== MacControlOpcode.Pfc || frame.length < l3 + PFC_PAYLOAD_LENGTH) return FrameKind.Other;
    return pfcKind(frame[l3 + 3]!, (p) => readU16(frame, l3 + 4 + 2 * p));
  }
  const control = parsed.value;
  const used = control.kind === "pfc" ? PFC_PAYLOAD_LENGTH : 4;
  // Padding up to 60 bytes is reserved and transmitted as zero.
  const padEnd = Math.min(frame.length, ETHERNET_MIN_FRAME);
  for (let i = l3 + used; i < padEnd; i++) {
    if (frame[i] !== 0) {
      say(`maccontrol padding: byte ${i} is ${hex(frame[i]!, 2)}, reserved bytes must be 0`);
      break;
    }
  }
  if (control.kind === "pause") return FrameKind.Pause;
  // A receiver ignores the reserved octet (the switches do); a capture of what the lab sent must show 0.
  if (control.reserved !== 0) {
    const vector = (control.reserved << 8) | control.enableVector;
    say(
      `maccontrol: class-enable vector 0x${vector.toString(16).padStart(4, "0")}: its high octet is reserved ` +
        "and must be sent as 0 (receivers ignore it)",
    );
  }
  return pfcKind(control.enableVector, (p) => control.quanta[p]!);
}

export function pfcKind(enableVector: number, time: (priority: number) => number): FrameKind {
  for (let p = 0; p < PRIORITIES; p++) {
    if ((enableVector >>> p) & 1 && time(p) > 0) return FrameKind.PfcXoff;
  }
  return FrameKind.PfcXon;
}
