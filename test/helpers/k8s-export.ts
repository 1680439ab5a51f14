// The k8s export of a topology as the tests look at it: built as `rocelab export k8s` builds it.

import { exportK8s, type K8sOptions } from "../../src/export/clabernetes.js";
import { type ContainerlabOptions, exportContainerlab } from "../../src/export/containerlab.js";
import type { Topology } from "../../src/scenario/topology.js";

export const CLAB_OPTIONS: ContainerlabOptions = {
  lab: "h2dev",
  image: "rocelab-device:latest",
  machines: [],
  mgmtSubnet: "172.20.30.0/24",
  controlPort: 7700,
  vniBase: 1,
  underlayMtu: 1450,
  underlayLatencyNs: 100_000,
  dilation: 1000,
  seed: 1,
  tunnelAll: true,
};

export const TOKEN = `${"ab".repeat(32)}\n`;

export function k8sExport(topo: Topology, o: Partial<K8sOptions> = {}, lab = "h2dev") {
  const clab = exportContainerlab(topo, { ...CLAB_OPTIONS, lab });
  const k8s = exportK8s(clab, [...clab.files, { path: "config/token", content: TOKEN }], {
    namespace: "rocelab",
    expose: "ClusterIP",
    controlPort: 7700,
    ...o,
  });
  return { clab, k8s };
}
