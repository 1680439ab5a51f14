// Frame builders for tests (the devices build their own).
import type { Ipv4Address, MacAddress } from "../../src/wire/bytes.js";
import { EtherType, serializeEthernet } from "../../src/wire/ethernet.js";
import { Ecn, IpProtocol, serializeIpv4 } from "../../src/wire/ipv4.js";
import { serializeUdp } from "../../src/wire/udp.js";

export interface UdpFrameSpec {
  readonly srcMac: MacAddress;
  readonly dstMac: MacAddress;
  readonly srcIp: Ipv4Address;
  readonly dstIp: Ipv4Address;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly payloadLength: number;
  readonly ttl?: number;
  readonly dscp?: number;
  readonly ecn?: Ecn;
  readonly fill?: number;
}

export function udpFrame(s: UdpFrameSpec): Uint8Array {
  const frame = new Uint8Array(Math.max(60, 14 + 20 + 8 + s.payloadLength));
  let at = serializeEthernet({ dst: s.dstMac, src: s.srcMac, etherType: EtherType.IPv4 }, frame, 0);
  at = serializeIpv4(
    {
      src: s.srcIp,
      dst: s.dstIp,
      protocol: IpProtocol.UDP,
      payloadLength: 8 + s.payloadLength,
      ttl: s.ttl ?? 64,
      dscp: s.dscp ?? 0,
      ecn: s.ecn ?? Ecn.NotEct,
    },
    frame,
    at,
  );
  at = serializeUdp({ srcPort: s.srcPort, dstPort: s.dstPort, payloadLength: s.payloadLength }, frame, at);
  frame.fill(s.fill ?? 0xab, at, at + s.payloadLength);
  return frame;
}
