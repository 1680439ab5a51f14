// Entry point of an attachment, started detached by `rocelab attach` (live-lab.ts attachLab):
//   node dist/main/attach-main.js --lab NAME --endpoints FILE [--metrics-port P]
// It serves the lab's control socket for devices it did not start (attach.ts) until `rocelab down`
// (or SIGTERM), then closes its connections; the devices run on.

import { parseArgs } from "node:util";
import { AttachedLab } from "../lab/live/attach.js";
import { loadEndpoints } from "../lab/live/endpoints-file.js";
import { METRICS_ARG_OPTIONS, metricsFromArgs } from "../lab/live/metrics-endpoint.js";

const { values } = parseArgs({
  options: {
    lab: { type: "string" },
    endpoints: { type: "string" },
    ...METRICS_ARG_OPTIONS,
  },
});
if (!values.lab || !values.endpoints) {
  process.stderr.write("attach-main is started by `rocelab attach` (--lab, --endpoints)\n");
  process.exit(2);
}
process.title = `rocelab-${values.lab}-attach`;

const lab = new AttachedLab(values.lab, loadEndpoints(values.endpoints), metricsFromArgs(values));
let exiting = false;
const stop = (code: number): void => {
  if (exiting) return;
  exiting = true;
  void lab.shutdown(code !== 0).finally(() => process.exit(code));
};
process.on("SIGTERM", () => stop(0));
process.on("SIGINT", () => stop(0));
process.on("uncaughtException", (e) => {
  process.stderr.write(`attach: ${e.stack ?? e}\n`);
  stop(1);
});
lab.start().catch((e: Error) => {
  process.stderr.write(`attach: ${e.message}\n`);
  stop(1);
});
