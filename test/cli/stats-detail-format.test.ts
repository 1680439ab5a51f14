// `rocelab stats SWITCH` prints the flow paths, the elephant table and the VTEP of a switch, here from a
// simulated VXLAN fabric (docs/examples/vxlan.yaml) where h1 writes to h5 with elephant detection on.
import t from "tap";
import { formatStats, hostNames } from "../../src/cli/lab-format.js";
import { SimLab } from "../../src/lab/sim/sim-lab.js";
import { switchChange } from "../../src/scenario/settings-layers.js";
import { loadTopology } from "../../src/scenario/topology-file.js";

t.test("flow paths, elephants and the VTEP in the stats text", async (t) => {
  const lab = new SimLab({ topology: loadTopology("docs/examples/vxlan.yaml"), seed: 1 });
  lab.fabric.configureSwitches(switchChange({ elephant: { enabled: true, size: 100_000, rate: 1e9 } }));
  await lab.apply({ kind: "incast", to: "h5", from: ["h1"], bytes: 1_000_000 });
  lab.step(200_000);
  const leaf1 = lab.snapshotNow().stats.leaf1!;
  const text = formatStats(leaf1, false, hostNames(lab.topology));
  t.match(
    text,
    /flow paths \(RoCEv2 flows by bytes: egress ports, packets, bytes, share\):\n {2}h1 -> h5 qp \d+ \(VXLAN\): eth[12] \d+ pkts [\d.]+\s?[KM]B \(100%\)/,
  );
  t.match(
    text,
    /elephant table \(flows by bytes\):\n {2}h1:\d+ -> h5:4791 qp \d+\s+[\d.]+\s?[KM]B {2}elephant/,
  );
  t.match(text, /VTEP 10\.1\.0\.\d+, VNI 5000, ECN overlay on \(outer CE copied to the inner header\):/);
  t.match(text, /tunnel to\s+hosts\s+encap pkts/);
  const st = leaf1.kind === "switch" ? leaf1.detail!.vtep!.tunnels[0]! : null;
  t.match(
    text,
    new RegExp(`\\s+4\\s+${st!.encapPackets}\\s`),
    "the tunnel to leaf2 with its encapsulated packets",
  );
  t.match(
    formatStats(leaf1, false),
    /\n {2}10\.1\.0\.1 -> 10\.1\.0\.9 qp/,
    "addresses without the lab's names",
  );
  t.notMatch(text, /=-1\b|\s-1$/m, "no 'not configured' placeholder in the text");
  t.match(text, /queue 3: .*ecn_kmin_bytes=\d+/, "a configured ECN threshold is shown");
  t.notMatch(formatStats(lab.snapshotNow().stats.h1!, false), /flow paths|VTEP/, "a NIC has none of it");
  await lab.close();
});
