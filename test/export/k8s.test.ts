// `rocelab export k8s`: the clabernetes Topology is valid against the CRD's openAPIV3Schema (vendored), the
// containerlab definition it wraps against containerlab's schema, and the ConfigMaps hold exactly the
// files the definition's binds read, mounted where they read them.
import t from "tap";
import { parse } from "yaml";
import { defaultTopology } from "../../src/scenario/topology.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { clabValidator, crdValidator, errorsOf } from "../helpers/export-schemas.js";
import { k8sExport, TOKEN } from "../helpers/k8s-export.js";

const crd = crdValidator();
const clab = clabValidator();

interface Spec {
  definition: { containerlab: string };
  deployment: {
    filesFromConfigMap: Record<string, { filePath: string; configMapName: string; configMapPath: string }[]>;
  };
  expose: { exposeType: string };
}

for (const file of ["default", "docs/examples/vxlan.yaml", "docs/examples/fat-tree-k8.yaml"]) {
  t.test(`${file}: the Topology and the definition it wraps are valid`, async (t) => {
    const topo = file === "default" ? defaultTopology() : loadTopology(file);
    const { k8s } = k8sExport(topo);
    t.ok(crd(k8s.topology), `valid against the CRD${crd.errors ? `\n${errorsOf(crd)}` : ""}`);
    const spec = k8s.topology.spec as Spec;
    const definition = parse(spec.definition.containerlab) as Record<string, unknown>;
    t.ok(clab(definition), `the containerlab definition is valid${clab.errors ? `\n${errorsOf(clab)}` : ""}`);
    t.equal(k8s.configMaps.length, topo.nodes.length, "a ConfigMap per node");
  });
}

t.test("the CRD check is not vacuous: broken resources fail it", async (t) => {
  const cases: [string, (r: Record<string, Record<string, unknown>>) => void][] = [
    ["an unknown service type", (r) => Object.assign(r.spec!.expose as object, { exposeType: "NodePort" })],
    ["an unknown connectivity", (r) => Object.assign(r.spec!, { connectivity: "gre" })],
    ["no definition", (r) => delete r.spec!.definition],
    [
      "a definition that is not text",
      (r) => Object.assign(r.spec!, { definition: { containerlab: { name: "x" } } }),
    ],
    [
      "a mount without its ConfigMap",
      (r) => {
        const mounts = (r.spec!.deployment as Spec["deployment"]).filesFromConfigMap;
        delete (mounts.h1![0] as Partial<Spec["deployment"]["filesFromConfigMap"][string][number]>)
          .configMapName;
      },
    ],
  ];
  for (const [what, breakIt] of cases) {
    const broken = structuredClone(k8sExport(defaultTopology()).k8s.topology) as Record<
      string,
      Record<string, unknown>
    >;
    breakIt(broken);
    t.notOk(crd(broken), `rejected: ${what}`);
  }
});

t.test("each bind of a node is a file of its ConfigMap, mounted at the path the bind reads", async (t) => {
  const { clab: out, k8s } = k8sExport(defaultTopology());
  const spec = k8s.topology.spec as Spec;
  const definition = parse(spec.definition.containerlab) as {
    topology: { nodes: Record<string, { binds: string[]; ports: string[] }> };
  };
  const contents = new Map([...out.files.map((f) => [f.path, f.content] as const), ["config/token", TOKEN]]);
  for (const [name, node] of Object.entries(definition.topology.nodes)) {
    const cm = k8s.configMaps.find((c) => (c.metadata as { name: string }).name === `h2dev-${name}-files`)!;
    t.ok(cm, `${name}: ConfigMap h2dev-${name}-files`);
    const data = cm.data as Record<string, string>;
    const mounts = spec.deployment.filesFromConfigMap[name]!;
    t.equal(mounts.length, node.binds.length);
    for (const bind of node.binds) {
      const source = bind.split(":")[0]!;
      const mount = mounts.find((m) => m.filePath === source)!;
      t.ok(mount, `${name}: ${source} is mounted`);
      t.equal(data[mount.configMapPath], contents.get(source), `${name}: ${source} holds the export's file`);
    }
    t.same(node.ports, ["7700:7700/tcp"], `${name}: the control port is published for its service`);
  }
  t.same(
    k8s.endpoints.slice(0, 1).map((e) => e.control),
    ["tcp://h2dev-spine1.rocelab.svc.cluster.local:7700"],
    "control endpoints are the nodes' services",
  );
  t.equal(spec.expose.exposeType, "ClusterIP");
});
