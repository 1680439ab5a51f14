// How the NIC chooses the RoCEv2 UDP source port of a QP, the only field of the 5-tuple that differs
// between QPs of one host pair (IBTA Annex A17 leaves it to the implementation, for ECMP entropy):
//   per-qp  (default) a hash of the QP numbers, as the Linux kernel derives it from the flow label
//           (rdma_get_udp_sport, wire/roce-frame.ts roceUdpSourcePort): every QP its own port;
//   fixed   one port for every QP, as drivers and NICs without per-QP entropy do (e.g. a configured
//           constant): QPs of one host pair are then one 5-tuple, and only Dest-QP hashing (the switch's
//           UDF on the BTH destination QP) can spread them;
//   range   the per-QP hash folded into [min, max], as NICs that take a configured port range do.
// A create-qp command that names its own port (set-source-port, path navigation) still wins.

import { z } from "zod";
import { roceUdpSourcePort } from "../../wire/roce-frame.js";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly sourcePort: SourcePortConfig;
  }
}

export type SourcePortConfig =
  | { readonly mode: "per-qp" }
  | { readonly mode: "fixed"; readonly port: number }
  | { readonly mode: "range"; readonly min: number; readonly max: number };

const port = z.number().int().min(1).max(0xffff);

/** The RoCEv2 UDP port the IANA assigned (4791) is the destination; a common fixed source port. */
const DEFAULT_FIXED_PORT = 0xc000;

export const sourcePortFeature = defineNicFeature({
  key: "sourcePort",
  doc:
    "RoCEv2 UDP source port per QP: per-qp (a hash of the QP numbers, as the Linux kernel; default), " +
    "fixed (one port for all QPs, as NICs without per-QP entropy) or range (the per-QP hash folded into " +
    "min..max).",
  settings: z
    .object({
      mode: z.enum(["per-qp", "fixed", "range"]).optional(),
      port: port.optional(),
      min: port.optional(),
      max: port.optional(),
    })
    .strict(),
  resolve: (s): SourcePortConfig => {
    const mode = s?.mode ?? "per-qp";
    if (mode === "fixed") return { mode, port: s?.port ?? DEFAULT_FIXED_PORT };
    if (mode === "range") return { mode, min: s?.min ?? 0xc000, max: s?.max ?? 0xffff };
    return { mode };
  },
  check: (c) =>
    c.mode === "range" && c.min > c.max ? `sourcePort.min ${c.min} is above sourcePort.max ${c.max}` : null,
});

/** The UDP source port of a new QP under `c`. */
export function sourcePortFor(c: SourcePortConfig, localQpn: number, remoteQpn: number): number {
  const hashed = roceUdpSourcePort(localQpn, remoteQpn);
  if (c.mode === "fixed") return c.port;
  if (c.mode === "range") return c.min + (hashed % (c.max - c.min + 1));
  return hashed;
}
