// The load-time lint rules: each fires on the risky configuration it names and stays quiet on the defaults.
import t from "tap";
import { lintConfig, resolveConfig, Severity } from "../../src/lab/lint/lint.js";
import { NO_CHANGE } from "../../src/lab/settings-layers.js";
import { defaultTopology, loadTopology } from "../../src/lab/topology.js";

const ids = (f: readonly { id: string }[]) => [...new Set(f.map((x) => x.id))];
const on = (switches: object) => ({ ...NO_CHANGE, switches: [switches] });

t.test("the default fabric and the documented examples have no findings", (t) => {
  t.same(lintConfig(resolveConfig(defaultTopology())), []);
  t.same(lintConfig(resolveConfig(loadTopology("docs/examples/incast-3leaf.yaml"))), []);
  t.same(
    lintConfig(resolveConfig(defaultTopology(), NO_CHANGE, { dilation: 1000, cpus: 2 })),
    [],
    "fits 2 CPUs",
  );
  t.end();
});

t.test("pfc.xoff below ECN Kmax (the ghost-latency configuration) warns", (t) => {
  const f = lintConfig(resolveConfig(defaultTopology(), on({ pfc: { xoff: 80_000 } })));
  t.same(ids(f), ["pfc-xoff-below-kmax"]);
  t.equal(f.length, 4, "once per switch");
  t.equal(f[0]!.severity, Severity.Warning);
  t.match(f[0]!.message, /pfc\.xoff 80KB is below ECN Kmax 1\.5MB of queue 3/);
  t.ok(f[0]!.explanation.length > 0 && f[0]!.fix.length > 0, "explains and says how to fix");
  t.end();
});

t.test("buffer.headroom 0 or below the link's round trip warns", (t) => {
  for (const headroom of [0, 2000]) {
    const f = lintConfig(resolveConfig(defaultTopology(), on({ buffer: { headroom } })));
    t.same(ids(f), ["headroom-below-bdp"], `headroom ${headroom}`);
    t.match(f[0]!.fix, /"auto"/);
  }
  t.same(lintConfig(resolveConfig(defaultTopology(), on({ buffer: { headroom: 100_000 } }))), [], "enough");
  t.end();
});

t.test("a static pfc.xoff over the buffer is an error", (t) => {
  const f = lintConfig(resolveConfig(defaultTopology(), on({ pfc: { xoff: 64_000_000 } })));
  t.same(ids(f), ["pfc-xoff-over-buffer"]);
  t.equal(f[0]!.severity, Severity.Error);
  t.end();
});

t.test("a live lab too large for the machine at its dilation warns, with the dilation that fits", (t) => {
  const topo = loadTopology("docs/examples/incast-3leaf.yaml");
  const f = lintConfig(resolveConfig(topo, NO_CHANGE, { dilation: 1000, cpus: 2 }));
  t.same(ids(f), ["topology-too-large"]);
  const need = Number(/--dilation to (\d+)/.exec(f[0]!.fix)?.[1]);
  t.ok(need > 1000, `suggests dilation ${need}`);
  t.same(lintConfig(resolveConfig(topo, NO_CHANGE, { dilation: need, cpus: 2 })), [], "which fits");
  t.same(lintConfig(resolveConfig(topo)), [], "the simulator has no machine limit");
  t.end();
});
