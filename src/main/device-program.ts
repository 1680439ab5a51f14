// A live device process: `node dist/main/device-main.js --lab NAME --node NODE`, started by the lab
// supervisor inside the node's network namespace with an IPC channel. It waits for its configuration on
// that channel, then runs the device (device-runtime.ts). A function, so that the bundle's CommonJS build
// can start it from V8's code cache (main/code-cache-entry.ts, scripts/bundle.mjs CACHED).

import { parseArgs } from "node:util";
import { IpcChannel } from "../runtime/realtime/channel.js";
import { DeviceRuntime } from "../runtime/realtime/device-runtime.js";

/** Runs the device process for `argv` (process.argv). */
export function main(argv: readonly string[]): void {
  const { values } = parseArgs({
    args: argv.slice(2),
    options: { lab: { type: "string" }, node: { type: "string" } },
  });
  if (!values.lab || !values.node || !process.send) {
    process.stderr.write(
      "device-main is started by the rocelab supervisor (--lab, --node and an IPC channel)\n",
    );
    process.exit(2);
  }
  process.title = `rocelab-${values.lab}-${values.node}`;

  const runtime = new DeviceRuntime(new IpcChannel());
  process.on("SIGTERM", () => runtime.shutdown(0));
}
