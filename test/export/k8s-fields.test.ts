// What the CRD's JSON Schema alone does not catch: a field the structural schema does not declare passes
// validation and is then dropped by the API server. Every field of the exported Topology is declared.
// Also: the names Kubernetes must hold, and the 1 MiB ConfigMap bound.
import t from "tap";
import { checkK8sNames, exportK8s } from "../../src/export/clabernetes.js";
import { exportContainerlab } from "../../src/export/containerlab.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { topologyCrdSchema, undeclaredFields } from "../helpers/crd-fields.js";
import { CLAB_OPTIONS, k8sExport, TOKEN } from "../helpers/k8s-export.js";

const schema = topologyCrdSchema();

t.test("every field of the exported Topology is one the CRD declares", async (t) => {
  for (const topo of [defaultTopology(), loadTopology("docs/examples/rocev1.yaml")]) {
    const { k8s } = k8sExport(topo);
    t.same(undeclaredFields(k8s.topology, schema), [], `${topo.name}: nothing the API server would drop`);
    t.match(k8s.topology, {
      apiVersion: "clabernetes.containerlab.dev/v1alpha1",
      kind: "Topology",
      metadata: { name: "h2dev", namespace: "rocelab" },
      spec: { naming: "prefixed", connectivity: "vxlan", expose: { disableAutoExpose: true } },
    });
  }
});

t.test("the field check finds a misspelt field, at any depth", async (t) => {
  const { k8s } = k8sExport(defaultTopology());
  const bad = structuredClone(k8s.topology) as { spec: Record<string, Record<string, unknown>> };
  bad.spec.exposee = {};
  bad.spec.expose!.exposeTyp = "ClusterIP";
  t.same(undeclaredFields(bad, schema).sort(), [".spec.expose.exposeTyp", ".spec.exposee"]);
  // Maps (filesFromConfigMap: node name -> mounts) take any key; their values are still checked.
  const mounts = (bad.spec.deployment!.filesFromConfigMap as Record<string, Record<string, unknown>[]>).h1!;
  mounts[0]!.fielPath = "x";
  t.same(undeclaredFields(bad, schema).sort(), [
    ".spec.deployment.filesFromConfigMap.h1[0].fielPath",
    ".spec.expose.exposeTyp",
    ".spec.exposee",
  ]);
});

t.test("Kubernetes names: lab and node names must make DNS labels clabernetes can use", async (t) => {
  t.doesNotThrow(() => checkK8sNames("fabric", ["leaf1", "h-1"], "default"));
  t.throws(() => checkK8sNames("fabric", ["Leaf1"], "default"), {
    message: /node Leaf1: .*lowercase letters/,
  });
  t.throws(() => checkK8sNames("fabric", ["h_1"], "default"), { message: /node h_1/ });
  t.throws(() => checkK8sNames("fabric", ["leaf1"], "Bad_NS"), { message: /--namespace: "Bad_NS"/ });
  t.throws(() => checkK8sNames("fabricfabric1234", [`n${"x".repeat(45)}`], "default"), {
    message: /service name .*-vx would exceed 63 characters/,
  });
  t.equal(k8sExport(defaultTopology()).k8s.configMaps.length, 12);
});

t.test("a node whose files outgrow a ConfigMap (1 MiB) is refused, saying so", async (t) => {
  const clab = exportContainerlab(defaultTopology(), CLAB_OPTIONS);
  const files = clab.files.map((f) =>
    f.path === "config/h1.json" ? { ...f, content: "x".repeat(1024 * 1024) } : f,
  );
  const o = { namespace: "default", expose: "ClusterIP", controlPort: 7700 } as const;
  t.throws(() => exportK8s(clab, [...files, { path: "config/token", content: TOKEN }], o), {
    message: /node h1: its files take \d+ bytes, more than a ConfigMap holds \(1 MiB\)/,
  });
  t.throws(() => exportK8s(clab, clab.files, o), {
    message: /spine1 binds config\/token, which the export has no file for/,
  });
});
