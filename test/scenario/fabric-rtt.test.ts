// HPCC's base RTT from the topology (src/scenario/fabric-rtt.ts) as HPCC's ns-3 computes maxRtt
// (scratch/third.cc): per host pair, 2 × the links' delays plus one full packet's serialisation per link,
// the largest pair wins; hosts never forward; an explicit `hpcc.baseRtt` still wins.

import t from "tap";
import { fabricBaseRtt } from "../../src/scenario/fabric-rtt.js";
import { resolveLab } from "../../src/scenario/resolved-lab.js";
import { topologyFile } from "../../src/scenario/schema.js";
import { hostChange } from "../../src/scenario/settings-layers.js";
import { defaultTopology, resolveTopology } from "../../src/scenario/topology.js";

t.test("the default fabric: h1 to h5 over 4 links of 1 µs and 100 Gb/s, 4096-byte packets", async (t) => {
  // 2 · 4 · 1000 + 4 · ⌊4096 · 8 / 100⌋ = 8000 + 4 · 327.
  t.equal(fabricBaseRtt(defaultTopology()), 9308);
});

t.test("the slowest pair wins; links and delays per hop; a host is no transit", async (t) => {
  const topo = resolveTopology(
    topologyFile.parse({
      defaults: { mtu: 1024 },
      nodes: {
        s1: { kind: "switch" },
        s2: { kind: "switch" },
        h1: { kind: "host" },
        h2: { kind: "host" },
        h3: { kind: "host" },
      },
      links: [
        { endpoints: ["h1:eth1", "s1:eth1"], rate: "100Gbps", delay: "1us" },
        { endpoints: ["s1:eth2", "s2:eth1"], rate: "25Gbps", delay: "5us" },
        { endpoints: ["s2:eth2", "h2:eth1"], rate: "100Gbps", delay: "2us" },
        { endpoints: ["h3:eth1", "s1:eth3"], rate: "100Gbps", delay: "1us" },
      ],
    }),
    "test",
    null,
  );
  // h1 → h2 (and h3 → h2): delays 1 + 5 + 2 µs, serialisation ⌊1024·8/100⌋ + ⌊1024·8/25⌋ + ⌊1024·8/100⌋ ns.
  t.equal(fabricBaseRtt(topo), 2 * 8000 + 81 + 327 + 81);
  const lab = resolveLab(topo);
  t.equal(lab.hosts.get("h1")!.hpcc.baseRtt, 16_489, "HPCC's T defaults to the fabric's base RTT");
  t.equal(lab.hosts.get("h1")!.hpcc.window, 0, "W still follows from T at run time (0 = line rate × T)");
  const set = resolveLab(topo, [hostChange({ hpcc: { baseRtt: 12_000 } })]);
  t.equal(set.hosts.get("h1")!.hpcc.baseRtt, 12_000, "an explicit baseRtt wins");
});
