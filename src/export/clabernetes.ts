// `rocelab export k8s`: the fabric for Kubernetes through clabernetes (https://containerlab.dev/manual/
// clabernetes/), as its converter clabverter lays a containerlab lab out: one ConfigMap per node holding
// the files the node's binds name, and a clabernetes `Topology` (clabernetes.containerlab.dev/v1alpha1)
// wrapping the containerlab definition, with `filesFromConfigMap` mounting each file in the node's launcher
// pod at the path its bind reads. clabernetes runs every node in a pod of its own and carries every link
// in a VXLAN tunnel between pods, so the underlay MTU budget applies to every link.

import type { ContainerlabExport, DeviceEndpoint, ExportFile } from "./containerlab.js";
import { ExportInputError } from "./placement.js";
import { yamlText } from "./yaml-text.js";

/** A DNS-1123 label (Kubernetes object names built from the lab and node names must be valid). */
const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** clabernetes names a node's services `<topology>-<node>` and `<topology>-<node>-vx` (DNS labels, ≤ 63). */
const MAX_SERVICE_NAME = 63 - "-vx".length;
/** A ConfigMap holds at most 1 MiB (etcd's object limit, as clabverter checks). */
const MAX_CONFIGMAP_BYTES = 1024 * 1024;

export const ExposeType = { ClusterIP: "ClusterIP", LoadBalancer: "LoadBalancer" } as const;
export type ExposeType = (typeof ExposeType)[keyof typeof ExposeType];

export interface K8sOptions {
  readonly namespace: string;
  readonly expose: ExposeType;
  readonly controlPort: number;
}

export interface K8sExport {
  /** The clabernetes Topology resource (what the CRD's schema checks). */
  readonly topology: Record<string, unknown>;
  readonly configMaps: readonly Record<string, unknown>[];
  /** Control endpoints: the per-node services clabernetes creates. */
  readonly endpoints: readonly DeviceEndpoint[];
}

/** Checks that Kubernetes can hold the names clabernetes derives from `lab` and every node. */
export function checkK8sNames(lab: string, nodes: readonly string[], namespace: string): void {
  if (!DNS_LABEL.test(namespace) || namespace.length > 63)
    throw new ExportInputError(
      `--namespace: "${namespace}" is not a Kubernetes namespace name (a DNS-1123 label)`,
    );
  for (const node of nodes) {
    if (!DNS_LABEL.test(node))
      throw new ExportInputError(
        `node ${node}: clabernetes names pods and services after nodes, so on Kubernetes a node name must be ` +
          "lowercase letters, digits and - (starting with a letter, not ending with -): rename it in the topology",
      );
    const service = `${lab}-${node}`;
    if (service.length > MAX_SERVICE_NAME)
      throw new ExportInputError(
        `node ${node}: clabernetes' service name ${service}-vx would exceed 63 characters: use a shorter --name`,
      );
  }
}

/**
 * The clabernetes resources for a one-machine containerlab export `clab` (its single topology), with the
 * control port exposed as each node's service.
 */
export function exportK8s(clab: ContainerlabExport, files: readonly ExportFile[], o: K8sOptions): K8sExport {
  const only = clab.topologies[0]!;
  const lab = only.definition.name as string;
  const topoNodes = (only.definition.topology as { nodes: Record<string, Record<string, unknown>> }).nodes;
  checkK8sNames(lab, Object.keys(topoNodes), o.namespace);
  const byPath = new Map(files.map((f) => [f.path, f.content]));
  const nodes: Record<string, Record<string, unknown>> = {};
  const configMaps: Record<string, unknown>[] = [];
  const filesFromConfigMap: Record<string, Record<string, string>[]> = {};
  for (const [name, node] of Object.entries(topoNodes)) {
    // The same node; its control port published in the launcher pod, so clabernetes' service reaches it.
    nodes[name] = { ...node, ports: [`${o.controlPort}:${o.controlPort}/tcp`] };
    const configMapName = `${lab}-${name}-files`;
    const data: Record<string, string> = {};
    const mounts: Record<string, string>[] = [];
    for (const bind of node.binds as string[]) {
      const source = bind.split(":")[0]!;
      const key = source.split("/").pop()!;
      const content = byPath.get(source);
      if (content === undefined)
        throw new Error(`export: ${name} binds ${source}, which the export has no file for`);
      data[key] = content;
      mounts.push({ filePath: source, configMapName, configMapPath: key, mode: "read" });
    }
    const bytes = Object.values(data).reduce((a, v) => a + Buffer.byteLength(v), 0);
    if (bytes > MAX_CONFIGMAP_BYTES)
      throw new ExportInputError(
        `node ${name}: its files take ${bytes} bytes, more than a ConfigMap holds (1 MiB)`,
      );
    configMaps.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: configMapName, namespace: o.namespace, labels: { "rocelab.lab": lab } },
      data,
    });
    filesFromConfigMap[name] = mounts;
  }
  const definition = { ...only.definition, topology: { ...(only.definition.topology as object), nodes } };
  const topology = {
    apiVersion: "clabernetes.containerlab.dev/v1alpha1",
    kind: "Topology",
    metadata: { name: lab, namespace: o.namespace, labels: { "rocelab.lab": lab } },
    spec: {
      connectivity: "vxlan",
      // Services are `<topology>-<node>` (the endpoints below count on it), whatever the global default.
      naming: "prefixed",
      definition: { containerlab: yamlText(definition) },
      deployment: { filesFromConfigMap },
      // Only the control port: nothing else in a device container listens.
      expose: { disableAutoExpose: true, exposeType: o.expose },
    },
  };
  const endpoints = clab.endpoints.map((e) => ({
    ...e,
    machine: "",
    control: `tcp://${lab}-${e.node}.${o.namespace}.svc.cluster.local:${o.controlPort}`,
  }));
  return { topology, configMaps, endpoints };
}
