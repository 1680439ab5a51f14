// One frame of every kind the lab puts on a wire, built by the same wire builders the devices use and
// addressed from the default fabric's real address plan, each with what an outside decoder must read in
// it. `rocelab frames --pcap FILE` writes them as a capture; the tshark test holds Wireshark's reading of
// every frame against `expect`, and `checkCapture` must find them all clean.
//
// The story the frames tell: h1 (QP 0x000102) runs an RC connection to h5 (QP 0x000105) across
// leaf1 -> spine -> leaf2. h1's frames leave it addressed to its gateway port leaf1:eth3; h5's answers
// leave h5 addressed to leaf2:eth3. Switch-made frames (PFC, ARP replies, LLDP, ICMP) come from the port
// that sends them.

import { hostAddress, macFor, planAddresses, portKey } from "../lab/address-plan.js";
import { defaultTopology, nodeByName } from "../lab/topology.js";
import { ArpOp, buildArpFrame } from "../wire/arp.js";
import { type MacAddress, writeMac } from "../wire/bytes.js";
import { buildIcmpFrame, IcmpTimeExceededCode, IcmpType } from "../wire/icmp.js";
import { decrementIpv4Ttl, Ecn, setIpv4Ecn } from "../wire/ipv4.js";
import { buildLldpFrame, ChassisIdSubtype, PortIdSubtype } from "../wire/lldp.js";
import { buildPauseFrame, buildPfcFrame, type PfcQuanta } from "../wire/pfc.js";
import {
  type Aeth,
  AethSyndrome,
  buildCnpFrame,
  buildRoceV2Frame,
  CNP_DEFAULT_DSCP,
  Opcode,
  padCountFor,
  psnAdd,
  type Reth,
  type RoceTransportSpec,
  roceUdpSourcePort,
} from "../wire/roce.js";
import { buildRoceV1Frame } from "../wire/rocev1.js";
import { buildVxlanFrame, vxlanSourcePort } from "../wire/vxlan.js";
import type { FrameKind } from "./pcap-check.js";

/**
 * What an outside decoder must read in a catalog frame. Every field is optional except `kind` and
 * `protocols`: a field is present exactly when the frame has it. IPv4 fields describe the outermost IPv4
 * header (a VXLAN frame's outer header, an ICMP error's own header, not the one it quotes); BTH and AETH
 * fields describe the frame's only RoCE transport header (inside the tunnel for VXLAN).
 */
export interface FrameExpectation {
  /** How `checkCapture` counts the frame. */
  readonly kind: FrameKind;
  /**
   * Wireshark protocol names (as in `frame.protocols`) the frame must show, in order, outermost first;
   * the last one is the protocol the frame exists to carry.
   */
  readonly protocols: readonly string[];
  readonly vlanPcp?: number;
  readonly vlanVid?: number;
  readonly dscp?: number;
  readonly ecn?: Ecn;
  readonly ttl?: number;
  readonly opcode?: number;
  readonly destQp?: number;
  readonly psn?: number;
  readonly ackReq?: boolean;
  readonly padCount?: number;
  readonly pkey?: number;
  /** BTH BECN; Wireshark 4.0 has no field for it (it shows BTH byte 4 as `infiniband.reserved`). */
  readonly becn?: boolean;
  readonly syndrome?: number;
  readonly msn?: number;
  readonly rkey?: number;
  readonly dmaLength?: number;
  readonly immDt?: number;
  /** Payload bytes, pad excluded. */
  readonly payloadLength?: number;
  /** PFC class-enable bits for priorities 0..7. */
  readonly pfcEnable?: readonly boolean[];
  /** PFC pause times for priorities 0..7, in quanta (what the frame carries, enabled or not). */
  readonly pfcPauseTimes?: readonly number[];
  /** 802.3x PAUSE time in quanta. */
  readonly pauseTime?: number;
  readonly vni?: number;
  readonly arpOpcode?: number;
  readonly icmpType?: number;
  readonly icmpCode?: number;
  readonly lldpTtl?: number;
  readonly lldpSystemName?: string;
  readonly lldpPortId?: string;
}

export interface CatalogFrame {
  /** Short kebab-case name, unique in the catalog. */
  readonly name: string;
  /** One sentence: who sends it to whom and why. */
  readonly description: string;
  /** The frame as captured on the link it is sent on (no FCS). */
  readonly frame: Uint8Array;
  readonly expect: FrameExpectation;
}

/** h1's and h5's queue pairs of the connection the catalog's RoCE frames belong to. */
export const CATALOG_QPN_H1 = 0x000102;
export const CATALOG_QPN_H5 = 0x000105;
/** Traffic class of the lossless RoCE data class: DSCP 26, mapped to priority 3, ECN-capable. */
const DATA_DSCP = 26;
const DATA_PRIORITY = 3;
/** DSCP the switches give the packets they originate (network control). */
const SWITCH_DSCP = 48;
const VXLAN_VNI = 5001;
/** h1's first PSN on the connection; PSNs start at a random 24-bit value. */
const FIRST_PSN = 0x3e8a51;
const RKEY_H5 = 0x0001_2a07;
const BUFFER_H5 = 0x7f3a_2c40_0000n;

/**
 * Payload bytes: a position-derived pattern, not text. Wireshark runs heuristic dissectors over RoCE
 * payloads, and RPC-over-RDMA claims some SEND payloads (ASCII "hello\0\0\0" already decodes as a
 * malformed RPC-over-RDMA header in tshark 4.0). Here byte i is 0xa0 + (i + 11 × seed) mod 37: every byte
 * has its top bit set, so every 32-bit word, at any alignment, is at least 0x80000000 and none reads as
 * the version, length or small type code an RDMA upper-layer protocol header (RPC-over-RDMA, iSER,
 * NVMe-oF, SMB Direct, SMC-R, LNet) starts with. The tshark test checks the payloads decode as plain data
 * with RPC-over-RDMA enabled too. `seed` shifts the phase so that consecutive packets differ.
 */
export function catalogPayload(length: number, seed = 0): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = 0xa0 + ((i + 11 * seed) % 37);
  return out;
}

/** The IPv6 link-local GID RoCE derives from a MAC (modified EUI-64: ff:fe in the middle, U/L bit flipped). */
function linkLocalGid(mac: MacAddress): Uint8Array {
  const m = new Uint8Array(6);
  writeMac(m, 0, mac);
  const gid = new Uint8Array(16);
  gid[0] = 0xfe;
  gid[1] = 0x80;
  gid.set([m[0]! ^ 0x02, m[1]!, m[2]!, 0xff, 0xfe, m[3]!, m[4]!, m[5]!], 8);
  return gid;
}

/** Wireshark's protocol names for the stacks the catalog uses. */
const ROCE_V2 = ["eth", "ip", "udp", "infiniband"] as const;

/** Builds the catalog: every frame kind once, from the default topology's address plan. */
export function buildFrameCatalog(): CatalogFrame[] {
  const topo = defaultTopology();
  const plan = planAddresses(topo);
  const mtu = topo.mtu;
  const h1 = hostAddress(plan, "h1");
  const h5 = hostAddress(plan, "h5");
  const port = (node: string, n: number) => {
    const p = plan.ports.get(portKey(node, n));
    if (!p) throw new Error(`default topology has no port ${node}:eth${n}`);
    return p;
  };
  const leaf1ToH1 = port("leaf1", 3);
  const leaf1Up = port("leaf1", 1);
  const spine1Down = port("spine1", 1);
  const leaf2Up = port("leaf2", 1);
  const leaf2ToH5 = port("leaf2", 3);
  const leaf1 = nodeByName(topo, "leaf1")!;

  // The UDP source port is a function of both QPNs, symmetric, so both directions share it.
  const sport = roceUdpSourcePort(CATALOG_QPN_H1, CATALOG_QPN_H5);
  const out: CatalogFrame[] = [];
  let idH1 = 0x1c40;
  let idH5 = 0x5a02;

  /** A RoCEv2 frame h1 sends to h5 (requests), or h5 to h1 (responses). */
  const roce = (from: "h1" | "h5", t: RoceTransportSpec, extra: { vlan?: boolean } = {}) => {
    const fromH1 = from === "h1";
    const self = fromH1 ? h1 : h5;
    const peer = fromH1 ? h5 : h1;
    return buildRoceV2Frame({
      ...t,
      srcMac: self.mac,
      dstMac: self.peerMac,
      vlan: extra.vlan ? { pcp: DATA_PRIORITY, dei: false, vid: 100 } : null,
      srcIp: self.ip,
      dstIp: peer.ip,
      dscp: DATA_DSCP,
      ecn: Ecn.Ect0,
      ttl: 64,
      identification: fromH1 ? idH1++ : idH5++,
      udpSrcPort: sport,
    });
  };
  const data = (
    name: string,
    description: string,
    from: "h1" | "h5",
    t: RoceTransportSpec,
    kind: FrameKind = "roce-data",
  ) => {
    const payloadLength = t.payload?.length ?? 0;
    out.push({
      name,
      description,
      frame: roce(from, t),
      expect: {
        kind,
        protocols: ROCE_V2,
        dscp: DATA_DSCP,
        ecn: Ecn.Ect0,
        ttl: 64,
        opcode: t.opcode,
        destQp: t.destQp,
        psn: t.psn,
        ackReq: t.ackReq ?? false,
        padCount: padCountFor(payloadLength),
        pkey: 0xffff,
        becn: false,
        payloadLength,
        ...(t.aeth ? { syndrome: t.aeth.syndrome, msn: t.aeth.msn } : {}),
        ...(t.reth ? { rkey: t.reth.rkey, dmaLength: t.reth.dmaLength } : {}),
        ...(t.immDt !== undefined && t.immDt !== null ? { immDt: t.immDt } : {}),
      },
    });
  };

  let psn = FIRST_PSN;
  const next = () => {
    const p = psn;
    psn = psnAdd(psn, 1);
    return p;
  };
  const toH5 = CATALOG_QPN_H5;
  const toH1 = CATALOG_QPN_H1;

  // SEND: a three-packet message (2 × MTU + 1001 bytes: the last packet needs 3 pad bytes), then the
  // other SEND opcodes. AckReq on each message's last packet, as NICs ask for an ACK per message.
  data("send-first", "RC SEND FIRST, h1 -> h5, a full MTU of a 3-packet message", "h1", {
    opcode: Opcode.SendFirst,
    destQp: toH5,
    psn: next(),
    payload: catalogPayload(mtu, 0),
  });
  data("send-middle", "RC SEND MIDDLE, h1 -> h5, the second MTU", "h1", {
    opcode: Opcode.SendMiddle,
    destQp: toH5,
    psn: next(),
    payload: catalogPayload(mtu, 1),
  });
  data("send-last", "RC SEND LAST, h1 -> h5, 1001 bytes (PadCnt 3), AckReq", "h1", {
    opcode: Opcode.SendLast,
    destQp: toH5,
    psn: next(),
    ackReq: true,
    payload: catalogPayload(1001, 0),
  });
  data(
    "send-last-imm",
    "RC SEND LAST WITH IMMEDIATE, h1 -> h5, ends a message with 32 bits of immediate data",
    "h1",
    {
      opcode: Opcode.SendLastWithImmediate,
      destQp: toH5,
      psn: next(),
      ackReq: true,
      immDt: 0x0000_2a01,
      payload: catalogPayload(512, 1),
    },
  );
  data("send-only", "RC SEND ONLY, h1 -> h5, a 256-byte message in one packet", "h1", {
    opcode: Opcode.SendOnly,
    destQp: toH5,
    psn: next(),
    ackReq: true,
    payload: catalogPayload(256, 0),
  });
  data("send-only-imm", "RC SEND ONLY WITH IMMEDIATE, h1 -> h5, solicited event set", "h1", {
    opcode: Opcode.SendOnlyWithImmediate,
    destQp: toH5,
    psn: next(),
    ackReq: true,
    se: true,
    immDt: 0x0000_2a02,
    payload: catalogPayload(64, 1),
  });
  data("send-only-padded", "RC SEND ONLY, h1 -> h5, 13 bytes: PadCnt 3 brings it to 16", "h1", {
    opcode: Opcode.SendOnly,
    destQp: toH5,
    psn: next(),
    ackReq: true,
    payload: catalogPayload(13, 0),
  });

  // RDMA WRITE: a three-packet write (RETH on the first only), then the single-packet forms.
  const write3: Reth = { va: BUFFER_H5, rkey: RKEY_H5, dmaLength: 2 * mtu + 514 };
  data("write-first", "RC RDMA WRITE FIRST, h1 -> h5, RETH for a 2 × MTU + 514-byte write", "h1", {
    opcode: Opcode.RdmaWriteFirst,
    destQp: toH5,
    psn: next(),
    reth: write3,
    payload: catalogPayload(mtu, 0),
  });
  data("write-middle", "RC RDMA WRITE MIDDLE, h1 -> h5", "h1", {
    opcode: Opcode.RdmaWriteMiddle,
    destQp: toH5,
    psn: next(),
    payload: catalogPayload(mtu, 1),
  });
  data("write-last", "RC RDMA WRITE LAST, h1 -> h5, 514 bytes (PadCnt 2), AckReq", "h1", {
    opcode: Opcode.RdmaWriteLast,
    destQp: toH5,
    psn: next(),
    ackReq: true,
    payload: catalogPayload(514, 0),
  });
  data(
    "write-last-imm",
    "RC RDMA WRITE LAST WITH IMMEDIATE, h1 -> h5, ends a write that also completes a receive",
    "h1",
    {
      opcode: Opcode.RdmaWriteLastWithImmediate,
      destQp: toH5,
      psn: next(),
      ackReq: true,
      immDt: 0x0000_2a03,
      payload: catalogPayload(1024, 1),
    },
  );
  const writeOnlyReth: Reth = { va: BUFFER_H5 + 0x10_0000n, rkey: RKEY_H5, dmaLength: 1024 };
  data("write-only", "RC RDMA WRITE ONLY, h1 -> h5, 1024 bytes", "h1", {
    opcode: Opcode.RdmaWriteOnly,
    destQp: toH5,
    psn: next(),
    ackReq: true,
    reth: writeOnlyReth,
    payload: catalogPayload(1024, 0),
  });
  data("write-only-imm", "RC RDMA WRITE ONLY WITH IMMEDIATE, h1 -> h5, 128 bytes", "h1", {
    opcode: Opcode.RdmaWriteOnlyWithImmediate,
    destQp: toH5,
    psn: next(),
    ackReq: true,
    reth: { va: BUFFER_H5 + 0x20_0000n, rkey: RKEY_H5, dmaLength: 128 },
    immDt: 0x0000_2a04,
    payload: catalogPayload(128, 1),
  });

  // RDMA READ: h1 asks for 2 × MTU + 255 bytes; the request takes three PSNs, one per response packet,
  // and h5's responses carry them. Then a one-packet read.
  const readPsn = psn;
  data("read-request", "RC RDMA READ REQUEST, h1 -> h5, 2 × MTU + 255 bytes (3 response PSNs)", "h1", {
    opcode: Opcode.RdmaReadRequest,
    destQp: toH5,
    psn: readPsn,
    // As the NIC sends it: the responses acknowledge a READ, so the request asks for no ACK.
    ackReq: false,
    reth: { va: BUFFER_H5 + 0x30_0000n, rkey: RKEY_H5, dmaLength: 2 * mtu + 255 },
  });
  psn = psnAdd(psn, 3);
  // MSN: messages h5 has completed, the READ included: 5 SENDs, 4 WRITEs (a WRITE counts too), 1 READ.
  let msn = 10;
  const ackAeth = (m: number): Aeth => ({ syndrome: AethSyndrome.AckUnlimited, msn: m });
  data("read-response-first", "RC RDMA READ RESPONSE FIRST, h5 -> h1, AETH ACK", "h5", {
    opcode: Opcode.RdmaReadResponseFirst,
    destQp: toH1,
    psn: readPsn,
    aeth: ackAeth(msn),
    payload: catalogPayload(mtu, 0),
  });
  data("read-response-middle", "RC RDMA READ RESPONSE MIDDLE, h5 -> h1, no AETH", "h5", {
    opcode: Opcode.RdmaReadResponseMiddle,
    destQp: toH1,
    psn: psnAdd(readPsn, 1),
    payload: catalogPayload(mtu, 1),
  });
  data("read-response-last", "RC RDMA READ RESPONSE LAST, h5 -> h1, 255 bytes (PadCnt 1)", "h5", {
    opcode: Opcode.RdmaReadResponseLast,
    destQp: toH1,
    psn: psnAdd(readPsn, 2),
    aeth: ackAeth(msn),
    payload: catalogPayload(255, 0),
  });
  const readOnlyPsn = next();
  data("read-request-small", "RC RDMA READ REQUEST, h1 -> h5, 64 bytes (one response PSN)", "h1", {
    opcode: Opcode.RdmaReadRequest,
    destQp: toH5,
    psn: readOnlyPsn,
    ackReq: false,
    reth: { va: BUFFER_H5 + 0x40_0000n, rkey: RKEY_H5, dmaLength: 64 },
  });
  msn++;
  data("read-response-only", "RC RDMA READ RESPONSE ONLY, h5 -> h1, 64 bytes", "h5", {
    opcode: Opcode.RdmaReadResponseOnly,
    destQp: toH1,
    psn: readOnlyPsn,
    aeth: ackAeth(msn),
    payload: catalogPayload(64, 1),
  });

  // ACKNOWLEDGE (the NIC itself always sends credit field 0x1f, unlimited; the catalog shows the other
  // encodings a decoder must read): an ACK with a credit count (field value 8) for the last SEND, a NAK (PSN sequence error: h5
  // saw a PSN beyond the one it expected, so h1 must go back), and an RNR NAK (no receive posted).
  const ackedPsn = psnAdd(FIRST_PSN, 6);
  data(
    "ack",
    "RC ACKNOWLEDGE, h5 -> h1, ACK (credit field 8) for the padded SEND ONLY",
    "h5",
    {
      opcode: Opcode.Acknowledge,
      destQp: toH1,
      psn: ackedPsn,
      aeth: { syndrome: AethSyndrome.ack(8), msn: 5 },
    },
    "ack",
  );
  data(
    "nak-psn-sequence",
    "RC ACKNOWLEDGE, h5 -> h1, NAK PSN sequence error (0x60): resend from this PSN",
    "h5",
    {
      opcode: Opcode.Acknowledge,
      destQp: toH1,
      psn: psnAdd(FIRST_PSN, 7),
      aeth: { syndrome: AethSyndrome.NakPsnSequenceError, msn: 5 },
    },
    "nak",
  );
  data(
    "rnr-nak",
    "RC ACKNOWLEDGE, h5 -> h1, RNR NAK with timer code 14 (no receive WQE posted)",
    "h5",
    {
      opcode: Opcode.Acknowledge,
      destQp: toH1,
      psn: psnAdd(FIRST_PSN, 3),
      aeth: { syndrome: AethSyndrome.rnrNak(14), msn: 1 },
    },
    "nak",
  );

  // A data packet as it reaches h5 after a congested switch marked it: three routed hops took its TTL to
  // 61, leaf2 rewrote the MACs, a switch set CE in place with the IPv4 checksum updated incrementally.
  // The ICRC is untouched and still valid: it masks TOS and TTL.
  {
    const ceSpec: RoceTransportSpec = {
      opcode: Opcode.RdmaWriteOnly,
      destQp: toH5,
      psn: next(),
      ackReq: true,
      reth: { va: BUFFER_H5 + 0x50_0000n, rkey: RKEY_H5, dmaLength: 2048 },
      payload: catalogPayload(2048, 0),
    };
    const frame = roce("h1", ceSpec);
    const ip = 14;
    for (let hop = 0; hop < 3; hop++) decrementIpv4Ttl(frame, ip);
    setIpv4Ecn(frame, ip, Ecn.Ce);
    writeMac(frame, 0, h5.mac);
    writeMac(frame, 6, leaf2ToH5.mac);
    out.push({
      name: "write-only-ce",
      description: "RC RDMA WRITE ONLY as it reaches h5 from leaf2: ECN CE, TTL 61, ICRC unchanged",
      frame,
      expect: {
        kind: "roce-data",
        protocols: ROCE_V2,
        dscp: DATA_DSCP,
        ecn: Ecn.Ce,
        ttl: 61,
        opcode: ceSpec.opcode,
        destQp: toH5,
        psn: ceSpec.psn,
        ackReq: true,
        padCount: 0,
        pkey: 0xffff,
        becn: false,
        rkey: RKEY_H5,
        dmaLength: 2048,
        payloadLength: 2048,
      },
    });
  }

  // h5's answer to CE marks: a CNP to h1, addressed to h1's own QP (the sender that must slow down).
  out.push({
    name: "cnp",
    description: "RoCEv2 CNP, h5 -> h1: opcode 0x81, BECN, DestQP = h1's QP, DSCP 48",
    frame: buildCnpFrame({
      srcMac: h5.mac,
      dstMac: h5.peerMac,
      srcIp: h5.ip,
      dstIp: h1.ip,
      udpSrcPort: sport,
      destQp: toH1,
      identification: idH5++,
    }),
    expect: {
      kind: "cnp",
      protocols: ROCE_V2,
      dscp: CNP_DEFAULT_DSCP,
      ecn: Ecn.NotEct,
      ttl: 64,
      opcode: Opcode.Cnp,
      destQp: toH1,
      psn: 0,
      ackReq: false,
      padCount: 0,
      pkey: 0xffff,
      becn: true,
    },
  });

  // PFC from leaf1's port facing h1: stop priority 3 for the longest time a frame can ask, then resume.
  const pfc = (name: string, description: string, quanta: number) => {
    const q: PfcQuanta = [null, null, null, quanta, null, null, null, null];
    out.push({
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
  out.push({
    name: "pause",
    description: "IEEE 802.3x PAUSE, h1 -> leaf1:eth3: the whole link for 4096 quanta (contrast with PFC)",
    frame: buildPauseFrame({ src: h1.mac, quanta: 4096 }),
    expect: { kind: "pause", protocols: ["eth", "macc"], pauseTime: 4096 },
  });

  // ARP: h1 resolves its gateway (leaf1:eth3), leaf1 answers.
  out.push({
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
  out.push({
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
  out.push({
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

  // VXLAN: a VTEP on leaf1 carries h1's WRITE ONLY to leaf2 over the leaf1 -> spine1 link. The outer
  // header copies the inner DSCP and ECN, so the underlay keeps the frame in the lossless class.
  {
    const innerSpec: RoceTransportSpec = {
      opcode: Opcode.RdmaWriteOnly,
      destQp: toH5,
      psn: next(),
      ackReq: true,
      reth: { va: BUFFER_H5 + 0x60_0000n, rkey: RKEY_H5, dmaLength: 512 },
      payload: catalogPayload(512, 1),
    };
    const inner = roce("h1", innerSpec);
    out.push({
      name: "vxlan-write-only",
      description:
        "VXLAN VNI 5001, leaf1 -> leaf2 VTEPs over leaf1:eth1 -> spine1, carrying h1's RDMA WRITE ONLY",
      frame: buildVxlanFrame({
        outerSrcMac: leaf1Up.mac,
        outerDstMac: leaf1Up.peerMac,
        outerSrcIp: leaf1Up.ip,
        outerDstIp: leaf2Up.ip,
        srcPort: vxlanSourcePort(inner),
        vni: VXLAN_VNI,
        inner,
      }),
      expect: {
        kind: "vxlan",
        protocols: ["eth", "ip", "udp", "vxlan", "eth", "ip", "udp", "infiniband"],
        dscp: DATA_DSCP,
        ecn: Ecn.Ect0,
        ttl: 64,
        vni: VXLAN_VNI,
        opcode: innerSpec.opcode,
        destQp: toH5,
        psn: innerSpec.psn,
        ackReq: true,
        padCount: 0,
        pkey: 0xffff,
        becn: false,
        rkey: RKEY_H5,
        dmaLength: 512,
        payloadLength: 512,
      },
    });
  }

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
      identification: idH1++,
      udpSrcPort: sport,
      opcode: Opcode.RdmaWriteOnly,
      destQp: toH5,
      psn: next(),
      ackReq: true,
      reth: { va: BUFFER_H5, rkey: RKEY_H5, dmaLength: 256 },
      payload: catalogPayload(256, 0),
    });
    out.push({
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
    out.push({
      name: "icmp-echo-request",
      description: "ICMP echo request, h1 -> its gateway leaf1:eth3 (ping)",
      frame: buildIcmpFrame({
        srcMac: h1.mac,
        dstMac: h1.peerMac,
        srcIp: h1.ip,
        dstIp: h1.peerIp,
        identification: idH1++,
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
    out.push({
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

  // RoCEv1: the same transport straight over Ethernet with a GRH, GIDs derived from the MACs. RoCEv1 is
  // not routable, so this is how the WRITE would look were h1 and h5 on one L2 segment.
  {
    const v1Psn = next();
    out.push({
      name: "rocev1-write-only",
      description: "RoCEv1 (EtherType 0x8915, GRH) RC RDMA WRITE ONLY, h1 -> h5 on one L2 segment",
      frame: buildRoceV1Frame({
        srcMac: h1.mac,
        dstMac: h5.mac,
        sgid: linkLocalGid(h1.mac),
        dgid: linkLocalGid(h5.mac),
        trafficClass: (DATA_DSCP << 2) | Ecn.Ect0,
        hopLimit: 64,
        opcode: Opcode.RdmaWriteOnly,
        destQp: toH5,
        psn: v1Psn,
        ackReq: true,
        reth: { va: BUFFER_H5 + 0x70_0000n, rkey: RKEY_H5, dmaLength: 256 },
        payload: catalogPayload(256, 0),
      }),
      expect: {
        kind: "roce-data",
        protocols: ["eth", "infiniband"],
        opcode: Opcode.RdmaWriteOnly,
        destQp: toH5,
        psn: v1Psn,
        ackReq: true,
        padCount: 0,
        pkey: 0xffff,
        becn: false,
        rkey: RKEY_H5,
        dmaLength: 256,
        payloadLength: 256,
      },
    });
  }

  // An 802.1Q-tagged RoCE frame: on a tagged link the PCP (3) carries the PFC priority.
  {
    const spec: RoceTransportSpec = {
      opcode: Opcode.RdmaWriteOnly,
      destQp: toH5,
      psn: next(),
      ackReq: true,
      reth: { va: BUFFER_H5 + 0x80_0000n, rkey: RKEY_H5, dmaLength: 256 },
      payload: catalogPayload(256, 1),
    };
    out.push({
      name: "vlan-write-only",
      description: "RC RDMA WRITE ONLY, h1 -> h5, 802.1Q-tagged PCP 3 VID 100",
      frame: roce("h1", spec, { vlan: true }),
      expect: {
        kind: "roce-data",
        protocols: ["eth", "vlan", "ip", "udp", "infiniband"],
        vlanPcp: DATA_PRIORITY,
        vlanVid: 100,
        dscp: DATA_DSCP,
        ecn: Ecn.Ect0,
        ttl: 64,
        opcode: spec.opcode,
        destQp: toH5,
        psn: spec.psn,
        ackReq: true,
        padCount: 0,
        pkey: 0xffff,
        becn: false,
        rkey: RKEY_H5,
        dmaLength: 256,
        payloadLength: 256,
      },
    });
  }

  return out;
}
