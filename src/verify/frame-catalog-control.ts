// The catalog's link and network control frames (frame-catalog.ts): PFC and 802.3x PAUSE, ARP, LLDP and
// ICMP, sent by the switch ports and hosts of the default fabric.

import { macFor } from "../scenario/address-plan.js";
import { ArpOp, buildArpFrame } from "../wire/arp.js";
import { buildIcmpFrame, IcmpTimeExceededCode, IcmpType } from "../wire/icmp.js";
import { Ecn } from "../wire/ipv4.js";
import { ChassisIdSubtype, PortIdSubtype } from "../wire/lldp.js";
import { buildLldpFrame } from "../wire/lldp-frame.js";
import { buildPauseFrame, buildPfcFrame, type PfcQuanta } from "../wire/pfc.js";
import { buildRoceV2Frame, Opcode } from "../wire/roce.js";
import {
  BUFFER_H5,
  CATALOG_QPN_H5,
  type CatalogBuilder,
  catalogPayload,
  DATA_DSCP,
  RKEY_H5,
  SWITCH_DSCP,
} from "./frame-catalog-builder.js";

/** Adds PFC XOFF and XON, an 802.3x PAUSE, an ARP request and reply, and an LLDP frame. */
export function addLinkControlFrames(c: CatalogBuilder): void {
  const { h1, leaf1, leaf1ToH1 } = c;

  // PFC from leaf1's port facing h1: stop priority 3 for the longest time a frame can ask, then resume.
  const pfc = (name: string, description: string, quanta: number) => {
    const q: PfcQuanta = [null, null, null, quanta, null, null, null, null];
    c.out.push({
      name,
      description,
      frame: buildPfcFrame({ src: leaf1ToH1.mac, quanta: q }),
      expect: {
        kind: quanta > 0 ? "pfc-xoff" : "pfc-xon",
        protocols: ["eth", "macc"],
        pfcEnable: [false, false, false, true, false, false, false, false],
        pfcPauseTimes: [0, 0, 0, quanta, 0, 0, 0, 0],
      },
    });
  };
  pfc("pfc-xoff-p3", "PFC XOFF, leaf1:eth3 -> h1: priority 3 paused for 65535 quanta", 0xffff);
  pfc("pfc-xon-p3", "PFC resume, leaf1:eth3 -> h1: priority 3 time 0 (XON)", 0);
  c.out.push({
    name: "pause",
    description: "IEEE 802.3x PAUSE, h1 -> leaf1:eth3: the whole link for 4096 quanta (contrast with PFC)",
    frame: buildPauseFrame({ src: h1.mac, quanta: 4096 }),
    expect: { kind: "pause", protocols: ["eth", "macc"], pauseTime: 4096 },
  });

  // ARP: h1 resolves its gateway (leaf1:eth3), leaf1 answers.
  c.out.push({
    name: "arp-request",
    description: "ARP request, h1 broadcasts: who has its gateway leaf1:eth3?",
    frame: buildArpFrame({
      op: ArpOp.Request,
      senderMac: h1.mac,
      senderIp: h1.ip,
      targetMac: 0,
      targetIp: h1.peerIp,
    }),
    expect: { kind: "arp", protocols: ["eth", "arp"], arpOpcode: ArpOp.Request },
  });
  c.out.push({
    name: "arp-reply",
    description: "ARP reply, leaf1:eth3 -> h1: the gateway's MAC",
    frame: buildArpFrame({
      op: ArpOp.Reply,
      senderMac: leaf1ToH1.mac,
      senderIp: leaf1ToH1.ip,
      targetMac: h1.mac,
      targetIp: h1.ip,
    }),
    expect: { kind: "arp", protocols: ["eth", "arp"], arpOpcode: ArpOp.Reply },
  });

  // LLDP from leaf1's port facing h1; the chassis MAC is the switch's port-0 MAC of the address plan.
  c.out.push({
    name: "lldp",
    description: "LLDP, leaf1:eth3: chassis MAC, port eth3, TTL 120, system name leaf1",
    frame: buildLldpFrame({
      src: leaf1ToH1.mac,
      chassisId: { subtype: ChassisIdSubtype.MacAddress, mac: macFor(leaf1.index, 0) },
      portId: { subtype: PortIdSubtype.InterfaceName, name: "eth3" },
      ttl: 120,
      portDescription: "to h1:eth1",
      systemName: "leaf1",
      systemDescription: "rocelab switch",
      managementAddress: leaf1ToH1.ip,
    }),
    expect: {
      kind: "lldp",
      protocols: ["eth", "lldp"],
      lldpTtl: 120,
      lldpSystemName: "leaf1",
      lldpPortId: "eth3",
    },
  });
}

/** Adds an ICMP time exceeded quoting an expired RoCE packet, and an ICMP echo request and reply. */
export function addIcmpFrames(c: CatalogBuilder): void {
  const { h1, h5, leaf1Up, spine1Down, leaf1ToH1, sport } = c;
  const toH5 = CATALOG_QPN_H5;

  // ICMP time exceeded: h1 sent a WRITE ONLY with TTL 2; leaf1 forwarded it with TTL 1; spine1 cannot, and
  // answers from the port it came in on (as Linux does with icmp_errors_use_inbound_ifaddr), quoting the
  // datagram as received: its IPv4 header and the UDP header.
  {
    const expired = buildRoceV2Frame({
      srcMac: leaf1Up.mac,
      dstMac: spine1Down.mac,
      srcIp: h1.ip,
      dstIp: h5.ip,
      dscp: DATA_DSCP,
      ecn: Ecn.Ect0,
      ttl: 1,
      identification: c.nextIdH1(),
      udpSrcPort: sport,
      opcode: Opcode.RdmaWriteOnly,
      destQp: toH5,
      psn: c.next(),
      ackReq: true,
      reth: { va: BUFFER_H5, rkey: RKEY_H5, dmaLength: 256 },
      payload: catalogPayload(256, 0),
    });
    c.out.push({
      name: "icmp-time-exceeded",
      description:
        "ICMP time exceeded, spine1:eth1 -> h1 (via leaf1): quotes h1's RoCE packet whose TTL ran out",
      frame: buildIcmpFrame({
        srcMac: spine1Down.mac,
        dstMac: spine1Down.peerMac,
        srcIp: spine1Down.ip,
        dstIp: h1.ip,
        dscp: SWITCH_DSCP,
        message: {
          type: IcmpType.TimeExceeded,
          code: IcmpTimeExceededCode.Ttl,
          original: expired.subarray(14),
        },
      }),
      expect: {
        kind: "icmp",
        protocols: ["eth", "ip", "icmp"],
        dscp: SWITCH_DSCP,
        ecn: Ecn.NotEct,
        ttl: 64,
        icmpType: IcmpType.TimeExceeded,
        icmpCode: IcmpTimeExceededCode.Ttl,
      },
    });
  }

  // ICMP echo: h1 pings its gateway with Linux ping's 56 bytes of data; leaf1 answers with DSCP 48.
  {
    const echoData = new Uint8Array(56);
    // Linux ping: an 8-byte timestamp, then 0x08, 0x09, ... (byte i holds i).
    echoData.set([0x67, 0x8f, 0x2c, 0x1e, 0x00, 0x00, 0x00, 0x00]);
    for (let i = 8; i < 56; i++) echoData[i] = i;
    const identifier = 0x4d2;
    c.out.push({
      name: "icmp-echo-request",
      description: "ICMP echo request, h1 -> its gateway leaf1:eth3 (ping)",
      frame: buildIcmpFrame({
        srcMac: h1.mac,
        dstMac: h1.peerMac,
        srcIp: h1.ip,
        dstIp: h1.peerIp,
        identification: c.nextIdH1(),
        dontFragment: true,
        message: { type: IcmpType.EchoRequest, identifier, sequence: 1, data: echoData },
      }),
      expect: {
        kind: "icmp",
        protocols: ["eth", "ip", "icmp"],
        dscp: 0,
        ecn: Ecn.NotEct,
        ttl: 64,
        icmpType: IcmpType.EchoRequest,
        icmpCode: 0,
      },
    });
    c.out.push({
      name: "icmp-echo-reply",
      description: "ICMP echo reply, leaf1:eth3 -> h1, DSCP 48",
      frame: buildIcmpFrame({
        srcMac: leaf1ToH1.mac,
        dstMac: h1.mac,
        srcIp: leaf1ToH1.ip,
        dstIp: h1.ip,
        dscp: SWITCH_DSCP,
        message: { type: IcmpType.EchoReply, identifier, sequence: 1, data: echoData },
      }),
      expect: {
        kind: "icmp",
        protocols: ["eth", "ip", "icmp"],
        dscp: SWITCH_DSCP,
        ecn: Ecn.NotEct,
        ttl: 64,
        icmpType: IcmpType.EchoReply,
        icmpCode: 0,
      },
    });
  }
}
