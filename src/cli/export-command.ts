// `rocelab export containerlab|k8s TOPOLOGY`: the fabric as a containerlab lab (one machine, or several
// with VXLAN links between them) or as a clabernetes Topology for Kubernetes, every device a container of
// the device image (Dockerfile.device). docs/scale-out.md says when to use which.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { formatDuration, parseDuration } from "../device/units.js";
import { ExposeType, exportK8s } from "../export/clabernetes.js";
import {
  type ContainerlabExport,
  ENDPOINTS_FILE,
  type ExportFile,
  endpointsFile,
  exportContainerlab,
  TOPOLOGY_COPY,
} from "../export/containerlab.js";
import { ExportInputError, type Machine, parseMachines, parsePins } from "../export/placement.js";
import { describeMtuPlan, type MtuPlan } from "../export/underlay.js";
import { defaultExportDir, ensureToken, removeStale, TOKEN_FILE, writeExport } from "../export/write.js";
import { yamlText } from "../export/yaml-text.js";
import { DEFAULT_DILATION } from "../lab/live/clock-plan.js";
import { labNameProblem } from "../lab/live/names.js";
import { OutputDir } from "../runtime/realtime/safe-files.js";
import type { Topology } from "../scenario/topology.js";
import { action, UsageError } from "./errors.js";
import { loadTopologyArg } from "./topology-command.js";

export const DEFAULT_IMAGE = "rocelab-device:latest";
/** Ethernet's MTU: what an underlay has unless someone configured jumbo frames (docs/scale-out.md). */
export const DEFAULT_UNDERLAY_MTU = 1500;
/** Assumed one-way latency of a tunnel between machines (docs/scale-out.md: measure yours with ping). */
export const DEFAULT_UNDERLAY_LATENCY = "100us";

interface CommonOptions {
  output?: string;
  force?: boolean;
  name?: string;
  image: string;
  mgmtSubnet: string;
  controlPort: string;
  underlayMtu: string;
  underlayLatency: string;
  dilation: string;
  seed: string;
  reactionMs: string;
}

/** `action`, with the export's input errors (lab/export: ExportInputError) as usage errors (exit 2). */
function exportAction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => Promise<void> {
  return action((...args: A) => {
    try {
      fn(...args);
    } catch (e) {
      throw e instanceof ExportInputError ? new UsageError(e.message) : e;
    }
  });
}

export function integer(text: string, flag: string, min: number, max: number): number {
  const v = Number(text);
  if (!/^\d+$/.test(text.trim()) || !(v >= min && v <= max))
    throw new UsageError(`${flag}: "${text}" is not a whole number from ${min} to ${max}`);
  return v;
}

/**
 * The lab name: --name, else the topology's name made a lab name (lowercase letters and digits, at most
 * 16, starting with a letter: "four-spines" becomes "fourspines"), as every rocelab lab is named.
 */
export function labOf(topo: Topology, name: string | undefined): string {
  if (name !== undefined) {
    const problem = labNameProblem(name);
    if (problem) throw new UsageError(`--name: ${problem}`);
    return name;
  }
  const derived = topo.name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")
    .replace(/^[0-9]+/, "")
    .slice(0, 16);
  if (labNameProblem(derived) !== null)
    throw new UsageError(
      `topology name "${topo.name}" gives no lab name: pass --name (1-16 lowercase letters and digits)`,
    );
  return derived;
}

function addCommonOptions(c: Command): Command {
  return c
    .argument("<topology>", 'topology YAML ("default": the built-in 2-spine, 2-leaf, 8-host fabric)')
    .option(
      "-o, --output <dir>",
      "directory to write into, new or empty (default: ~/.local/share/rocelab/exports/rocelab-<name>[-k8s], not the working directory: it holds the control token)",
    )
    .option("--force", "write into an existing export directory (an earlier export: its token is kept)")
    .option("--name <lab>", "lab name (default: the topology's name)")
    .option(
      "--image <image>",
      "device image every node runs (docker build -f Dockerfile.device)",
      DEFAULT_IMAGE,
    )
    .option("--mgmt-subnet <cidr>", "IPv4 management subnet; node N gets address N+1", "172.20.30.0/24")
    .option("--control-port <port>", "TCP port of each device's control channel in its container", "7700")
    .option(
      "--underlay-mtu <bytes>",
      "MTU of the network the tunnels cross (the machines' interfaces; on Kubernetes the pod network's)",
      String(DEFAULT_UNDERLAY_MTU),
    )
    .option(
      "--underlay-latency <duration>",
      "one-way latency of a tunnel between machines, added to PFC headroom",
      DEFAULT_UNDERLAY_LATENCY,
    )
    .option("--dilation <n>", "emulated time runs N times slower than real time", String(DEFAULT_DILATION))
    .option("--seed <n>", "seed of the devices' random choices", "1")
    .option(
      "--reaction-ms <ms>",
      "real ms a device may take to react to a PFC pause, which switch headroom covers (free-running devices on busy machines want more)",
      "10",
    );
}

function buildExport(
  topoArg: string,
  o: CommonOptions,
  machines: readonly Machine[],
  place: string | undefined,
  vniBase: number,
  tunnelAll = false,
): { topo: Topology; lab: string; clab: ContainerlabExport } {
  const topo = loadTopologyArg(topoArg);
  const lab = labOf(topo, o.name);
  const latency = latencyOf(o.underlayLatency);
  const clab = exportContainerlab(topo, {
    lab,
    image: imageName(o.image),
    machines,
    ...(place !== undefined ? { pins: parsePins(place, topo, machines) } : {}),
    mgmtSubnet: o.mgmtSubnet,
    controlPort: integer(o.controlPort, "--control-port", 1, 65535 - topo.nodes.length),
    vniBase,
    underlayMtu: integer(o.underlayMtu, "--underlay-mtu", 576, 65535),
    underlayLatencyNs: latency,
    dilation: integer(o.dilation, "--dilation", 1, 1e6),
    seed: integer(o.seed, "--seed", 0, 2 ** 32 - 1),
    reactionMs: integer(o.reactionMs, "--reaction-ms", 1, 10_000),
    tunnelAll,
  });
  // An export whose tunnels cannot carry the fabric's frames is refused before anything is written: the
  // devices would stop at start-up (docs/attach.md), so writing it would only move the error later.
  if (clab.mtu !== null && !clab.mtu.fits)
    throw new UsageError(
      `${describeMtuPlan(clab.mtu, machines[0]?.family ?? "ipv4")} (nothing written: the devices would refuse the tunnels at start-up)`,
    );
  return { topo, lab, clab };
}

/** The topology the endpoints file names, copied beside it (the built-in one needs no copy). */
function topologyCopy(topo: Topology): ExportFile[] {
  if (topo.source === "built-in") return [];
  return [{ path: TOPOLOGY_COPY, content: readFileSync(topo.source, "utf8") }];
}

export function latencyOf(text: string): number {
  const ns = parseDuration(text);
  if (ns === null) throw new UsageError(`--underlay-latency: "${text}" is not a duration like 100us`);
  return ns;
}

export function imageName(text: string): string {
  // A reference as docker takes it: [registry/]path[:tag][@digest], no spaces or shell characters.
  if (!/^[a-z0-9][a-z0-9._/:@-]*$/i.test(text) || text.length > 255)
    throw new UsageError(`--image: "${text}" is not an image reference like rocelab-device:latest`);
  return text;
}

/** The MTU budget on stdout (an underlay too small for it was refused in buildExport). */
function mtuLines(plan: MtuPlan | null, family: Machine["family"], prefix = ""): string[] {
  return plan === null ? [] : [`${prefix}${describeMtuPlan(plan, family)}`];
}

/** The export directory: --output, else one under the user's data directory (not the working directory). */
function openExportDir(o: CommonOptions, name: string): OutputDir {
  return OutputDir.create(o.output ?? defaultExportDir(name), {
    force: o.force ?? false,
    flag: o.output === undefined ? "the export directory" : "--output",
  });
}

/** Writes a containerlab export (keeping its token) and removes what an earlier one left that no longer fits. */
function writeAll(dir: OutputDir, lab: string, files: readonly ExportFile[]): string[] {
  ensureToken(dir);
  const written = writeExport(dir, files);
  return removeStale(dir, lab, written);
}

function headroomNote(clab: ContainerlabExport, latencyNs: number, dilation: number): string {
  return (
    `PFC headroom of the ${clab.tunnelled.length} tunnelled links covers ${formatDuration(latencyNs)} of ` +
    `real tunnel latency (${formatDuration(Math.ceil(latencyNs / dilation))} emulated at dilation ${dilation})`
  );
}

export function registerExportCommands(program: Command): void {
  const exp = program
    .command("export")
    .description("write the fabric for containerlab or Kubernetes (clabernetes), one container per device");

  addCommonOptions(exp.command("containerlab"))
    .description("containerlab topologies (one per machine with --hosts) with device files to bind-mount")
    .option("--hosts <list>", "spread the fabric over machines: NAME=ADDRESS,… (their underlay addresses)")
    .option("--place <list>", "pin nodes to machines: NODE=MACHINE,… (the rest are placed automatically)")
    .option("--vni-base <n>", "VNI of the tunnel of link i is N + i", "10000")
    .action(
      exportAction(
        (topoArg: string, o: CommonOptions & { hosts?: string; place?: string; vniBase: string }) => {
          const machines = o.hosts === undefined ? [] : parseMachines(o.hosts);
          if (o.place !== undefined && machines.length === 0) throw new UsageError("--place needs --hosts");
          const vniBase = integer(o.vniBase, "--vni-base", 1, 0xff_ffff);
          const { topo, lab, clab } = buildExport(topoArg, o, machines, o.place, vniBase);
          const outDir = openExportDir(o, `rocelab-${lab}`);
          const dir = outDir.path;
          const topologies = clab.topologies.map((t) => ({
            path: t.path,
            content: yamlText(t.definition, [
              `containerlab topology of rocelab lab ${lab}${t.machine ? `, the part on machine ${t.machine}` : ""}.`,
              "Written by `rocelab export containerlab`; deploy: containerlab deploy -t <this file> (docs/scale-out.md).",
            ]),
          }));
          let removed: string[];
          try {
            removed = writeAll(outDir, lab, [...topologies, ...clab.files, ...topologyCopy(topo)]);
          } finally {
            outDir.close();
          }
          const out = [
            `wrote ${dir}/: ${clab.devices.length} device files, ${ENDPOINTS_FILE}, ${TOKEN_FILE}`,
          ];
          if (removed.length > 0) out.push(`removed what an earlier export left: ${removed.join(", ")}`);
          for (const t of clab.topologies) {
            const nodes = clab.devices.map((d) => d.node).filter((n) => clab.placement.get(n) === t.machine);
            out.push(`  ${t.path}: ${nodes.length} nodes (${nodes.join(", ")})`);
          }
          if (clab.mtu !== null) {
            out.push(
              `${clab.crossLinks.length} links cross machines (containerlab vxlan links, VNI ${vniBase}+link)`,
            );
            out.push(...mtuLines(clab.mtu, machines[0]!.family));
            out.push(headroomNote(clab, parseDuration(o.underlayLatency)!, Number(o.dilation)));
          }
          out.push("deploy:");
          if (machines.length === 0)
            out.push(`  sudo containerlab deploy -t ${join(dir, clab.topologies[0]!.path)}`);
          for (const t of clab.topologies)
            if (t.machine !== "")
              out.push(`  on ${t.machine}: sudo containerlab deploy -t ${join(dir, t.path)}`);
          out.push(`control: rocelab attach --endpoints ${join(dir, ENDPOINTS_FILE)}`);
          process.stdout.write(`${out.join("\n")}\n`);
        },
      ),
    );

  addCommonOptions(exp.command("k8s"))
    .description("a clabernetes Topology and ConfigMaps (kubectl apply -f) for the same fabric")
    .option("--namespace <ns>", "Kubernetes namespace of the resources", "default")
    .option(
      "--expose <type>",
      "service type of each device's control port: ClusterIP or LoadBalancer",
      "ClusterIP",
    )
    .action(
      exportAction((topoArg: string, o: CommonOptions & { namespace: string; expose: string }) => {
        const expose = Object.values(ExposeType).find((t) => t === o.expose);
        if (expose === undefined)
          throw new UsageError(`--expose: "${o.expose}" is not ClusterIP or LoadBalancer`);
        const { topo, lab, clab } = buildExport(topoArg, o, [], undefined, 1, true);
        const outDir = openExportDir(o, `rocelab-${lab}-k8s`);
        try {
          writeK8s(outDir, topo, lab, clab, o, expose);
        } finally {
          outDir.close();
        }
      }),
    );
}

function writeK8s(
  outDir: OutputDir,
  topo: Topology,
  lab: string,
  clab: ContainerlabExport,
  o: CommonOptions & { namespace: string },
  expose: ExposeType,
): void {
  const dir = outDir.path;
  const token = ensureToken(outDir);
  const k8s = exportK8s(clab, [...clab.files, { path: TOKEN_FILE, content: `${token}\n` }], {
    namespace: o.namespace,
    expose,
    controlPort: Number(o.controlPort),
  });
  // clabernetes tunnels every link between pods: the pod network is the underlay of all of them.
  const plan = clab.mtu;
  const docs = [...k8s.configMaps, k8s.topology].map((d) => yamlText(d)).join("---\n");
  const file = `${lab}.k8s.yaml`;
  const dilation = Number(o.dilation);
  const endpoints = endpointsFile(topo, { lab, dilation }, clab.devices[0]!.reactionMs, k8s.endpoints);
  writeExport(outDir, [
    ...topologyCopy(topo),
    {
      path: file,
      content: `# rocelab lab ${lab} for clabernetes: kubectl apply -f ${file}\n---\n${docs}`,
    },
    { path: ENDPOINTS_FILE, content: endpoints },
  ]);
  process.stdout.write(
    [
      `wrote ${dir}/${file}: ${k8s.configMaps.length} ConfigMaps and Topology ${lab} (namespace ${o.namespace})`,
      ...mtuLines(plan, "ipv4", "clabernetes carries every link in a VXLAN tunnel between pods: "),
      ...(plan !== null ? [headroomNote(clab, parseDuration(o.underlayLatency)!, Number(o.dilation))] : []),
      `the control token is in the ConfigMaps: whoever reads ConfigMaps in ${o.namespace} can drive the devices`,
      `deploy: kubectl apply -f ${join(dir, file)}`,
      `control: rocelab attach --endpoints ${join(dir, ENDPOINTS_FILE)} (from inside the cluster)`,
    ].join("\n") + "\n",
  );
}
