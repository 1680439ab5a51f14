// The machine guard of `up` and `run --runtime live`: a lab that needs more CPU (every link busy at the
// dilation) or memory than the machine has is refused with by how much and what to change.
import t from "tap";
import { BYTES_PER_PROCESS, machineFit } from "../../src/lint/machine-fit.js";
import { fatTreeTopology } from "../../src/scenario/fat-tree.js";
import { topologyFile } from "../../src/scenario/schema.js";
import { defaultTopology, resolveTopology } from "../../src/scenario/topology.js";

const GiB = 1024 ** 3;
const twoCores = { cpus: 2, availableBytes: 20 * GiB };

t.test("the default fabric fits two cores at D = 1000", (t) => {
  const fit = machineFit(defaultTopology(), 1000, false, twoCores);
  t.same(fit.problems, []);
  t.equal(fit.processes, 13, "12 devices and the supervisor");
  t.ok(fit.cores > 0.8 && fit.cores < 1, `${fit.cores.toFixed(2)} cores`);
  // docs/performance.md measured 326-328 MiB PSS for this lab.
  t.ok(Math.abs(fit.memoryBytes / 2 ** 20 - 327) < 20, `${(fit.memoryBytes / 2 ** 20).toFixed(0)} MiB`);
  t.end();
});

t.test("a k=8 fat tree (208 devices) is refused, saying by how much and what to change", (t) => {
  const topo = resolveTopology(topologyFile.parse(fatTreeTopology({ k: 8 })), "k8", null);
  const two = machineFit(topo, 1000, false, twoCores).problems;
  t.equal(two.length, 1);
  t.match(
    two[0]!,
    /^208 devices \(128 hosts\) and 384 links need about 25\.9 cores at dilation 1000 with every link busy, 13\.0× the 2 CPUs of this machine: use a smaller topology \(its processes alone need more CPU than the machine has\)$/,
  );
  const eight = { cpus: 8, availableBytes: 20 * GiB };
  const fit = machineFit(topo, 1000, false, eight);
  t.match(
    fit.problems[0]!,
    /3\.2× the 8 CPUs of this machine: raise --dilation to \d+ or more, or use a smaller topology$/,
  );
  const needD = Number(/--dilation to (\d+)/.exec(fit.problems[0]!)![1]);
  t.same(machineFit(topo, needD, false, eight).problems, [], `and at ${needD} it fits`);
  t.same(machineFit(topo, needD - 100, false, eight).problems.length, 1, "and not much below");
  t.same(machineFit(topo, 1000, true, eight).problems, [], "auto dilation: idle processes fit");
  const small = { cpus: 64, availableBytes: 2 * GiB };
  const mem = machineFit(topo, 1000, false, small).problems;
  t.equal(mem.length, 1);
  t.match(
    mem[0]!,
    /need about \d+\.\d GiB of memory \(209 processes × ~20 MiB, \d+\.\d GiB of port rings\), \d+\.\d× the 1\.6 GiB a lab may take of the 2\.0 GiB available/,
  );
  t.ok(fit.memoryBytes > 209 * BYTES_PER_PROCESS);
  t.end();
});
