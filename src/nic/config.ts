// NIC configuration: every knob, its unit and its default. `nicConfig` turns what a caller gives (the
// address plan's port, a few overrides) into the fully resolved NicConfig a NIC runs with.

import type { BitsPerSecond, Nanoseconds } from "../device/contract.js";
import type { Ipv4Address, MacAddress } from "../wire/bytes.js";
import { DSCP_VALUES } from "../wire/ipv4.js";
import { PRIORITIES } from "../wire/pfc.js";
import { CNP_DEFAULT_DSCP } from "../wire/roce.js";
import type { CnpMode, DcqcnParams } from "./dcqcn-params.js";
import { NP_WHEN_RP_OFF } from "./dcqcn-params.js";

export interface NicPortConfig {
  readonly mac: MacAddress;
  readonly ip: Ipv4Address;
  readonly rateBps: BitsPerSecond;
  /** One-way propagation delay of the attached link (for display; the runtime applies it). */
  readonly delayNs: Nanoseconds;
}

/**
 * A receive buffer drained at the host's ingest rate (PCIe): when the host cannot keep up, the NIC pauses
 * its link partner with PFC on the data priority, as a ConnectX does when its receive buffer fills.
 */
/** Default receive buffer size: 2 MB (ConnectX-class NICs have a few MB of port buffer). */
export const DEFAULT_RX_BUFFER_BYTES = 2_000_000;

export interface RxBufferConfig {
  readonly enabled: boolean;
  /** Rate the host takes packets out of the buffer, bits/s (wire bytes of each frame). */
  readonly hostIngestRateBps: BitsPerSecond;
  /** Send XOFF when the buffer holds at least this many bytes. */
  readonly xoffBytes: number;
  /** Send XON when it has drained to this many bytes or fewer. */
  readonly xonBytes: number;
  /** Pause time of the XOFF frames, quanta (refreshed at half of it while still above XON). */
  readonly pauseQuanta: number;
  /**
   * What the buffer holds at most, bytes: a frame that does not fit is dropped and counted
   * (rx_discards_phy), as a real NIC's receive buffer of a few MB does when its partner ignores the pause.
   */
  readonly sizeBytes: number;
}

/** The notification point's CNP pacing. */
export interface NpSettings {
  readonly cnpIntervalNs: Nanoseconds;
  readonly cnpMode: CnpMode;
}

/** A fully resolved NIC configuration. */
export interface NicConfig {
  readonly name: string;
  readonly port: NicPortConfig;
  /** MAC every frame is sent to: the leaf port, or the peer NIC on a back-to-back link. */
  readonly gatewayMac: MacAddress;
  /** RoCE path MTU: payload bytes per packet. */
  readonly mtu: number;
  /** DSCP of data packets (requests and read responses); they are sent ECT(0). */
  readonly dataDscp: number;
  /** DSCP of ACK/NAK. Default: the data DSCP (ACKs share the data priority, as real NICs do). */
  readonly ackDscp: number;
  /** DSCP of CNPs (ConnectX cnp_dscp 48). */
  readonly cnpDscp: number;
  /** DSCP → 802.1p priority, 64 entries: which priority a received PFC frame stops. */
  readonly dscpToPriority: readonly number[];
  /** Answer ARP requests for our address (the simulator; in the live lab the host kernel answers). */
  readonly answerArp: boolean;
  /** Set AckReq on every Nth packet of a QP (and on the last packet of every message). */
  readonly ackReqEvery: number;
  /**
   * Retransmission timeout: no ACK progress for this long makes the requester resend from the oldest
   * unacknowledged PSN. 4 ms, not less: behind PFC a lossless queue can hold a whole shared buffer (32 MB
   * drains in 2.7 ms at 100 Gb/s) and pauses cascade hop by hop, so a packet may wait milliseconds without
   * being lost; a shorter timeout would resend what is only queued, and go-back-N would add the whole
   * window again to the congestion that delayed it. Loss recovery is the NAK's job; the timeout only covers
   * a lost tail (the last packet or its ACK) or a lost NAK.
   */
  readonly rtoNs: Nanoseconds;
  /** At most this many PSNs unacknowledged per QP. */
  readonly maxInflightPackets: number;
  /** Send one NAK per gap and stay silent until the expected PSN arrives (avoids NAK floods). */
  readonly nakRetryGuard: boolean;
  /** Check every received payload against the pattern (count payload_mismatch). */
  readonly verifyPayload: boolean;
  /**
   * Port 2 is the host's own IP stack (the live lab's kernel): everything on the wire that is not RoCE for
   * us goes up to it, and what it sends goes out on the wire between our own frames, as a real RDMA NIC
   * shares its port between the RDMA engine and the host's network driver.
   */
  readonly hostPort: boolean;
  /** DCQCN (NP and RP); null: RP off (line rate, CNPs counted rp_cnp_ignored), NP as `npWhenRpOff`. */
  readonly dcqcn: DcqcnParams | null;
  /** NP settings when `dcqcn` is null. */
  readonly npWhenRpOff: NpSettings;
  readonly rxBuffer: RxBufferConfig;
  /**
   * Out-of-order placement (for sprayed traffic): the responder keeps requests up to this many PSNs ahead
   * of the expected one and NAKs only beyond it (reorder-window.ts). 0: off, go-back-N.
   */
  readonly reorderWindow: number;
  /** The NIC's layer-2 domain for RoCEv1 (frames-v1.ts): its VLAN and peers; null: none known. */
  readonly rocev1: RoceV1Config | null;
  /** 1: speak RoCEv1 (EtherType 0x8915, GRH + BTH) in `rocev1`'s VLAN; 2: RoCEv2 (the default). */
  readonly roceVersion: 1 | 2;
}

/** What `nicConfig` needs: the port and gateway; everything else has a default. */
export interface NicConfigInit {
  readonly name: string;
  readonly port: Omit<NicPortConfig, "delayNs"> & { readonly delayNs?: Nanoseconds };
  readonly gatewayMac: MacAddress;
  readonly mtu?: number;
  readonly dataDscp?: number;
  readonly ackDscp?: number;
  readonly cnpDscp?: number;
  /** Entries to change in the default map (26 → 3, 48 → 6, else 0). */
  readonly dscpToPriority?: Readonly<Record<number, number>>;
  readonly answerArp?: boolean;
  readonly ackReqEvery?: number;
  readonly rtoNs?: Nanoseconds;
  readonly maxInflightPackets?: number;
  readonly nakRetryGuard?: boolean;
  readonly verifyPayload?: boolean;
  readonly hostPort?: boolean;
  readonly dcqcn?: DcqcnParams | null;
  readonly npWhenRpOff?: NpSettings;
  readonly rxBuffer?: Partial<RxBufferConfig>;
  readonly reorderWindow?: number;
  readonly rocev1?: RoceV1Config | null;
  readonly roceVersion?: 1 | 2;
}

/** RoCE path MTU, payload bytes. */
export const DEFAULT_MTU = 4096;
/** RoCE data DSCP (priority 3 in the default maps). */
export const DEFAULT_DATA_DSCP = 26;
/** AckReq on every 8th packet. */
export const DEFAULT_ACK_REQ_EVERY = 8;
/** Retransmission timeout, ns (see NicConfig.rtoNs for why 4 ms). */
export const DEFAULT_RTO_NS = 4_000_000;
/** Unacknowledged PSNs per QP. */
export const DEFAULT_MAX_INFLIGHT_PACKETS = 4096;

/** DSCP 26 → priority 3 (RoCE data), DSCP 48 → priority 6 (CNP), everything else → 0. */
export function defaultNicDscpMap(): number[] {
  const map = new Array<number>(DSCP_VALUES).fill(0);
  map[26] = 3;
  map[48] = 6;
  return map;
}

/** Resolves a NicConfig; throws RangeError on values no NIC can run with (a caller bug). */
export function nicConfig(init: NicConfigInit): NicConfig {
  const dscpToPriority = defaultNicDscpMap();
  for (const [dscp, prio] of Object.entries(init.dscpToPriority ?? {})) dscpToPriority[Number(dscp)] = prio;
  const dataDscp = init.dataDscp ?? DEFAULT_DATA_DSCP;
  const rateBps = init.port.rateBps;
  const cfg: NicConfig = {
    name: init.name,
    port: { mac: init.port.mac, ip: init.port.ip, rateBps, delayNs: init.port.delayNs ?? 0 },
    gatewayMac: init.gatewayMac,
    mtu: init.mtu ?? DEFAULT_MTU,
    dataDscp,
    ackDscp: init.ackDscp ?? dataDscp,
    cnpDscp: init.cnpDscp ?? CNP_DEFAULT_DSCP,
    dscpToPriority,
    answerArp: init.answerArp ?? true,
    ackReqEvery: init.ackReqEvery ?? DEFAULT_ACK_REQ_EVERY,
    rtoNs: init.rtoNs ?? DEFAULT_RTO_NS,
    maxInflightPackets: init.maxInflightPackets ?? DEFAULT_MAX_INFLIGHT_PACKETS,
    nakRetryGuard: init.nakRetryGuard ?? true,
    verifyPayload: init.verifyPayload ?? true,
    hostPort: init.hostPort ?? false,
    dcqcn: init.dcqcn === undefined ? null : init.dcqcn,
    npWhenRpOff: init.npWhenRpOff ?? NP_WHEN_RP_OFF,
    rxBuffer: {
      enabled: init.rxBuffer?.enabled ?? false,
      hostIngestRateBps: init.rxBuffer?.hostIngestRateBps ?? rateBps,
      xoffBytes: init.rxBuffer?.xoffBytes ?? 200_000,
      xonBytes: init.rxBuffer?.xonBytes ?? 100_000,
      pauseQuanta: init.rxBuffer?.pauseQuanta ?? 0xffff,
      sizeBytes: init.rxBuffer?.sizeBytes ?? DEFAULT_RX_BUFFER_BYTES,
    },
    reorderWindow: init.reorderWindow ?? 0,
    rocev1: init.rocev1 ?? null,
    roceVersion: init.roceVersion ?? 2,
  };
  checkNicConfig(cfg);
  return cfg;
}

function checkNicConfig(c: NicConfig): void {
  const bad = (what: string): never => {
    throw new RangeError(`NIC ${c.name}: ${what}`);
  };
  if (!(c.port.rateBps > 0)) bad(`port rate ${c.port.rateBps} must be positive`);
  if (!Number.isInteger(c.mtu) || c.mtu < 8 || c.mtu > 9000) bad(`MTU ${c.mtu} is not an integer in 8..9000`);
  for (const [name, dscp] of [
    ["dataDscp", c.dataDscp],
    ["ackDscp", c.ackDscp],
    ["cnpDscp", c.cnpDscp],
  ] as const) {
    if (!Number.isInteger(dscp) || dscp < 0 || dscp > 63) bad(`${name} ${dscp} is not in 0..63`);
  }
  if (c.dscpToPriority.length !== DSCP_VALUES || c.dscpToPriority.some((p) => !(p >= 0 && p < PRIORITIES))) {
    bad("dscpToPriority needs 64 priorities in 0..7");
  }
  if (!Number.isInteger(c.ackReqEvery) || c.ackReqEvery < 1) bad(`ackReqEvery ${c.ackReqEvery} must be >= 1`);
  if (!(c.rtoNs > 0)) bad(`rtoNs ${c.rtoNs} must be positive`);
  if (!Number.isInteger(c.maxInflightPackets) || c.maxInflightPackets < 1 || c.maxInflightPackets > 1 << 22) {
    bad(`maxInflightPackets ${c.maxInflightPackets} is not in 1..2^22`);
  }
  if (!Number.isInteger(c.reorderWindow) || c.reorderWindow < 0 || c.reorderWindow > 1 << 16) {
    bad(`reorderWindow ${c.reorderWindow} is not in 0..65536`);
  }
  if (c.roceVersion === 1 && c.rocev1 === null) bad("RoCEv1 needs the NIC's layer-2 domain (rocev1)");
  const rx = c.rxBuffer;
  if (rx.enabled && (!(rx.hostIngestRateBps > 0) || rx.xonBytes >= rx.xoffBytes || rx.xonBytes < 0)) {
    bad("rxBuffer needs a positive ingest rate and 0 <= xonBytes < xoffBytes");
  }
  if (rx.enabled && !(rx.sizeBytes > rx.xoffBytes)) {
    bad(`rxBuffer size ${rx.sizeBytes} bytes must be larger than its XOFF threshold ${rx.xoffBytes}`);
  }
}

/** The RoCEv1 side of a NIC: its VLAN and the hosts of its bridge domain. */
export interface RoceV1Config {
  /** VID of the frames (the bridge domain's), 1..4094. */
  readonly vlan: number;
  /** Hosts reachable at layer 2: their IP (the QP's peer address) and MAC. */
  readonly peers: readonly { readonly ip: Ipv4Address; readonly mac: MacAddress }[];
}
