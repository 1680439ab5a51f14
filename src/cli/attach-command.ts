// Devices rocelab did not start: `rocelab device-config` writes a device file per node, `rocelab device`
// (what bin/device-entrypoint runs, in a container or any namespace) runs one device from its file with a
// socket control channel, and `rocelab attach --endpoints FILE` connects the lab's control plane to those
// devices, so status, stats, inject, events and the TUI work on them (docs/attach.md).

import type { Command } from "commander";
import { DEFAULT_DILATION } from "../lab/live/clock-plan.js";
import {
  DEFAULT_DEVICE_CONTROL,
  EntryError,
  entryOptions,
  runDeviceEntry,
} from "../lab/live/device-entry.js";
import { deviceFiles, writeDeviceFiles } from "../lab/live/device-file.js";
import { PrepareError } from "../lab/live/device-prepare.js";
import { loadEndpoints } from "../lab/live/endpoints-file.js";
import { attachLab, LabError } from "../lab/live/live-lab.js";
import { DEFAULT_LAB, labNameProblem } from "../lab/live/names.js";
import { MAX_DILATION, MIN_DILATION } from "../runtime/realtime/dilation.js";
import { OutputDir } from "../runtime/realtime/safe-files.js";
import { action, UsageError } from "./errors.js";
import { addMetricsOptions, type MetricsOptions, metricsSettings } from "./metrics-options.js";
import { loadTopologyArg } from "./topology-command.js";

/** Wall-clock now in UNIX ns (for `--epoch now`). */
export function unixNowNs(): string {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
}

function labArg(name: string): string {
  const problem = labNameProblem(name);
  if (problem) throw new UsageError(problem);
  return name;
}

export function registerAttachCommands(program: Command): void {
  program
    .command("device-config")
    .argument("[topology]", "topology YAML (default: the built-in fabric)")
    .description(
      "write one device file per node (DIR/NODE.json) for the device entrypoint (bin/device-entrypoint)",
    )
    .requiredOption("--out <dir>", "directory to write the files into (a new or empty one)")
    .option("--force", "write into --out even if it holds files")
    .option("--lab <name>", "lab name the devices carry", DEFAULT_LAB)
    .option(
      "--dilation <n>",
      "emulated time runs N times slower than real time (fixed)",
      String(DEFAULT_DILATION),
    )
    .option("--seed <n>", "seed of the devices' random choices", "1")
    .option(
      "--reaction-ms <ms>",
      "real ms a device may take to react to a PFC pause, which the headroom covers (free-running devices on busy hosts want more than the local lab's 10)",
      "10",
    )
    .option(
      "--epoch <when>",
      "emulated time 0 as wall-clock UNIX ns, or `now`: devices on hosts whose clocks agree (NTP, PTP) then agree on emulated time",
    )
    .action(
      action(
        (
          topology: string | undefined,
          opts: {
            out: string;
            lab: string;
            dilation: string;
            seed: string;
            reactionMs: string;
            epoch?: string;
            force?: boolean;
          },
        ) => {
          const dilation = Number(opts.dilation);
          if (!(dilation >= MIN_DILATION && dilation <= MAX_DILATION))
            throw new UsageError(`--dilation takes a number from ${MIN_DILATION} to ${MAX_DILATION}`);
          const seed = Number(opts.seed);
          if (!Number.isInteger(seed)) throw new UsageError("--seed takes an integer");
          const reactionMs = Number(opts.reactionMs);
          if (!(reactionMs > 0 && reactionMs <= 10_000))
            throw new UsageError("--reaction-ms takes a number of ms above 0 (at most 10000)");
          let epochUnixNs: string | undefined;
          if (opts.epoch === "now") epochUnixNs = unixNowNs();
          else if (opts.epoch !== undefined) {
            if (!/^\d{1,20}$/.test(opts.epoch)) throw new UsageError("--epoch takes UNIX time in ns, or now");
            epochUnixNs = opts.epoch;
          }
          const topo = loadTopologyArg(topology);
          const files = deviceFiles(topo, {
            lab: labArg(opts.lab),
            dilation,
            seed,
            reactionMs,
            ...(epochUnixNs !== undefined ? { epochUnixNs } : {}),
          });
          const out = OutputDir.create(opts.out, { force: opts.force ?? false, flag: "--out" });
          let paths: string[];
          try {
            paths = writeDeviceFiles(out, files);
          } finally {
            out.close();
          }
          process.stdout.write(
            `${paths.length} device files in ${opts.out}: ${files.map((f) => f.node).join(", ")}\n`,
          );
        },
      ),
    );

  program
    .command("device")
    .description(
      "run ONE device (switch or NIC) from its device file on this namespace's interfaces, controlled over a socket (what bin/device-entrypoint runs)",
    )
    .option(
      "--config <file>",
      "device file (env ROCELAB_DEVICE_CONFIG, or its text in ROCELAB_DEVICE_CONFIG_JSON)",
    )
    .option(
      "--control <endpoint>",
      `tcp://HOST:PORT or unix:PATH (env ROCELAB_CONTROL; default ${DEFAULT_DEVICE_CONTROL})`,
    )
    .option(
      "--token-file <file>",
      "shared secret controllers must prove (env ROCELAB_CONTROL_TOKEN_FILE; needed on TCP)",
    )
    .option("--epoch-unix-ns <ns>", "emulated time 0 as wall-clock UNIX ns (env ROCELAB_EPOCH_UNIX_NS)")
    .option("--no-prepare", "leave the interfaces as they are (env ROCELAB_DEVICE_PREPARE=0)")
    .option(
      "--wait-ports <s>",
      "seconds to wait for the ports to appear (env ROCELAB_WAIT_PORTS; default 60)",
    )
    .action(
      action(
        async (opts: {
          config?: string;
          control?: string;
          tokenFile?: string;
          epochUnixNs?: string;
          prepare: boolean;
          waitPorts?: string;
        }) => {
          let entry: ReturnType<typeof entryOptions>;
          try {
            entry = entryOptions(opts);
          } catch (e) {
            throw e instanceof EntryError ? new UsageError(e.message) : e;
          }
          await runDeviceEntry(entry).catch((e: Error) => {
            throw e instanceof PrepareError ? new UsageError(e.message, 1) : e;
          });
        },
      ),
    );

  const attach = program
    .command("attach")
    .description(
      "connect to devices rocelab did not start (containerlab, Kubernetes, bin/device-entrypoint) and serve them as a lab: status, stats, inject, events and tui --name work on them",
    )
    .requiredOption(
      "--endpoints <file>",
      "YAML/JSON: the topology and each device's control endpoint (docs/attach.md)",
    )
    .option("--name <name>", "name of the attachment (default: the endpoints file's lab, else rocelab)");
  addMetricsOptions(attach, null).action(
    action(async (opts: { endpoints: string; name?: string } & MetricsOptions) => {
      const endpoints = loadEndpoints(opts.endpoints);
      const name = labArg(opts.name ?? endpoints.lab ?? DEFAULT_LAB);
      const metrics = metricsSettings(opts, null);
      await attachLab({
        lab: name,
        endpoints: opts.endpoints,
        metrics,
        onProgress: (s) => process.stderr.write(`  ${s}\n`),
      }).catch((e: Error) => {
        throw e instanceof LabError ? new UsageError(e.message, 1) : e;
      });
      const flag = name === DEFAULT_LAB ? "" : ` --name ${name}`;
      process.stdout.write(
        [
          `attached to ${endpoints.devices.length} devices of ${endpoints.topology.name} as lab ${name}`,
          `  rocelab status${flag}     rocelab stats NODE${flag}     rocelab tui --attach ${opts.endpoints}`,
          `  rocelab down${flag}       (closes the attachment; the devices run on)`,
        ].join("\n") + "\n",
      );
    }),
  );
}
