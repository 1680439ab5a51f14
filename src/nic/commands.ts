// The NIC's control plane: the commands a runtime or the lab sends it, and the checks that turn a
// command into what the NIC applies (a QP's parameters, the next configuration).

import type { Nanoseconds } from "../device/contract.js";
import type { Ipv4Address } from "../wire/bytes.js";
import { PSN_MASK } from "../wire/roce.js";
import type { NicConfig } from "./config.js";
import { applyNicSettings, type NicSettingsUpdate } from "./features/registry.js";
import { type SourcePortConfig, sourcePortFor } from "./features/source-port.js";
import { type QpTransportLayer, qpTransportSettings } from "./features/transport.js";
import { checkNicConfig } from "./resolve-config.js";
import type { QpInit } from "./transport/qp.js";
import type { MsgOpName } from "./transport/transport.js";

export type NicCommand =
  /** Create an RC QP connected to `remoteQpn` at `remoteIp`. */
  | {
      readonly type: "create-qp";
      readonly qpn: number;
      readonly remoteQpn: number;
      readonly remoteIp: Ipv4Address;
      /** Default roceUdpSourcePort(qpn, remoteQpn), in 0xC000–0xFFFF. */
      readonly udpSrcPort?: number;
      /** Our first send PSN (default 0). */
      readonly startPsn?: number;
      /** The peer's first send PSN, which our responder expects (default 0). */
      readonly remoteStartPsn?: number;
      /** QP attributes of its own over the host's transport settings (a workload's `transport`). */
      readonly transport?: QpTransportLayer;
      /** The QP of this NIC it replaces after an error (an application reconnecting): counted, reported. */
      readonly replaces?: number;
      /** Connect on the wire with RDMA CM (cm-agent.ts) as this side; absent: connected at creation. */
      readonly cm?: "active" | "passive";
    }
  /** Post a work request; `at` in the future schedules it (the NIC arms its own timer). */
  | {
      readonly type: "post";
      readonly qpn: number;
      readonly op: MsgOpName;
      readonly bytes: number;
      readonly flowId: string;
      readonly at?: Nanoseconds;
    }
  /**
   * Change run-time settings: sections of the feature modules as users write them (features/registry.ts;
   * null: back to the section's defaults), resolved by the NIC against its port. A `cc` or `dcqcn` section
   * restarts every QP's congestion control at line rate.
   */
  | { readonly type: "configure"; readonly settings: NicSettingsUpdate }
  /**
   * Change the UDP source port a QP's packets carry from its next packet on (what a CCL asks of the NIC
   * to steer a QP onto another ECMP path: path navigation's host mode).
   */
  | { readonly type: "set-source-port"; readonly qpn: number; readonly udpSrcPort: number }
  /**
   * Stop every work request: scheduled posts are cancelled, and every QP with requests outstanding goes to
   * the error state, its requests completing as `stopped` (`dropped` in the reply: how many).
   */
  | { readonly type: "stop" }
  | { readonly type: "clear-counters" }
  /** Failure injection: keep the link partner paused on `priority` (null stops), pfc-storm.ts. */
  | { readonly type: "pfc-storm"; readonly priority: number | null; readonly intervalNs?: Nanoseconds };

export type NicReply =
  | { readonly ok: true; readonly udpSrcPort?: number; readonly dropped?: number }
  | { readonly ok: false; readonly error: string };

export type CreateQp = Extract<NicCommand, { type: "create-qp" }>;
export type Configure = Extract<NicCommand, { type: "configure" }>;

export function fail(error: string): NicReply {
  return { ok: false, error };
}

/** The QP that `cmd` asks for, in the next slot of `existing` (at most `limit` QPs), or why not. */
export function qpInit(
  cmd: CreateQp,
  existing: ReadonlyMap<number, unknown>,
  limit: number,
  sourcePort: SourcePortConfig = { mode: "per-qp" },
): QpInit | string {
  const isQpn = (n: number) => Number.isInteger(n) && n > 0 && n <= 0xff_ffff;
  const isPsn = (n: number) => Number.isInteger(n) && n >= 0 && n <= PSN_MASK;
  if (!isQpn(cmd.qpn) || !isQpn(cmd.remoteQpn)) return "QP numbers must be integers in 1..2^24-1";
  if (existing.has(cmd.qpn)) return `QP ${cmd.qpn} already exists`;
  if (existing.size >= limit) return "too many QPs";
  if (!Number.isInteger(cmd.remoteIp) || cmd.remoteIp < 0 || cmd.remoteIp > 0xffff_ffff) {
    return "remoteIp must be an IPv4 address as a number";
  }
  const udpSrcPort = cmd.udpSrcPort ?? sourcePortFor(sourcePort, cmd.qpn, cmd.remoteQpn);
  if (!Number.isInteger(udpSrcPort) || udpSrcPort < 1 || udpSrcPort > 0xffff) {
    return `UDP source port ${udpSrcPort} is not in 1..65535`;
  }
  const startPsn = cmd.startPsn ?? 0;
  const remoteStartPsn = cmd.remoteStartPsn ?? 0;
  if (!isPsn(startPsn) || !isPsn(remoteStartPsn)) return "PSNs are integers in 0..2^24-1";
  if (cmd.replaces !== undefined && !isQpn(cmd.replaces)) return "replaces: a QP number in 1..2^24-1";
  if (cmd.transport !== undefined) {
    const t = qpTransportSettings.safeParse(cmd.transport);
    if (!t.success) {
      const i = t.error.issues[0]!;
      return `transport.${i.path.join(".")}: ${i.message}`;
    }
  }
  return {
    slot: existing.size,
    qpn: cmd.qpn,
    remoteQpn: cmd.remoteQpn,
    remoteIp: cmd.remoteIp >>> 0,
    udpSrcPort,
    startPsn,
    remoteStartPsn,
  };
}

/** The configuration after `cmd`, or why it is refused. */
export function nextConfig(c: NicConfig, cmd: Configure): NicConfig | string {
  const next = applyNicSettings(c, cmd.settings);
  return checkNicConfig(next) ?? next;
}
