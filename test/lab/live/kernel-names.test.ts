// Names that reach the kernel (`ip netns`, `ip link`) are validated before anything is created: lab and
// node names by pattern, ports by range, so every namespace and interface name the lab makes is one the
// kernel accepts (a netns is a file under /run/netns: at most 255 bytes, no "/"; an interface name at
// most 15 characters, no "/", ":" or whitespace) and no input can smuggle a second word into `ip -batch`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { HOST_KERNEL_IF, HOST_NIC_IF, labNameProblem, nsName } from "../../../src/lab/live/names.js";
import { MAX_PORT } from "../../../src/scenario/topology.js";
import { loadTopology } from "../../../src/scenario/topology-file.js";
import { tempDir } from "../../helpers/temp-dir.js";

const dir = tempDir("rl-names-");
const topo = (nodes: string, link = '["a:eth1", "sw:eth1"]') => {
  const file = join(dir, `t${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `nodes:\n${nodes}\nlinks:\n  - ${link}\n`);
  return file;
};

t.test("lab names", async (t) => {
  t.equal(labNameProblem("lab1"), null);
  for (const bad of ["", "Lab", "1lab", "a-b", "a b", "a;b", "a/b", "a".repeat(17)])
    t.ok(labNameProblem(bad), `"${bad}" is refused`);
});

t.test("node names", async (t) => {
  t.ok(loadTopology(topo("  sw: { kind: switch }\n  a: { kind: host }")));
  for (const bad of ['"a b"', '"a;b"', '"a/b"', '"-a"', "a".repeat(16)]) {
    t.throws(
      () => loadTopology(topo(`  sw: { kind: switch }\n  ${bad}: { kind: host }`, `["sw:eth1", "sw:eth2"]`)),
      /nodes/,
      `node ${bad} is refused`,
    );
  }
});

t.test("names of the lab's own processes and logs are not node names", async (t) => {
  for (const [name, clash] of [
    ["supervisor", "rocelab-<lab>-supervisor and logging to supervisor\\.log"],
    ["Attach", "rocelab-<lab>-attach and logging to attach\\.log"],
    ["udp-recv-h1", "rocelab-<lab>-udp-… and logging to udp-…\\.log"],
    ["fuzz-1", "rocelab-<lab>-fuzz-…"],
  ] as const) {
    t.throws(
      () =>
        loadTopology(
          topo(`  sw: { kind: switch }\n  ${name}: { kind: host }`, `["${name}:eth1", "sw:eth1"]`),
        ),
      new RegExp(`nodes\\.${name}: .*reserved for rocelab's own processes, titled ${clash}`),
      `${name} is refused`,
    );
  }
  t.ok(
    loadTopology(
      topo("  sw: { kind: switch }\n  supervisor1: { kind: host }", '["supervisor1:eth1", "sw:eth1"]'),
    ),
  );
});

t.test("ports", async (t) => {
  t.throws(
    () =>
      loadTopology(
        topo("  sw: { kind: switch }\n  a: { kind: host }", `["a:eth1", "sw:eth${MAX_PORT + 1}"]`),
      ),
    new RegExp(`ports are eth1 to eth${MAX_PORT}`),
  );
  t.ok(`eth${MAX_PORT}`.length <= 15 && HOST_NIC_IF.length <= 15 && HOST_KERNEL_IF.length <= 15);
});

t.test("the longest names the patterns allow still fit the kernel", async (t) => {
  const ns = nsName("a".repeat(16), "b".repeat(15));
  t.ok(Buffer.byteLength(ns) <= 255, `namespace ${ns}`);
  t.match(ns, /^[A-Za-z0-9_-]+$/, "one word of safe characters");
});
