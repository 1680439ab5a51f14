// Resolving a NIC's configuration: its place in the fabric plus the host settings, every section resolved
// by its feature module (features/registry.ts) and checked before a NIC runs with it.

import type { Nanoseconds } from "../device/contract.js";
import type { MacAddress } from "../wire/bytes.js";
import type { NicConfig, NicPortConfig, NicTunables, RoceV1Config } from "./config.js";
import { checkNicTunables, type NicSettings, resolveNicTunables } from "./features/registry.js";

/** What `nicConfig` needs: the port and gateway, and the host settings as users write them. */
export interface NicConfigInit {
  readonly name: string;
  readonly port: Omit<NicPortConfig, "delayNs"> & { readonly delayNs?: Nanoseconds };
  readonly gatewayMac: MacAddress;
  readonly mtu?: number;
  readonly answerArp?: boolean;
  readonly hostPort?: boolean;
  readonly rocev1?: RoceV1Config | null;
  /** The fabric's base RTT (scenario/fabric-rtt.ts), ns; 0 or absent: not known. */
  readonly fabricRttNs?: number;
  /** Host settings (features/registry.ts): every section a layer does not set takes its defaults. */
  readonly settings?: NicSettings;
  /** Resolved sections that replace what `settings` gives (code that holds resolved values: tests, tools). */
  readonly tunables?: Partial<NicTunables>;
}

/** RoCE path MTU, payload bytes. */
export const DEFAULT_MTU = 4096;

/** Resolves a NicConfig; throws RangeError on values no NIC can run with. */
export function nicConfig(init: NicConfigInit): NicConfig {
  const rateBps = init.port.rateBps;
  const cfg: NicConfig = {
    name: init.name,
    port: { mac: init.port.mac, ip: init.port.ip, rateBps, delayNs: init.port.delayNs ?? 0 },
    gatewayMac: init.gatewayMac,
    mtu: init.mtu ?? DEFAULT_MTU,
    answerArp: init.answerArp ?? true,
    hostPort: init.hostPort ?? false,
    rocev1: init.rocev1 ?? null,
    fabricRttNs: init.fabricRttNs ?? 0,
    ...resolveNicTunables(init.settings ?? {}, { rateBps, fabricRttNs: init.fabricRttNs ?? 0 }),
    ...init.tunables,
  };
  const why = checkNicConfig(cfg);
  if (why !== null) throw new RangeError(`NIC ${cfg.name}: ${why}`);
  return cfg;
}

/** What is wrong with a configuration, or null. */
export function checkNicConfig(c: NicConfig): string | null {
  if (!(c.port.rateBps > 0)) return `port rate ${c.port.rateBps} must be positive`;
  if (!Number.isInteger(c.mtu) || c.mtu < 8 || c.mtu > 9000)
    return `MTU ${c.mtu} is not an integer in 8..9000`;
  return checkNicTunables(c);
}
