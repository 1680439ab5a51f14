// A host's own IP stack, as a device: what the Linux kernel is in the live lab, modelled for the virtual-
// time runtime. It sits behind the NIC's host port (NicConfig.hostPort), answers ARP and ping for the
// host's address, counts the UDP it receives, and sends paced UDP datagrams on request: the lossy
// background traffic that shares the fabric with RoCE.

import type { Counters, Device, DeviceEnv, DeviceStats, Nanoseconds } from "../device/contract.js";
import { ArpOp, buildArpFrame, parseArp } from "../wire/arp.js";
import type { Ipv4Address, MacAddress } from "../wire/bytes.js";
import { EtherType, ethPayloadOffset, ethType, serializeEthernet } from "../wire/ethernet.js";
import { buildIcmpFrame, IcmpType, parseIcmp } from "../wire/icmp.js";
import {
  IpProtocol,
  ipv4Dst,
  ipv4HeaderLength,
  ipv4Protocol,
  ipv4Src,
  ipv4TotalLength,
  serializeIpv4,
} from "../wire/ipv4.js";
import { serializeUdp, udpChecksum, udpDstPort } from "../wire/udp.js";

export interface HostStackConfig {
  readonly name: string;
  readonly mac: MacAddress;
  readonly ip: Ipv4Address;
  /** Where every datagram goes (the leaf port). */
  readonly gatewayMac: MacAddress;
}

export type HostStackCommand =
  /** Send UDP to `dstIp` at `rateBps` (emulated) for `durationNs` (default: until stopped). */
  | {
      readonly type: "udp";
      readonly dstIp: Ipv4Address;
      readonly dstPort?: number;
      readonly rateBps: number;
      readonly size?: number;
      readonly dscp?: number;
      readonly durationNs?: number;
    }
  | { readonly type: "stop" };

/** The port towards the NIC. */
const PORT = 1;
const T_UDP = 1;
const UDP_SRC_PORT = 40_000;
const UDP_DST_PORT = 5001;

interface UdpStream {
  readonly dstIp: Ipv4Address;
  readonly dstPort: number;
  readonly intervalNs: number;
  readonly size: number;
  readonly dscp: number;
  readonly until: number;
  next: number;
}

export class HostStack implements Device<HostStackCommand, { ok: true }> {
  readonly name: string;
  private stream: UdpStream | null = null;
  private readonly counters = {
    udp_tx_packets: 0,
    udp_tx_bytes: 0,
    udp_rx_packets: 0,
    udp_rx_bytes: 0,
    icmp_echo_replies_sent: 0,
    arp_replies_sent: 0,
  };

  constructor(
    private readonly cfg: HostStackConfig,
    private readonly env: DeviceEnv,
  ) {
    this.name = cfg.name;
  }

  start(): void {}

  receive(_port: number, frame: Uint8Array): void {
    const type = ethType(frame);
    const l3 = ethPayloadOffset(frame);
    if (type === EtherType.ARP) {
      const arp = parseArp(frame, l3);
      if (arp.ok && arp.value.op === ArpOp.Request && arp.value.targetIp === this.cfg.ip) {
        this.counters.arp_replies_sent++;
        this.env.transmit(
          PORT,
          buildArpFrame({
            op: ArpOp.Reply,
            senderMac: this.cfg.mac,
            senderIp: this.cfg.ip,
            targetMac: arp.value.senderMac,
            targetIp: arp.value.senderIp,
          }),
        );
      }
      return;
    }
    if (type !== EtherType.IPv4 || frame.length < l3 + 20 || ipv4Dst(frame, l3) !== this.cfg.ip) return;
    const proto = ipv4Protocol(frame, l3);
    const l4 = l3 + ipv4HeaderLength(frame, l3);
    const end = l3 + ipv4TotalLength(frame, l3);
    if (proto === IpProtocol.UDP && udpDstPort(frame, l4) === UDP_DST_PORT) {
      this.counters.udp_rx_packets++;
      this.counters.udp_rx_bytes += end - l4 - 8;
      return;
    }
    if (proto === IpProtocol.ICMP) {
      const msg = parseIcmp(frame, l4, end);
      if (!msg.ok || msg.value.type !== IcmpType.EchoRequest) return;
      this.counters.icmp_echo_replies_sent++;
      const echo = msg.value;
      this.env.transmit(
        PORT,
        buildIcmpFrame({
          srcMac: this.cfg.mac,
          dstMac: this.cfg.gatewayMac,
          srcIp: this.cfg.ip,
          dstIp: ipv4Src(frame, l3),
          message: {
            type: IcmpType.EchoReply,
            identifier: echo.identifier,
            sequence: echo.sequence,
            data: frame.subarray(echo.dataOffset, echo.dataOffset + echo.dataLength),
          },
        }),
      );
    }
  }

  fire(timer: number, now: Nanoseconds): void {
    if (timer !== T_UDP || this.stream === null) return;
    const s = this.stream;
    // Catch up if running late, but never more than a few datagrams at once.
    for (let n = 0; s.next <= now && n < 16; n++) {
      if (s.next >= s.until) {
        this.stream = null;
        return;
      }
      this.sendUdp(s);
      s.next += s.intervalNs;
    }
    this.env.arm(T_UDP, Math.max(Math.ceil(s.next), now + 1));
  }

  private sendUdp(s: UdpStream): void {
    const frame = new Uint8Array(Math.max(60, 14 + 20 + 8 + s.size));
    let at = serializeEthernet(
      { dst: this.cfg.gatewayMac, src: this.cfg.mac, etherType: EtherType.IPv4 },
      frame,
      0,
    );
    at = serializeIpv4(
      {
        src: this.cfg.ip,
        dst: s.dstIp,
        protocol: IpProtocol.UDP,
        payloadLength: 8 + s.size,
        dscp: s.dscp,
        ttl: 64,
        dontFragment: true,
      },
      frame,
      at,
    );
    const udp = at;
    at = serializeUdp({ srcPort: UDP_SRC_PORT, dstPort: s.dstPort, payloadLength: s.size }, frame, at);
    frame.fill(0x5a, at, at + s.size);
    const sum = udpChecksum(this.cfg.ip, s.dstIp, frame, udp, 8 + s.size);
    frame[udp + 6] = sum >>> 8;
    frame[udp + 7] = sum & 0xff;
    this.counters.udp_tx_packets++;
    this.counters.udp_tx_bytes += s.size;
    this.env.transmit(PORT, frame);
  }

  setLinkState(): void {}

  command(cmd: HostStackCommand, now: Nanoseconds): { ok: true } {
    if (cmd.type === "stop") {
      this.stream = null;
      this.env.disarm(T_UDP);
      return { ok: true };
    }
    const size = cmd.size ?? 1000;
    // Wire bytes of one datagram: payload + UDP 8 + IPv4 20 + Ethernet 14 + FCS 4 + preamble/IFG 20.
    const intervalNs = ((size + 66) * 8e9) / cmd.rateBps;
    this.stream = {
      dstIp: cmd.dstIp,
      dstPort: cmd.dstPort ?? UDP_DST_PORT,
      intervalNs,
      size,
      dscp: cmd.dscp ?? 0,
      until: cmd.durationNs === undefined ? Number.POSITIVE_INFINITY : now + cmd.durationNs,
      next: now,
    };
    this.env.arm(T_UDP, now);
    return { ok: true };
  }

  stats(now: Nanoseconds): DeviceStats {
    const counters: Counters = { ...this.counters };
    return { kind: "nic", name: `${this.name}-kernel`, now, counters, ports: [] };
  }
}
