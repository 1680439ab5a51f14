// The real `rocelab export` command: what it writes, what it keeps, what it removes, what it refuses.
// The first run is the `rocelab` binary (from source, as users run it); the others run the same commands
// in this process (commander program with the export commands registered), which is much faster.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import t from "tap";
import { parse } from "yaml";
import {
  imageName,
  integer,
  labOf,
  latencyOf,
  registerExportCommands,
} from "../../src/cli/export-command.js";
import { defaultTopology } from "../../src/scenario/topology.js";
import { rocelab } from "../helpers/cli.js";
import { restoreEnvAfter } from "../helpers/env.js";

/** Runs `rocelab export ...` in this process: exit status and what it wrote on stdout and stderr. */
async function exportHere(
  args: readonly string[],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const program = new Command().exitOverride();
  registerExportCommands(program);
  const out: string[] = [];
  const err: string[] = [];
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write;
  const before = process.exitCode;
  process.exitCode = undefined;
  let exitCode = 0;
  try {
    await program.parseAsync(["node", "rocelab", "export", ...args]);
    exitCode = Number(process.exitCode ?? 0);
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    process.exitCode = before;
  }
  return { exitCode, stdout: out.join(""), stderr: err.join("") };
}

const dir = mkdtempSync(join(tmpdir(), "rocelab-export-"));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test("containerlab on two machines, then one: files, a kept token, stale parts removed", async (t) => {
  const out = join(dir, "clab");
  const small = await exportHere([
    "containerlab",
    "default",
    "-o",
    out,
    "--hosts",
    "a=192.0.2.1,b=192.0.2.2",
  ]);
  t.equal(small.exitCode, 2, "the default 1500-byte underlay cannot carry RoCE MTU 4096 tunnels: refused");
  t.match(
    small.stderr,
    /tunnelled links need an underlay MTU of at least 4274 bytes.*1500 is too small .*--underlay-mtu 9000, or lower the topology's defaults\.mtu to 1024 \(nothing written/,
  );
  t.notOk(existsSync(out), "and nothing is written");
  const two = await rocelab([
    "export",
    "containerlab",
    "default",
    "-o",
    out,
    "--hosts",
    "a=192.0.2.1,b=192.0.2.2",
    "--underlay-mtu",
    "4274",
  ]);
  t.equal(two.exitCode, 0, two.stderr);
  t.equal(two.stderr, "", "no warning: the underlay carries the tunnels");
  t.match(two.stdout, /default\.a\.clab\.yml: 6 nodes \(spine1, leaf1, h1, h2, h3, h4\)/);
  t.match(two.stdout, /on b: sudo containerlab deploy -t .*default\.b\.clab\.yml/);
  t.match(
    two.stdout,
    /PFC headroom of the 2 tunnelled links covers 100us of real tunnel latency \(100ns emulated/,
  );
  t.match(two.stdout, /at least 4274 bytes .*the underlay's 4274 is enough/);
  const token = readFileSync(join(out, "config/token"), "utf8");
  t.match(token, /^[0-9a-f]{64}\n$/);
  t.equal(statSync(join(out, "config/token")).mode & 0o777, 0o600, "the token is private");
  const a = parse(readFileSync(join(out, "default.a.clab.yml"), "utf8")) as {
    topology: { links: { type: string }[] };
  };
  t.equal(a.topology.links.filter((l) => l.type === "vxlan").length, 2);
  const endpoints = parse(readFileSync(join(out, "endpoints.yaml"), "utf8")) as {
    devices: Record<string, string>;
  };
  // h5 is node 9 of the topology: control port 7700 + 9 on machine b.
  t.same(endpoints, {
    topology: "default",
    dilation: 1000,
    reactionMs: 10,
    lab: "default",
    tokenFile: "config/token",
    devices: { ...endpoints.devices, h5: "tcp://192.0.2.2:7709" },
  });
  t.equal(Object.keys(endpoints.devices).length, 12);

  const again = await exportHere(["containerlab", "default", "-o", out, "--underlay-mtu", "9000"]);
  t.equal(again.exitCode, 2, "an existing export directory is not written over silently");
  t.match(
    again.stderr,
    /--output .*clab exists and is not empty .*: choose a new directory, or pass --force/,
  );
  const one = await exportHere(["containerlab", "default", "-o", out, "--underlay-mtu", "9000", "--force"]);
  t.equal(one.exitCode, 0, one.stderr);
  t.equal(one.stderr, "", "nothing crosses: no MTU warning");
  t.match(one.stdout, /removed what an earlier export left: default\.a\.clab\.yml, default\.b\.clab\.yml/);
  t.ok(existsSync(join(out, "default.clab.yml")));
  t.equal(readFileSync(join(out, "config/token"), "utf8"), token, "the token survives a new export");

  writeFileSync(join(out, "config/token"), "guess\n");
  const spoiled = await exportHere(["containerlab", "default", "-o", out, "--force"]);
  t.equal(spoiled.exitCode, 2);
  t.match(spoiled.stderr, /config\/token is not a token this export wrote \(64 hex digits\): remove it/);
});

t.test("a topology file travels with the export: the endpoints file names its copy", async (t) => {
  const out = join(dir, "vxlan");
  const r = await exportHere(["containerlab", "docs/examples/vxlan.yaml", "-o", out, "--reaction-ms", "40"]);
  t.equal(r.exitCode, 0, r.stderr);
  t.equal(readFileSync(join(out, "topology.yaml"), "utf8"), readFileSync("docs/examples/vxlan.yaml", "utf8"));
  const endpoints = parse(readFileSync(join(out, "endpoints.yaml"), "utf8")) as Record<string, unknown>;
  t.match(endpoints, { topology: "topology.yaml", reactionMs: 40, lab: "vxlan" });
  const leaf1 = JSON.parse(readFileSync(join(out, "config/leaf1.json"), "utf8")) as Record<string, unknown>;
  t.match(leaf1, { format: "rocelab-device/1", lab: "vxlan", node: "leaf1", reactionMs: 40 });
  const clab = parse(readFileSync(join(out, "vxlan.clab.yml"), "utf8")) as {
    topology: { nodes: Record<string, { cmd: string }> };
  };
  t.equal(
    clab.topology.nodes.leaf1!.cmd,
    "--config /config/leaf1.json --control tcp://172.20.30.4:7700 --token-file /config/token",
    "bin/device-entrypoint's flags: the control port on the node's management address only",
  );
});

t.test(
  "the token stays out of the working directory and out of git, and no link is written through",
  async (t) => {
    restoreEnvAfter(t, "XDG_DATA_HOME");
    process.env.XDG_DATA_HOME = join(dir, "data");
    const r = await exportHere(["containerlab", "default", "--name", "tokens"]);
    t.equal(r.exitCode, 0, r.stderr);
    const out = join(dir, "data", "rocelab", "exports", "rocelab-tokens");
    t.match(r.stdout, `wrote ${out}/`, "the default directory is under the user's data directory");
    t.notOk(existsSync("rocelab-tokens"), "nothing in the working directory");
    t.equal(statSync(join(out, "config/token")).mode & 0o777, 0o600);
    t.equal(
      readFileSync(join(out, ".gitignore"), "utf8")
        .split("\n")
        .filter((l) => l === "/config/token").length,
      1,
    );
    const repoIgnores = readFileSync(".gitignore", "utf8").split("\n");
    t.ok(
      repoIgnores.includes("/rocelab-*/") && repoIgnores.includes("config/token"),
      "the repository's .gitignore keeps an export's token out too",
    );

    // A planted link where the token would go: refused, the target unchanged.
    const planted = join(dir, "planted");
    mkdirSync(join(planted, "config"), { recursive: true });
    const victim = join(dir, "victim");
    writeFileSync(victim, "root's secret\n", { mode: 0o600 });
    symlinkSync(victim, join(planted, "config", "token"));
    const refused = await exportHere(["containerlab", "default", "-o", planted, "--force"]);
    t.equal(refused.exitCode, 2);
    t.match(refused.stderr, /config\/token is a symbolic link: rocelab does not read through links/);
    t.equal(readFileSync(victim, "utf8"), "root's secret\n", "the link's target is unchanged");
  },
);

t.test(
  "k8s: one file for kubectl, the MTU of the pod network checked, names Kubernetes can hold",
  async (t) => {
    const out = join(dir, "k8s");
    const r = await exportHere([
      "k8s",
      "default",
      "-o",
      out,
      "--namespace",
      "labs",
      "--underlay-mtu",
      "8950",
    ]);
    t.equal(r.exitCode, 0, r.stderr);
    t.match(r.stdout, /12 ConfigMaps and Topology default \(namespace labs\)/);
    t.match(r.stdout, /every link in a VXLAN tunnel between pods: .*8950 is enough/);
    const docs = readFileSync(join(out, "default.k8s.yaml"), "utf8").split(/^---$/m).slice(1);
    t.equal(docs.length, 13, "12 ConfigMaps and the Topology");
    t.match(parse(docs[12]!), { kind: "Topology", metadata: { namespace: "labs" } });

    const topo = join(dir, "upper.yaml");
    writeFileSync(
      topo,
      "nodes:\n  Leaf1: { kind: switch }\n  h1: { kind: host }\n  h2: { kind: host }\n" +
        'links:\n  - ["h1:eth1", "Leaf1:eth1"]\n  - ["h2:eth1", "Leaf1:eth2"]\n',
    );
    const upper = await exportHere(["k8s", topo, "-o", join(dir, "upper"), "--underlay-mtu", "9000"]);
    t.equal(upper.exitCode, 2);
    t.match(upper.stderr, /node Leaf1: clabernetes names pods and services after nodes/);
  },
);

t.test("bad options: exit 2 and a message saying what is allowed", async (t) => {
  const cases: [string[], RegExp][] = [
    [
      ["containerlab", "default", "--hosts", "a=nohost"],
      /--hosts: "nohost" \(machine a\) is not an IPv4 or IPv6 address/,
    ],
    [["containerlab", "default", "--place", "leaf1=a"], /--place needs --hosts/],
    [
      ["containerlab", "default", "--mgmt-subnet", "10.0.0.0/30"],
      /--mgmt-subnet: "10\.0\.0\.0\/30" is not an IPv4 subnet/,
    ],
    [["containerlab", "default", "--name", "Bad-Name"], /--name: lab name "Bad-Name" must be 1-16 lowercase/],
    [
      ["containerlab", "default", "--dilation", "auto"],
      /--dilation: "auto" is not a whole number from 1 to 1000000/,
    ],
    [["containerlab", "default", "--image", "a b"], /--image: "a b" is not an image reference/],
    [
      ["containerlab", "default", "--underlay-latency", "fast"],
      /--underlay-latency: "fast" is not a duration/,
    ],
    [["k8s", "default", "--expose", "NodePort"], /--expose: "NodePort" is not ClusterIP or LoadBalancer/],
  ];
  for (const [args, message] of cases) {
    const r = await exportHere([...args, "-o", join(dir, "bad")]);
    t.equal(r.exitCode, 2, args.join(" "));
    t.match(r.stderr, message);
  }
  t.notOk(existsSync(join(dir, "bad", "default.clab.yml")), "nothing written for bad input");
});

t.test("option checks: what each refuses, and what it makes of what it takes", async (t) => {
  t.equal(integer("9000", "--underlay-mtu", 576, 65535), 9000);
  for (const bad of ["auto", "1e3", "-1", "12.5", "", "70000"])
    t.throws(() => integer(bad, "--underlay-mtu", 576, 65535), {
      name: "UsageError",
      message: `--underlay-mtu: "${bad}" is not a whole number from 576 to 65535`,
    });
  t.equal(latencyOf("250us"), 250_000);
  t.throws(() => latencyOf("fast"), { message: /--underlay-latency: "fast" is not a duration like 100us/ });
  t.equal(imageName("ghcr.io/me/rocelab-device:1.0@sha256:abc"), "ghcr.io/me/rocelab-device:1.0@sha256:abc");
  for (const bad of ["a b", "-x", "x;rm", ""])
    t.throws(() => imageName(bad), { message: /is not an image reference/ });
  const topo = defaultTopology();
  t.equal(labOf(topo, undefined), "default");
  t.equal(
    labOf({ ...topo, name: "Four-Spines_2" }, undefined),
    "fourspines2",
    "a topology name made a lab name",
  );
  t.equal(labOf({ ...topo, name: "2tier" }, undefined), "tier", "leading digits go");
  t.throws(() => labOf({ ...topo, name: "___" }, undefined), { message: /gives no lab name: pass --name/ });
  t.throws(() => labOf(topo, "Bad-Name"), { message: /--name: lab name "Bad-Name" must be 1-16 lowercase/ });
});
