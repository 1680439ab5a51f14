// Builds the default fabric (2 spines, 2 leaves, h1..h8, 100 Gb/s, 1 µs links) with a Nic per host, and
// connects long-running WRITE flows between hosts.

import { SimFabric } from "../../../src/lab/sim/sim-fabric.js";
import type { DcqcnParams } from "../../../src/nic/cc/dcqcn-params.js";
import { Nic } from "../../../src/nic/nic.js";
import { type NicConfigInit, nicConfig } from "../../../src/nic/resolve-config.js";
import { hostAddress } from "../../../src/scenario/address-plan.js";
import type { SwitchSettings } from "../../../src/scenario/schema.js";
import { NO_CHANGE, SettingsLayers } from "../../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../../src/scenario/topology.js";
import { must } from "./pair.js";

export interface FabricOptions {
  readonly dcqcn: DcqcnParams | null;
  readonly seed?: number;
  readonly nic?: Partial<NicConfigInit>;
  readonly switchSettings?: readonly SwitchSettings[];
}

export function nicFabric(opts: FabricOptions): { f: SimFabric; nic: (host: string) => Nic } {
  const topo = defaultTopology();
  const f = new SimFabric(
    topo,
    (host, address, link, env) =>
      new Nic(
        nicConfig({
          name: host,
          port: { mac: address.mac, ip: address.ip, rateBps: link.rateBps, delayNs: link.delayNs },
          gatewayMac: address.peerMac,
          mtu: topo.mtu,
          tunables: opts.dcqcn === null ? { cc: "none" } : { cc: "dcqcn", dcqcn: opts.dcqcn },
          ...opts.nic,
        }),
        env,
      ),
    {
      seed: opts.seed ?? 7,
      ...(opts.switchSettings
        ? { settings: new SettingsLayers(topo, { ...NO_CHANGE, switches: opts.switchSettings }) }
        : {}),
    },
  );
  return { f, nic: (host) => f.hosts.get(host) as Nic };
}

/** A WRITE flow from `from` to `to` on QP `qpn` (remote QPN qpn + 100), `bytes` long, posted at `at`. */
export function writeFlow(
  f: SimFabric,
  nic: (host: string) => Nic,
  from: string,
  to: string,
  qpn: number,
  bytes: number,
  at = 0,
): void {
  const src = hostAddress(f.plan, from);
  const dst = hostAddress(f.plan, to);
  must(nic(from), { type: "create-qp", qpn, remoteQpn: qpn + 100, remoteIp: dst.ip });
  must(nic(to), { type: "create-qp", qpn: qpn + 100, remoteQpn: qpn, remoteIp: src.ip });
  must(nic(from), { type: "post", qpn, op: "write", bytes, flowId: `${from}->${to}`, at });
}
