// ICMP the switch answers and originates (RFC 792): echo replies for its own addresses, and time exceeded
// for packets whose TTL runs out here — sourced from the port the packet came in on, like Linux with
// icmp_errors_use_inbound_ifaddr, so a path trace shows the interface the probe entered. Switch-originated
// ICMP uses DSCP 48 (network control).

import type { Nanoseconds } from "../../device/contract.js";
import { CounterKind, type CounterSet } from "../../device/counters.js";
import { buildIcmpFrame, IcmpTimeExceededCode, IcmpType, parseIcmp } from "../../wire/icmp.js";
import { IpProtocol, ipv4HeaderLength, ipv4TotalLength } from "../../wire/ipv4.js";
import type { PacketMeta } from "../packet-meta.js";
import type { SwitchPort } from "../port.js";

const ICMP_DSCP = 48;

export class IcmpAgent {
  private readonly timeExceededSent: Float64Array;

  /** `originate` routes a frame the switch built (IPv4 header at offset 14). */
  constructor(
    private readonly originate: (frame: Uint8Array, now: Nanoseconds) => void,
    counters: CounterSet,
  ) {
    this.timeExceededSent = counters.add({
      name: "icmp_time_exceeded_sent",
      kind: CounterKind.Counter,
      unit: "packets",
      help: "ICMP time exceeded messages sent",
      labels: [],
    });
  }

  /** A packet for one of the switch's own addresses: answer echo requests. */
  receiveLocal(ps: SwitchPort, m: PacketMeta, now: Nanoseconds): void {
    if (m.protocol !== IpProtocol.ICMP) return;
    const { frame, l3 } = m;
    const parsed = parseIcmp(frame, l3 + ipv4HeaderLength(frame, l3), l3 + ipv4TotalLength(frame, l3));
    if (!parsed.ok || parsed.value.type !== IcmpType.EchoRequest) return;
    const echo = parsed.value;
    this.originate(
      buildIcmpFrame({
        srcMac: ps.cfg.mac,
        dstMac: 0,
        srcIp: m.dstIp,
        dstIp: m.srcIp,
        message: {
          type: IcmpType.EchoReply,
          identifier: echo.identifier,
          sequence: echo.sequence,
          data: frame.subarray(echo.dataOffset, echo.dataOffset + echo.dataLength),
        },
        dscp: ICMP_DSCP,
      }),
      now,
    );
  }

  /** `m` arrived on `ps` with its TTL run out. */
  timeExceeded(ps: SwitchPort, m: PacketMeta, now: Nanoseconds): void {
    this.timeExceededSent[0]!++;
    const { frame, l3 } = m;
    this.originate(
      buildIcmpFrame({
        srcMac: ps.cfg.mac,
        dstMac: 0,
        srcIp: ps.cfg.ip,
        dstIp: m.srcIp,
        message: {
          type: IcmpType.TimeExceeded,
          code: IcmpTimeExceededCode.Ttl,
          original: frame.subarray(l3, l3 + ipv4TotalLength(frame, l3)),
        },
        dscp: ICMP_DSCP,
      }),
      now,
    );
  }
}
