import { availableParallelism } from "node:os";
import type { Command } from "commander";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import { DEFAULT_CLOCK_MODE, DEFAULT_DILATION } from "../lab/live/clock-plan.js";
import { downLab, LabError, upLab } from "../lab/live/live-lab.js";
import { DEFAULT_LAB, keptLogDir } from "../lab/live/names.js";
import { findAllLabs, interfaceMtu, purgeKeptLogs } from "../lab/live/provision.js";
import { listKeptLogs } from "../lab/live/state.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { trace, traceFlows } from "../lab/live/trace.js";
import { formatOnLoad, lintTopology } from "../lint/lint.js";
import { parseFileMode } from "../runtime/realtime/safe-files.js";
import { describeAction } from "../scenario/action.js";
import { NodeKind } from "../scenario/topology.js";
import { CaptureTime, captureOn } from "./capture-on.js";
import { action, clockOption, dilationOption, UsageError } from "./errors.js";
import { parseIntRoom } from "./int-room-option.js";
import { formatStats, formatStatus, hostNames } from "./lab-format.js";
import { besideGuard, fitNow, guardMachine } from "./machine-guard.js";
import { addMetricsOptions, type MetricsOptions, metricsSettings } from "./metrics-options.js";
import { loadTopologyArg } from "./topology-command.js";
import { formatFlowPaths, formatTrace } from "./trace-format.js";
import { endpoint, LAB_NAME_HELP, labName, print, requireRoot, withLab } from "./with-lab.js";

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
    .option("--force", "start a lab even when its CPU or memory estimate exceeds this machine")
    .option(
      "--clock <mode>",
      "synced: devices wait for their neighbours, so a busy machine slows the lab instead of changing it; free: each device follows the real clock alone",
      DEFAULT_CLOCK_MODE,
    )
    .option(
      "--int-room [hops]",
      "size the ports for HPCC's in-band telemetry up front (HOPS hop records, hpcc.maxHops: 1-15, default 5), so that `rocelab set hosts cc: hpcc` works later; without it only the starting settings' INT fits (docs/int.md)",
    )
    .action(
      action(
        async (
          topology: string | undefined,
          opts: {
            name?: string;
            dilation: string;
            seed: string;
            clock: string;
            force?: boolean;
            intRoom?: string | boolean;
          } & MetricsOptions,
        ) => {
          const name = labName(opts);
          const { dilation, auto } = dilationOption(opts.dilation, DEFAULT_DILATION);
          const clock = clockOption(opts.clock);
          const intRoom = parseIntRoom(opts.intRoom);
          const metrics = metricsSettings(opts);
          // Validate before anything is created.
          const topo = loadTopologyArg(topology, { quiet: true });
          const fit = fitNow(topo, dilation, auto);
          const machine = { dilation, cpus: availableParallelism() };
          process.stderr.write(formatOnLoad(besideGuard(lintTopology(topo, machine), fit)));
          guardMachine(fit, opts.force ?? false);
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
            ...(intRoom !== null ? { intRoomBytes: intRoom.bytes } : {}),
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
              ...(intRoom !== null
                ? [
                    `ports sized for ${intRoom.bytes} bytes of INT per data packet (MTU ${interfaceMtu(topo.mtu, intRoom.bytes)}): HPCC with up to ${intRoom.hops} hop records fits (rocelab set hosts cc: hpcc${flag})`,
                  ]
                : []),
              "",
              "look:",
              `  rocelab status${flag}                  devices, links, process health`,
              `  rocelab stats ${topo.nodes[0]!.name}${flag}              counters of one device`,
              `  rocelab exec ${hosts[0] ?? topo.nodes[0]!.name}${flag} -- ping ${hosts[hosts.length - 1] ?? ""}          a command in a node's namespace (names resolve)`,
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
    .option("--name <name>", LAB_NAME_HELP)
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
    .option("--name <name>", LAB_NAME_HELP)
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
    .command("clear-counters")
    .argument("[nodes...]", "the devices (default: every running device)")
    .description(
      "zero the counters of devices in a running lab (gauges keep their level), as `reset counters` does",
    )
    .option("--name <name>", LAB_NAME_HELP)
    .action(
      action((nodes: string[], opts: { name?: string }) =>
        withLab(opts, async (lab) => {
          const a = { kind: "clear-counters", nodes: nodes.length > 0 ? nodes : "all" } as const;
          await lab.apply(a);
          process.stdout.write(`${describeAction(a)}\n`);
        }),
      ),
    );

  program
    .command("stats")
    .argument("<node>", "a switch or a host")
    .description("counters of one device: mlx5-style on NICs, per port and priority on switches")
    .option("--name <name>", LAB_NAME_HELP)
    .option("--json", "print JSON")
    .option(
      "--all",
      "also counters that are zero (settings that are not configured stay out; --json has them)",
    )
    .action(
      action(async (node: string, opts: { name?: string; json?: boolean; all?: boolean }) => {
        await withLab(opts, async (lab) => {
          if (!lab.topology.nodes.some((n) => n.name === node)) {
            throw new UsageError(
              `no node ${node} in lab ${lab.name} (nodes: ${lab.topology.nodes.map((n) => n.name).join(", ")})`,
            );
          }
          const r = await lab.request<{ stats: AnyDeviceStats; health: unknown }>("stats", { node });
          print(opts.json, r, () => formatStats(r.stats, opts.all ?? false, hostNames(lab.topology)));
        });
      }),
    );

  program
    .command("capture")
    .argument("<endpoint>", "NODE:ethN")
    .description(
      "capture the real frames on a lab port with tcpdump into pcapng, stamped with the lab's emulated time (check the file with `rocelab pcap-check`)",
    )
    .requiredOption("-w, --write <file>", "pcapng file to write (a new file, created 0600)")
    .option(
      "--time <clock>",
      "emulated: each frame stamped when it left or arrived on the emulated wire; real: the kernel's wall clock",
      CaptureTime.Emulated,
    )
    .option("--seconds <s>", "how long (real seconds)", "5")
    .option("--force", "replace the file if it exists")
    .option("--mode <octal>", "file mode of the pcap (at most 644)", "600")
    .option("--name <name>", LAB_NAME_HELP)
    .action(
      action(
        async (
          text: string,
          opts: {
            write: string;
            seconds: string;
            name?: string;
            force?: boolean;
            mode: string;
            time: string;
          },
        ) => {
          requireRoot("rocelab capture");
          const seconds = Number(opts.seconds);
          if (!(seconds > 0)) throw new UsageError("--seconds takes a positive number");
          const time = opts.time as CaptureTime;
          if (time !== CaptureTime.Emulated && time !== CaptureTime.Real)
            throw new UsageError(`--time takes emulated or real, not "${opts.time}"`);
          const file = { path: opts.write, force: opts.force ?? false, mode: parseFileMode(opts.mode) };
          await withLab(opts, async (lab) => {
            const { node, port } = endpoint(text, lab);
            const r = await captureOn(lab, node, port, file, seconds, time);
            process.stdout.write(
              `${r.packets} frames captured on ${node}:eth${port} into ${opts.write} (${r.format})\n${r.timestamps}\n`,
            );
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
    .option("--name <name>", LAB_NAME_HELP)
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
            const topo = await lab
              .request<LabStatus>("status")
              .then((s) =>
                loadTopologyArg(s.topology === "built-in" ? undefined : s.topology, { quiet: true }),
              );
            if (opts.flows) {
              const paths = await traceFlows(lab, topo);
              print(opts.json, paths, () => formatFlowPaths(paths));
              return;
            }
            if (src === undefined || dst === undefined)
              throw new UsageError("trace takes SRC and DST hosts, or --flows");
            const path = await trace(lab, topo, src, dst, Number(opts.sport)).catch((e: Error) => {
              throw new UsageError(e.message);
            });
            print(opts.json, path, () => formatTrace(src, dst, Number(opts.sport), path));
          });
        },
      ),
    );
}
