// What `containerlab deploy` does with the topologies `rocelab export containerlab` writes, done with the
// Docker CLI for a machine without containerlab (docs/scale-out.md): the management network, one container
// per `kind: linux` node (named clab-LAB-NODE, as containerlab names them) with its image, binds, `cmd`,
// labels and management address, then every `veth` link as a veth pair moved into the two containers'
// namespaces after they started, renamed to the link's interfaces, with its MACs and MTU — containerlab
// does the same over netlink (github.com/srl-labs/containerlab, links/link_veth.go). And `destroy`.
// Only what the export uses: `kind: linux`, `type: veth` links, one machine. Everything it creates is
// named or labelled after the lab, so `destroyClab` finds it again after a failure.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { execa } from "execa";
import { parse } from "yaml";

interface ClabNode {
  readonly kind: string;
  readonly image: string;
  readonly "mgmt-ipv4"?: string;
  readonly privileged?: boolean;
  readonly binds?: readonly string[];
  readonly cmd?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

interface ClabEndpoint {
  readonly node: string;
  readonly interface: string;
  readonly mac?: string;
}

interface ClabLink {
  readonly type: string;
  readonly endpoints: readonly [ClabEndpoint, ClabEndpoint];
  readonly mtu?: number;
}

export interface ClabTopology {
  readonly name: string;
  readonly mgmt: { readonly network: string; readonly "ipv4-subnet": string };
  readonly topology: {
    readonly nodes: Readonly<Record<string, ClabNode>>;
    readonly links: readonly ClabLink[];
  };
}

/**
 * How the containers get the privileges `privileged: true` asks for: `--privileged`, or — where the Docker
 * host's own capability set lacks CAP_SYS_RESOURCE and runc refuses `--privileged` — every other capability
 * with the same relaxed confinement (docs/ci-containers.md, "Without Docker Hub, or without every capability").
 */
export type Privilege = "privileged" | "caps";

const CAPS_FLAGS = [
  "--cap-add",
  "ALL",
  "--cap-drop",
  "SYS_RESOURCE",
  "--security-opt",
  "seccomp=unconfined",
  "--security-opt",
  "apparmor=unconfined",
  "--security-opt",
  "systempaths=unconfined",
];

export function readClab(file: string): ClabTopology {
  return parse(readFileSync(file, "utf8")) as ClabTopology;
}

export function containerName(lab: string, node: string): string {
  return `clab-${lab}-${node}`;
}

function docker(args: readonly string[], timeout = 120_000) {
  return execa("docker", args, { reject: false, timeout });
}

async function must<R extends { exitCode?: number | undefined; stderr: string }>(
  what: string,
  r: Promise<R>,
): Promise<R> {
  const done = await r;
  if (done.exitCode !== 0) throw new Error(`${what} failed (${done.exitCode}): ${done.stderr}`);
  return done;
}

/** The containers' process ids, for moving links into their namespaces. */
async function pidOf(container: string): Promise<number> {
  const r = await must(
    `docker inspect ${container}`,
    docker(["inspect", "--format", "{{.State.Pid}}", container]),
  );
  const pid = Number(r.stdout.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${container} is not running (pid ${pid})`);
  return pid;
}

/** Deploys `file` (a topology `rocelab export containerlab` wrote) on this machine's Docker. */
export async function deployClab(file: string, privilege: Privilege): Promise<ClabTopology> {
  const clab = readClab(file);
  const base = dirname(file);
  const lab = clab.name;
  await must(
    "docker network create",
    docker([
      "network",
      "create",
      "--subnet",
      clab.mgmt["ipv4-subnet"],
      "--label",
      `containerlab=${lab}`,
      clab.mgmt.network,
    ]),
  );
  for (const [node, spec] of Object.entries(clab.topology.nodes)) {
    if (spec.kind !== "linux") throw new Error(`${file}: node ${node} is kind ${spec.kind}, not linux`);
    const binds = (spec.binds ?? []).flatMap((b) => {
      const [host, ...rest] = b.split(":");
      return ["-v", [isAbsolute(host!) ? host : join(base, host!), ...rest].join(":")];
    });
    const labels = Object.entries({ ...spec.labels, containerlab: lab, "clab-node-name": node }).flatMap(
      ([k, v]) => ["--label", `${k}=${v}`],
    );
    const privileges = spec.privileged ? (privilege === "privileged" ? ["--privileged"] : CAPS_FLAGS) : [];
    await must(
      `docker run ${containerName(lab, node)}`,
      docker([
        "run",
        "-d",
        "--name",
        containerName(lab, node),
        "--hostname",
        node,
        "--network",
        clab.mgmt.network,
        ...(spec["mgmt-ipv4"] ? ["--ip", spec["mgmt-ipv4"]] : []),
        ...privileges,
        ...binds,
        ...labels,
        spec.image,
        // containerlab splits `cmd` on white space as a shell would for these plain words.
        ...(spec.cmd ? spec.cmd.split(/\s+/).filter(Boolean) : []),
      ]),
    );
  }
  // The links, once every container runs (containerlab: after the nodes are created).
  let i = 0;
  for (const link of clab.topology.links) {
    if (link.type !== "veth") throw new Error(`${file}: link ${i} is ${link.type}, not veth`);
    // Temporary names in the host's namespace carry the lab's name until they are moved and renamed.
    const tmp = [`${lab.slice(0, 8)}-${i}a`, `${lab.slice(0, 8)}-${i}b`];
    await must("ip link add", execa("ip", ["link", "add", tmp[0]!, "type", "veth", "peer", "name", tmp[1]!]));
    for (const [k, end] of link.endpoints.entries()) {
      const pid = await pidOf(containerName(lab, end.node));
      await must("ip link set netns", execa("ip", ["link", "set", "dev", tmp[k]!, "netns", String(pid)]));
      await must(
        `${end.node}:${end.interface}`,
        execa("nsenter", [
          "--target",
          String(pid),
          "--net",
          "ip",
          "link",
          "set",
          "dev",
          tmp[k]!,
          "name",
          end.interface,
          ...(end.mac ? ["address", end.mac] : []),
          ...(link.mtu ? ["mtu", String(link.mtu)] : []),
          "up",
        ]),
      );
    }
    i++;
  }
  return clab;
}

/** `containerlab destroy`: the lab's containers (by label), its temporary veths, its network. */
export async function destroyClab(lab: string, network: string): Promise<void> {
  const ids = (await docker(["ps", "-aq", "--filter", `label=containerlab=${lab}`])).stdout
    .split("\n")
    .filter(Boolean);
  if (ids.length > 0) await docker(["rm", "-f", ...ids]);
  const links = (await execa("ip", ["-o", "link", "show"], { reject: false })).stdout;
  for (const m of links.matchAll(new RegExp(`^\\d+: (${lab.slice(0, 8)}-\\d+[ab])[@:]`, "gm"))) {
    await execa("ip", ["link", "del", m[1]!], { reject: false });
  }
  await docker(["network", "rm", network]);
}

/** The names of containers of `lab` still there (none after `destroyClab`). */
export async function clabContainers(lab: string): Promise<string[]> {
  const r = await docker(["ps", "-a", "--format", "{{.Names}}", "--filter", `label=containerlab=${lab}`]);
  return r.stdout.split("\n").filter(Boolean);
}

/** The logs of one node's container (its device's output). */
export async function clabLogs(lab: string, node: string): Promise<string> {
  const r = await docker(["logs", containerName(lab, node)]);
  return `${r.stdout}\n${r.stderr}`;
}

/** A command in a node's container. */
export function clabExec(lab: string, node: string, args: readonly string[]) {
  return docker(["exec", containerName(lab, node), ...args]);
}
