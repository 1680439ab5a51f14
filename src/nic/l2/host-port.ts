// The host port (NicConfig.hostPort): frames that are not RoCE for us go up to the host's kernel stack,
// and the stack's frames come down for the wire, queued per priority (a NIC keeps a send queue per
// traffic class, so PFC stops only its own) and bounded like a TX ring.

import type { Nanoseconds } from "../../device/contract.js";
import { Fifo } from "../../device/fifo.js";
import { EtherType, ethPayloadOffset, ethType } from "../../wire/ethernet.js";
import { IpProtocol, ipv4Dst, ipv4HeaderLength, ipv4Protocol } from "../../wire/ipv4.js";
import { PRIORITIES } from "../../wire/pfc.js";
import { ROCEV2_UDP_PORT, udpDstPort } from "../../wire/udp.js";
import { HOST_PORT } from "../nic-ids.js";
import type { Kick, NicShared } from "../nic-shared.js";

/** Host-stack frames waiting for the wire; beyond this the host's traffic is dropped, as a full TX ring. */
const HOST_QUEUE_LIMIT = 1024;

export class HostPort {
  private readonly queues = Array.from({ length: PRIORITIES }, () => new Fifo<Uint8Array>());
  private queued = 0;
  toHostFrames = 0;
  fromHostFrames = 0;
  txDropped = 0;

  constructor(
    private readonly s: NicShared,
    private readonly kick: Kick,
  ) {}

  /** A RoCEv2 packet addressed to us (IPv4, UDP, destination port 4791, our address), or RoCEv1 when we speak it. */
  isRoceForUs(frame: Uint8Array, type: number, ip: number): boolean {
    if (type === EtherType.RoCEv1) return this.s.cfg.roce === "v1";
    if (type !== EtherType.IPv4 || frame.length < ip + 28 || ipv4Protocol(frame, ip) !== IpProtocol.UDP)
      return false;
    if (ipv4Dst(frame, ip) !== this.s.cfg.port.ip) return false;
    return udpDstPort(frame, ip + ipv4HeaderLength(frame, ip)) === ROCEV2_UDP_PORT;
  }

  /** A frame from the wire for the host stack. */
  toHost(frame: Uint8Array): void {
    this.toHostFrames++;
    this.s.env.transmit(HOST_PORT, frame);
  }

  /** A frame from the host stack, for the wire. */
  fromHost(frame: Uint8Array, now: Nanoseconds): void {
    if (frame.length < 14) return;
    if (this.queued >= HOST_QUEUE_LIMIT) {
      this.txDropped++;
      return;
    }
    this.fromHostFrames++;
    this.queued++;
    this.queues[this.priority(frame)]!.push(frame);
    this.kick(now);
  }

  /** Priority of a host-stack frame: its DSCP's for IPv4, 0 otherwise. */
  private priority(frame: Uint8Array): number {
    if (ethType(frame) !== EtherType.IPv4) return 0;
    return this.s.cfg.qos.dscpToPriority[frame[ethPayloadOffset(frame) + 1]! >>> 2]!;
  }

  /** Host-stack frames waiting, every priority. */
  get backlog(): number {
    return this.queued;
  }

  /** The next host-stack frame of the highest priority that is not paused (bit p of `paused`). */
  take(paused: number): Uint8Array | null {
    if (this.queued === 0) return null;
    for (let p = PRIORITIES - 1; p >= 0; p--) {
      if ((paused >> p) & 1) continue;
      const frame = this.queues[p]!.shift();
      if (frame !== undefined) {
        this.queued--;
        return frame;
      }
    }
    return null;
  }
}
