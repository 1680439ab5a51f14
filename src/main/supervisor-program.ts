// A lab's supervisor process, started detached by `rocelab up` (or by a live scenario run):
//   node dist/main/supervisor-main.js --lab NAME --topology FILE|default --dilation N [--seed S] [--int-room BYTES]
//   [--metrics-port P]
// It outlives the command that started it and stops on `rocelab down` (or SIGTERM), removing everything. A
// function, so that the bundle's CommonJS build can start it from V8's code cache (main/code-cache-entry.ts,
// scripts/bundle.mjs CACHED).

import { parseArgs } from "node:util";
import { DEFAULT_CLOCK_MODE, parseClockMode } from "../lab/live/clock-plan.js";
import { METRICS_ARG_OPTIONS, metricsFromArgs } from "../lab/live/metrics-endpoint.js";
import { Supervisor } from "../lab/live/supervisor.js";
import { defaultTopology } from "../scenario/topology.js";
import { loadTopology } from "../scenario/topology-file.js";

/** Runs the supervisor for `argv` (process.argv). */
export function main(argv: readonly string[]): void {
  const { values } = parseArgs({
    args: argv.slice(2),
    options: {
      lab: { type: "string" },
      topology: { type: "string", default: "default" },
      dilation: { type: "string" },
      seed: { type: "string", default: "1" },
      convergence: { type: "string", default: "0" },
      clock: { type: "string", default: DEFAULT_CLOCK_MODE },
      "auto-dilation": { type: "boolean", default: false },
      "int-room": { type: "string", default: "0" },
      ...METRICS_ARG_OPTIONS,
    },
  });
  if (!values.lab || !values.dilation) {
    process.stderr.write("supervisor-main is started by `rocelab up` (--lab, --dilation)\n");
    process.exit(2);
  }
  process.title = `rocelab-${values.lab}-supervisor`;

  const topology = values.topology === "default" ? defaultTopology() : loadTopology(values.topology);
  const supervisor = new Supervisor({
    lab: values.lab,
    topology,
    dilation: Number(values.dilation),
    seed: Number(values.seed),
    convergenceNs: Number(values.convergence),
    clock: parseClockMode(values.clock, "--clock"),
    autoDilation: values["auto-dilation"],
    intRoomBytes: Number(values["int-room"]),
    metrics: metricsFromArgs(values),
  });

  let exiting = false;
  const stop = (code: number): void => {
    if (exiting) return;
    exiting = true;
    void supervisor.shutdown(code !== 0).finally(() => process.exit(code));
  };
  process.on("SIGTERM", () => stop(0));
  process.on("SIGINT", () => stop(0));
  process.on("uncaughtException", (e) => {
    process.stderr.write(`supervisor: ${e.stack ?? e}\n`);
    stop(1);
  });

  supervisor.start().catch((e: Error) => {
    process.stderr.write(`supervisor: ${e.stack ?? e.message}\n`);
    stop(1);
  });
}
