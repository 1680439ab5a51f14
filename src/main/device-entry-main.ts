// `bin/device-entrypoint [flags]` runs this: the device entrypoint (device-entry.ts) with its settings from
// flags and environment. Exit status 2: a setting or the device file is wrong (the message says which);
// 1: the device could not start (its ports, its control port).

import { parseArgs } from "node:util";
import { EntryError, entryOptions, runDeviceEntry } from "../lab/live/device-entry.js";
import { PrepareError } from "../lab/live/device-prepare.js";
import { ConfigError } from "../scenario/config-error.js";

const OPTIONS = {
  config: { type: "string" },
  control: { type: "string" },
  "token-file": { type: "string" },
  "epoch-unix-ns": { type: "string" },
  "no-prepare": { type: "boolean" },
  "wait-ports": { type: "string" },
} as const;
const flags = (() => {
  try {
    return parseArgs({ options: OPTIONS, allowPositionals: false }).values;
  } catch (e) {
    process.stderr.write(`device-entrypoint: ${(e as Error).message}\n`);
    process.exit(2);
  }
})();

try {
  const opts = entryOptions({
    ...(flags.config !== undefined ? { config: flags.config } : {}),
    ...(flags.control !== undefined ? { control: flags.control } : {}),
    ...(flags["token-file"] !== undefined ? { tokenFile: flags["token-file"] } : {}),
    ...(flags["epoch-unix-ns"] !== undefined ? { epochUnixNs: flags["epoch-unix-ns"] } : {}),
    ...(flags["no-prepare"] ? { prepare: false } : {}),
    ...(flags["wait-ports"] !== undefined ? { waitPorts: flags["wait-ports"] } : {}),
  });
  await runDeviceEntry(opts);
} catch (e) {
  const input = e instanceof EntryError || e instanceof ConfigError;
  const known = input || e instanceof PrepareError;
  process.stderr.write(
    `device-entrypoint: ${known ? (e as Error).message : ((e as Error).stack ?? String(e))}\n`,
  );
  process.exit(input ? 2 : 1);
}
