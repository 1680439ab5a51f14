// The device image in real containers (issue 19): builds Dockerfile.device, exports a small fabric with
// `rocelab export containerlab`, deploys it on this machine's Docker as containerlab would
// (test/helpers/clab-docker.ts: one container per device, a veth per link moved into them), then drives
// it from this machine with `rocelab attach` over the management network and the token: every device
// answers, a host's kernel pings another across the leaf, and a 2-to-1 WRITE incast completes with every
// byte delivered, no lossless drop, and ECN and CNPs working. Needs root and a running Docker daemon, so
// it is not part of `npm test` (which must run where no Docker is); run it with `npm run test:docker`
// (docs/scale-out.md). Settings, by environment:
//   ROCELAB_DOCKER_IMAGE   the tag to build and run (default rocelab-device:test)
//   ROCELAB_DOCKER_BASE    --build-arg BASE=… (a local copy of node:20-bookworm-slim)
//   ROCELAB_DOCKER_BUILD_NETWORK  --network … for the build (e.g. host, where the default bridge has no way out)
//   ROCELAB_DOCKER_PRIVILEGE      privileged (default) or caps (every capability but CAP_SYS_RESOURCE)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import {
  clabContainers,
  clabExec,
  clabLogs,
  deployClab,
  destroyClab,
  type Privilege,
} from "../helpers/clab-docker.js";
import { incastFigures } from "../helpers/incast-figures.js";
import { requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "rldock";
const ATTACH = "rldockat";
const NETWORK = `rocelab-${LAB}`;
const IMAGE = process.env.ROCELAB_DOCKER_IMAGE ?? "rocelab-device:test";
const PRIVILEGE = (process.env.ROCELAB_DOCKER_PRIVILEGE ?? "privileged") as Privilege;
const SIZE = 1_000_000;
// The split fabric's settings (test/live/split-fabric.test.ts): devices in containers run free clocks.
const DILATION = 2000;
const REACTION_MS = 50;

const TOPOLOGY = `name: ${LAB}
description: one leaf and three hosts, every device a container
defaults:
  link: { rate: 100G, delay: 1us }
nodes:
  leaf1: { kind: switch }
  h1: { kind: host }
  h2: { kind: host }
  h3: { kind: host }
links:
  - ["h1:eth1", "leaf1:eth1"]
  - ["h2:eth1", "leaf1:eth2"]
  - ["h3:eth1", "leaf1:eth3"]
`;

const work = mkdtempSync(join(tmpdir(), "rocelab-docker-"));
t.teardown(async () => {
  await rl(["down", "--name", ATTACH]);
  await destroyClab(LAB, NETWORK);
  rmSync(work, { recursive: true, force: true });
});

t.test("the device image, deployed as containerlab would, driven by rocelab attach", async (t) => {
  if (PRIVILEGE !== "privileged" && PRIVILEGE !== "caps") {
    t.fail(`ROCELAB_DOCKER_PRIVILEGE is "${PRIVILEGE}": give privileged or caps`);
    return;
  }
  const info = await execa("docker", ["info", "--format", "{{.ServerVersion}}"], { reject: false });
  if (info.exitCode !== 0) {
    t.fail(`no Docker daemon answers (docker info: ${info.stderr.trim()}): start dockerd first`);
    return;
  }
  t.pass(`Docker ${info.stdout.trim()}`);
  await destroyClab(LAB, NETWORK);
  t.same(await clabContainers(LAB), [], "no containers of an earlier run");

  const build = await execa(
    "docker",
    [
      "build",
      "-f",
      "Dockerfile.device",
      "-t",
      IMAGE,
      ...(process.env.ROCELAB_DOCKER_BASE ? ["--build-arg", `BASE=${process.env.ROCELAB_DOCKER_BASE}`] : []),
      ...(process.env.ROCELAB_DOCKER_BUILD_NETWORK
        ? ["--network", process.env.ROCELAB_DOCKER_BUILD_NETWORK]
        : []),
      ".",
    ],
    { reject: false, timeout: 40 * 60_000, all: true },
  );
  const built = `docker build -f Dockerfile.device -t ${IMAGE}`;
  t.equal(build.exitCode, 0, build.exitCode === 0 ? built : `${built}\n${build.all?.slice(-3000)}`);
  if (build.exitCode !== 0) return;

  const topo = join(work, `${LAB}.yaml`);
  writeFileSync(topo, TOPOLOGY);
  const out = join(work, "clab");
  const exported = await rl([
    "export",
    "containerlab",
    topo,
    "--output",
    out,
    "--image",
    IMAGE,
    "--mgmt-subnet",
    "172.20.77.0/24",
    "--dilation",
    String(DILATION),
    "--reaction-ms",
    String(REACTION_MS),
  ]);
  t.equal(exported.exitCode, 0, `rocelab export containerlab ${exported.stderr}`);

  const clab = await deployClab(join(out, `${LAB}.clab.yml`), PRIVILEGE);
  const nodes = Object.keys(clab.topology.nodes);
  t.same(
    (await clabContainers(LAB)).sort(),
    nodes.map((n) => `clab-${LAB}-${n}`).sort(),
    "a container per device",
  );
  const logs = async () => (await Promise.all(nodes.map((n) => clabLogs(LAB, n)))).join("\n");

  // From this machine, over the management network, as the operator of a containerlab lab would.
  const attached = await rl(
    ["attach", "--endpoints", join(out, "endpoints.yaml"), "--name", ATTACH],
    180_000,
  );
  t.equal(attached.exitCode, 0, `rocelab attach ${attached.stderr}\n${await logs()}`);
  t.match(attached.stdout, /attached to 4 devices/);
  const status = JSON.parse((await rl(["status", "--json", "--name", ATTACH])).stdout) as {
    devices: { node: string; status: string; endpoint?: string }[];
  };
  t.same(
    status.devices.filter((d) => d.status !== "running").map((d) => d.node),
    [],
    "every device runs in its container and answers over TCP",
  );
  t.ok(
    status.devices.every((d) => d.endpoint?.startsWith("tcp://172.20.77.")),
    "each at its management address",
  );

  const h3 = JSON.parse(readFileSync(join(out, "config", "h3.json"), "utf8")) as {
    hostStack: { ip: string };
  };
  const ping = await clabExec(LAB, "h1", ["ping", "-c", "3", "-w", "20", h3.hostStack.ip]);
  t.equal(ping.exitCode, 0, `h1's kernel pings h3 (${h3.hostStack.ip}) through leaf1\n${ping.stdout}`);

  const figures = await incastFigures(
    t,
    ATTACH,
    { to: "h3", senders: ["h1", "h2"], switches: ["leaf1"], size: SIZE },
    rl,
  );
  t.equal(figures.completed, 2, "both WRITEs completed");
  t.equal(figures.delivered, 2 * SIZE, "h3 received every byte exactly once");
  t.equal(figures.losslessDrops, 0, "no lossless drop in the network");
  t.ok(figures.ecnMarked > 0, `leaf1 marked ECN (${figures.ecnMarked})`);
  t.ok(
    figures.cnpSent > 0 && figures.cnpHandled > 0,
    `CNPs sent ${figures.cnpSent}, handled ${figures.cnpHandled}`,
  );
  t.comment(
    `pauses sent ${figures.pausesSent}, late lossless drops ${figures.lateLosslessDrops}, ` +
      `retransmissions ${figures.retransmits}, worst timer lateness ${figures.worstTimerLateNs} ns`,
  );

  const down = await rl(["down", "--name", ATTACH]);
  t.equal(down.exitCode, 0, `rocelab down of the attached lab ${down.stderr}`);
  await destroyClab(LAB, NETWORK);
  t.same(await clabContainers(LAB), [], "destroy leaves no container");
});
