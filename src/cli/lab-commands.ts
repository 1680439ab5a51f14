import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { execa } from "execa";
import { parseRate } from "../device/units.js";
import { hostAddress, planAddresses } from "../lab/address-plan.js";
import { THRESHOLD_PRESETS, type ThresholdPreset } from "../lab/controller.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import { DEFAULT_CLOCK_MODE } from "../lab/live/clock-plan.js";
import { downLab, LabError, LiveLab, upLab } from "../lab/live/live-lab.js";
import { DEFAULT_LAB, keptLogDir, labNameProblem, nsName } from "../lab/live/names.js";
import { entryPath } from "../lab/live/paths.js";
import { findAllLabs, purgeKeptLogs } from "../lab/live/provision.js";
import { listKeptLogs } from "../lab/live/state.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { NodeKind } from "../lab/topology.js";
import { formatRate } from "../lab/units.js";
import { parseFileMode } from "../runtime/live/safe-files.js";
import { ipToString, parseIp } from "../wire/bytes.js";
import { captureOn } from "./capture-on.js";
import { action, clockOption, dilationOption, UsageError } from "./errors.js";
import { registerIncastCommand } from "./incast-command.js";
import { formatStats, formatStatus } from "./lab-format.js";
import { addMetricsOptions, type MetricsOptions, metricsSettings } from "./metrics-options.js";
import { loadTopologyArg } from "./topology-command.js";
import { formatFlowPaths, traceFlows } from "./trace-flows.js";

const TRACE_TOOL = entryPath("runtime/live/trace-tool.js");

/**
 * Default dilation: emulated time runs 1000× slower than real time. At 1000 a 100 Gb/s link carries
 * 100 Mb/s of real frames (about 3,000 full-size frames a second) and 1 µs of emulated time is 1 ms of real
 * time — the resolution of Node's timers. docs/performance.md has the measurements behind this choice.
 */
export const DEFAULT_DILATION = 1000;

function labName(opts: { name?: string }): string {
  const name = opts.name ?? DEFAULT_LAB;
  const problem = labNameProblem(name);
  if (problem) throw new UsageError(problem);
  return name;
}

export function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) {
    throw new UsageError(`${what} needs root (network namespaces, veth, raw sockets): run it with sudo`, 1);
  }
}

/** "node:ethN" -> {node, port}, checked against the lab's topology. */
export function endpoint(text: string, lab: LiveLab): { node: string; port: number } {
  const m = /^([A-Za-z][\w-]*):eth([1-9]\d*)$/.exec(text);
  if (!m) throw new UsageError(`"${text}" is not NODE:ethN (for example leaf1:eth1)`);
  const node = lab.topology.nodes.find((n) => n.name === m[1]);
  if (!node)
    throw new UsageError(
      `no node ${m[1]} in lab ${lab.name} (nodes: ${lab.topology.nodes.map((n) => n.name).join(", ")})`,
    );
  const port = Number(m[2]);
  if (!node.ports.includes(port))
    throw new UsageError(
      `${m[1]} has no connected eth${port} (ports: ${node.ports.map((p) => `eth${p}`).join(", ")})`,
    );
  return { node: m[1]!, port };
}

export async function withLab<T>(opts: { name?: string }, fn: (lab: LiveLab) => Promise<T>): Promise<T> {
  const lab = await LiveLab.connect(labName(opts)).catch((e: Error) => {
    throw new UsageError(e.message, 1);
  });
  try {
    return await fn(lab);
  } finally {
    await lab.close();
  }
}

function print(json: boolean | undefined, data: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text()}\n`);
}

export function registerLabCommands(program: Command): void {
  const up = program.command("up");
  addMetricsOptions(up);
  up.argument("[topology]", "topology YAML (default: the built-in 2-spine, 2-leaf, 8-host fabric)")
    .description("bring up a live lab: a namespace and a process per device, veth links, real frames")
    .option("--name <name>", "lab name (prefix of everything the lab creates)", DEFAULT_LAB)
    .option(
      "--dilation <n>",
      "emulated time runs N times slower than real time; auto[:N]: start at N (default 1000) and raise it while the machine cannot keep up",
      String(DEFAULT_DILATION),
    )
    .option("--seed <n>", "seed of the devices' random choices", "1")
    .option(
      "--clock <mode>",
      "synced: devices wait for their neighbours, so a busy machine slows the lab instead of changing it; free: each device follows the real clock alone",
      DEFAULT_CLOCK_MODE,
    )
    .action(
      action(
        async (
          topology: string | undefined,
          opts: { name?: string; dilation: string; seed: string; clock: string } & MetricsOptions,
        ) => {
          const name = labName(opts);
          const { dilation, auto } = dilationOption(opts.dilation, DEFAULT_DILATION);
          const clock = clockOption(opts.clock);
          const metrics = metricsSettings(opts);
          // Validate before anything is created.
          const topo = loadTopologyArg(topology, { machine: { dilation, cpus: availableParallelism() } });
          requireRoot("rocelab up");
          const started = Date.now();
          let metricsUrl: string | null = null;
          await upLab({
            lab: name,
            topology: topology ?? "default",
            dilation,
            ...(auto ? { autoDilation: true } : {}),
            seed: Number(opts.seed),
            clock,
            metrics,
            onProgress: (s) => {
              metricsUrl ??= /^Prometheus metrics on (\S+?),? /.exec(s)?.[1] ?? null;
              process.stderr.write(`  ${s}\n`);
            },
          }).catch((e: Error) => {
            throw e instanceof LabError ? new UsageError(e.message, 1) : e;
          });
          const hosts = topo.nodes.filter((n) => n.kind === NodeKind.Host).map((n) => n.name);
          const flag = name === DEFAULT_LAB ? "" : ` --name ${name}`;
          process.stdout.write(
            [
              `lab ${name} is up: ${topo.nodes.length} devices, ${topo.links.length} links, dilation ${dilation}${auto ? " (auto)" : ""} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
              "",
              "look:",
              `  rocelab status${flag}                  devices, links, process health`,
              `  rocelab stats ${topo.nodes[0]!.name}${flag}              counters of one device`,
              `  ip netns exec ${nsName(name, hosts[0] ?? topo.nodes[0]!.name)} ping ${hosts[1] ? ipToString(hostAddress(planAddresses(topo), hosts[1]).ip) : ""}`,
              `  rocelab capture ${topo.nodes[0]!.name}:eth1 -w /tmp/x.pcap --seconds 5${flag}`,
              `  rocelab trace ${hosts[0] ?? ""} ${hosts[hosts.length - 1] ?? ""}${flag}`,
              ...(metricsUrl !== null ? [`  curl ${metricsUrl}                  Prometheus metrics`] : []),
              "break things:",
              `  rocelab inject incast --to ${hosts[hosts.length - 1] ?? ""} --from 4 --size 4MB${flag}`,
              `  rocelab inject link-down ${topo.nodes[0]!.name}:eth1${flag}`,
              "stop:",
              `  rocelab down${flag}`,
            ].join("\n") + "\n",
          );
        },
      ),
    );

  program
    .command("down")
    .description(
      "stop a lab and remove every namespace, interface and process it created (also after a crash)",
    )
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .option(
      "--all",
      "every lab on this machine, and any leftovers of ours (rl-* namespaces, rocelab processes)",
    )
    .option("--purge", `also remove the logs kept after an abnormal end (${keptLogDir("LAB")}/)`)
    .action(
      action(async (opts: { name?: string; all?: boolean; purge?: boolean }) => {
        requireRoot("rocelab down");
        const known = await findAllLabs();
        const labs = opts.all ? known : [labName(opts)];
        let purged = 0;
        if (opts.purge)
          for (const lab of opts.all ? listKeptLogs() : labs)
            if (purgeKeptLogs(lab)) {
              purged++;
              process.stdout.write(`removed the kept logs of lab ${lab} (${keptLogDir(lab)})\n`);
            }
        if (labs.length === 0) {
          if (purged === 0) process.stdout.write("no labs\n");
          return;
        }
        if (!opts.all && !known.includes(labs[0]!)) {
          if (purged > 0) return;
          // Nothing of that name: no state, namespace or process. Say so rather than "is down".
          const others =
            known.length > 0 ? `labs on this machine: ${known.join(", ")}` : "no labs on this machine";
          throw new UsageError(`no lab named "${labs[0]}" exists (${others}): nothing to remove`, 1);
        }
        for (const lab of labs) {
          const r = await downLab(lab, (s) => process.stderr.write(`  ${lab}: ${s}\n`));
          process.stdout.write(
            `lab ${lab} is down (${r.killed} processes stopped, ${r.namespaces} namespaces removed)\n`,
          );
        }
      }),
    );

  program
    .command("status")
    .description("devices, links and process health of a running lab")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .option("--json", "print JSON")
    .action(
      action(async (opts: { name?: string; json?: boolean }) => {
        await withLab(opts, async (lab) => {
          const s = await lab.request<LabStatus>("status");
          print(opts.json, s, () => formatStatus(s, lab.topology));
        });
      }),
    );

  program
    .command("stats")
    .argument("<node>", "a switch or a host")
    .description("counters of one device: mlx5-style on NICs, per port and priority on switches")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .option("--json", "print JSON")
    .option("--all", "also counters that are zero")
    .action(
      action(async (node: string, opts: { name?: string; json?: boolean; all?: boolean }) => {
        await withLab(opts, async (lab) => {
          if (!lab.topology.nodes.some((n) => n.name === node)) {
            throw new UsageError(
              `no node ${node} in lab ${lab.name} (nodes: ${lab.topology.nodes.map((n) => n.name).join(", ")})`,
            );
          }
          const r = await lab.request<{ stats: AnyDeviceStats; health: unknown }>("stats", { node });
          print(opts.json, r, () => formatStats(r.stats, opts.all ?? false));
        });
      }),
    );

  const inject = program.command("inject").description("break things on purpose in a running lab");
  registerIncastCommand(inject);
  for (const [cmd, up] of [
    ["link-down", false],
    ["link-up", true],
  ] as const) {
    inject
      .command(cmd)
      .argument("<endpoint>", "NODE:ethN (either end of the link)")
      .description(up ? "bring a link back" : "take a link down (both ends lose carrier; routes reconverge)")
      .option("--name <name>", "lab name", DEFAULT_LAB)
      .action(
        action(async (text: string, opts: { name?: string }) => {
          await withLab(opts, async (lab) => {
            const { node, port } = endpoint(text, lab);
            await lab.setLink(node, port, up);
            process.stdout.write(`${node}:eth${port} ${up ? "up" : "down"}\n`);
          });
        }),
      );
  }
  inject
    .command("kill")
    .argument("<node>")
    .description("SIGKILL a device process (the supervisor reports it; `inject restart` brings it back)")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(async (node: string, opts: { name?: string }) => {
        await withLab(opts, async (lab) => {
          await lab.kill(node);
          process.stdout.write(`${node} killed\n`);
        });
      }),
    );
  inject
    .command("restart")
    .argument("<node>")
    .description("restart a killed or crashed device process")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(async (node: string, opts: { name?: string }) => {
        await withLab(opts, async (lab) => {
          await lab.restart(node);
          process.stdout.write(`${node} restarted\n`);
        });
      }),
    );
  inject
    .command("udp")
    .description("kernel UDP (dgram-as-promised) from one host to another: lossy traffic sharing the fabric")
    .requiredOption("--from <host>")
    .requiredOption("--to <host>")
    .option("--rate <rate>", "emulated rate (the real rate is divided by the dilation)", "10G")
    .option("--size <bytes>", "datagram payload", "1000")
    .option("--seconds <s>", "real seconds to run (default: until `inject stop`)")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(
        async (opts: {
          from: string;
          to: string;
          rate: string;
          size: string;
          seconds?: string;
          name?: string;
        }) => {
          const rateBps = parseRate(opts.rate);
          if (rateBps === null)
            throw new UsageError(`--rate "${opts.rate}" is not a rate (for example 10G, 500M)`);
          await withLab(opts, async (lab) => {
            const status = await lab.request<LabStatus>("status");
            const durationNs = opts.seconds ? (Number(opts.seconds) * 1e9) / status.dilation : undefined;
            await lab.udp({
              from: opts.from,
              to: opts.to,
              rateBps,
              size: Number(opts.size),
              ...(durationNs ? { durationNs } : {}),
            });
            process.stdout.write(
              `UDP ${opts.from} -> ${opts.to} at ${formatRate(rateBps)}b/s emulated (${formatRate(rateBps / status.dilation)}b/s real)\n`,
            );
          });
        },
      ),
    );
  inject
    .command("stop")
    .description("stop every workload and UDP stream")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(async (opts: { name?: string }) => {
        await withLab(opts, async (lab) => {
          await lab.stopTraffic();
          process.stdout.write("traffic stopped\n");
        });
      }),
    );
  inject
    .command("preset")
    .argument("<preset>", THRESHOLD_PRESETS.join(" | "))
    .description("apply a switch threshold preset (seed 002's table) to every switch")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(async (preset: string, opts: { name?: string }) => {
        if (!(THRESHOLD_PRESETS as readonly string[]).includes(preset)) {
          throw new UsageError(`preset must be one of ${THRESHOLD_PRESETS.join(", ")}`);
        }
        await withLab(opts, async (lab) => {
          await lab.applyPreset(preset as ThresholdPreset);
          process.stdout.write(`preset ${preset} applied to every switch\n`);
        });
      }),
    );

  program
    .command("capture")
    .argument("<endpoint>", "NODE:ethN")
    .description(
      "capture the real frames on a lab port with tcpdump (check the file with `rocelab pcap-check`)",
    )
    .requiredOption("-w, --write <file>", "pcap file to write (a new file, created 0600)")
    .option("--seconds <s>", "how long (real seconds)", "5")
    .option("--force", "replace the file if it exists")
    .option("--mode <octal>", "file mode of the pcap (at most 644)", "600")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(
        async (
          text: string,
          opts: { write: string; seconds: string; name?: string; force?: boolean; mode: string },
        ) => {
          requireRoot("rocelab capture");
          const seconds = Number(opts.seconds);
          if (!(seconds > 0)) throw new UsageError("--seconds takes a positive number");
          const file = { path: opts.write, force: opts.force ?? false, mode: parseFileMode(opts.mode) };
          await withLab(opts, async (lab) => {
            const { node, port } = endpoint(text, lab);
            const r = await captureOn(lab, node, port, file, seconds);
            process.stdout.write(`${r.packets} frames captured on ${node}:eth${port} into ${opts.write}\n`);
          });
        },
      ),
    );

  program
    .command("trace")
    .argument("[src]", "source host")
    .argument("[dst]", "destination host")
    .description(
      "the ECMP path of one RoCE 5-tuple (TTL-limited UDP 4791 probes answered by the switches), or with --flows the path of every QP of the lab's workloads",
    )
    .option("--sport <port>", "UDP source port of the flow (RoCE uses 49152-65535)", "49152")
    .option("--flows", "trace every workload QP with the source port it uses now")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .option("--json", "print JSON")
    .action(
      action(
        async (
          src: string | undefined,
          dst: string | undefined,
          opts: { sport: string; flows?: boolean; name?: string; json?: boolean },
        ) => {
          requireRoot("rocelab trace");
          await withLab(opts, async (lab) => {
            if (opts.flows) {
              const paths = await traceFlows(lab, trace);
              print(opts.json, paths, () => formatFlowPaths(paths));
              return;
            }
            if (src === undefined || dst === undefined)
              throw new UsageError("trace takes SRC and DST hosts, or --flows");
            const path = await trace(lab, src, dst, Number(opts.sport));
            print(opts.json, path, () => formatTrace(src, dst, Number(opts.sport), path));
          });
        },
      ),
    );
}

export interface TraceHop {
  readonly ttl: number;
  readonly from: string | null;
  /** The switch port that answered, from the lab's address plan. */
  readonly port: string | null;
  readonly rttMs: number | null;
}

export async function trace(lab: LiveLab, src: string, dst: string, sport: number): Promise<TraceHop[]> {
  const topo = await lab
    .request<LabStatus>("status")
    .then((s) => loadTopologyArg(s.topology === "built-in" ? undefined : s.topology, { quiet: true }));
  const plan = planAddresses(topo);
  for (const h of [src, dst]) {
    if (!topo.nodes.some((n) => n.name === h && n.kind === NodeKind.Host))
      throw new UsageError(`${h} is not a host of lab ${lab.name}`);
  }
  if (!(sport >= 1 && sport <= 65535)) throw new UsageError("--sport takes a UDP port 1-65535");
  const { stdout } = await execa("ip", [
    "netns",
    "exec",
    nsName(lab.name, src),
    process.execPath,
    TRACE_TOOL,
    "--lab",
    lab.name,
    "--src",
    ipToString(hostAddress(plan, src).ip),
    "--dst",
    ipToString(hostAddress(plan, dst).ip),
    "--sport",
    String(sport),
  ]);
  const result = JSON.parse(stdout) as { hops: { ttl: number; from: string | null; rttMs: number | null }[] };
  const owner = new Map<number, string>();
  for (const p of plan.ports.values()) owner.set(p.ip, `${p.node}:eth${p.port}`);
  return result.hops.map((h) => ({
    ...h,
    port: h.from === null ? null : (owner.get(parseIp(h.from) ?? 0) ?? null),
  }));
}

function formatTrace(src: string, dst: string, sport: number, hops: readonly TraceHop[]): string {
  const lines = [`trace ${src} -> ${dst}, UDP ${sport} -> 4791 (the ECMP path of this RoCE 5-tuple)`];
  for (const h of hops) {
    if (h.from === null) {
      lines.push(`  ${h.ttl}  ${dst} (destination: RoCE NICs do not answer probes)`);
      break;
    }
    lines.push(`  ${h.ttl}  ${(h.port ?? "?").padEnd(14)} ${h.from.padEnd(12)} ${h.rttMs} ms (real)`);
  }
  return lines.join("\n");
}
