// The RoCE version a host speaks: v2 (IPv4/UDP 4791, the default) or v1 (EtherType 0x8915, GRH + BTH, in
// its leaf's bridge domain: transport/frames-v1.ts). v1 needs the host's layer-2 domain (the topology's
// `bridge`); without one the host stays on v2.

import { z } from "zod";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly roce: RoceVersion;
  }
}

export type RoceVersion = "v1" | "v2";

export const roceFeature = defineNicFeature({
  key: "roce",
  doc:
    "RoCE version: v2 (IPv4/UDP 4791, IBTA Annex A17) or v1 (EtherType 0x8915, IBTA Annex A16) in the " +
    "leaf's bridge domain.",
  settings: z.enum(["v1", "v2"]),
  resolve: (s): RoceVersion => s ?? "v2",
  check: (v, cfg) =>
    v === "v1" && cfg.rocev1 === null ? "RoCEv1 needs the NIC's layer-2 domain (rocev1)" : null,
});
