// `rocelab events [--json] [--name LAB]`: a running lab's telemetry as it happens, a snapshot first; JSON
// lines with --json (lab/event-stream.ts), one line of text per event without.

import type { Command } from "commander";
import { formatDuration } from "../device/units.js";
import { type EventSink, eventClass, jsonLines, streamEvents } from "../lab/event-stream.js";
import type { LabEvent, LabSnapshot } from "../lab/lab.js";
import { LiveLab } from "../lab/live/live-lab.js";
import { describeEvent } from "../tui/event-text.js";
import { action, UsageError } from "./errors.js";
import { LAB_NAME_HELP, labName } from "./with-lab.js";

function textLine(e: LabEvent): string {
  return `${formatDuration(e.t).padStart(10)}  ${e.device.padEnd(8)} ${eventClass(e).padEnd(10)} ${describeEvent(e)}`;
}

export function registerEventsCommand(program: Command): void {
  program
    .command("events")
    .description(
      "stream a running lab's events: a snapshot, then pauses, ECN marks, drops, failures and threshold changes (Ctrl-C stops)",
    )
    .option("--name <name>", LAB_NAME_HELP)
    .option("--json", "JSON lines: one snapshot object, then one object per event")
    .action(
      action(async (opts: { name?: string; json?: boolean }) => {
        const lab = await LiveLab.connect(labName(opts)).catch((e: Error) => {
          throw new UsageError(e.message, 1);
        });
        const out = (line: string) => process.stdout.write(`${line}\n`);
        await new Promise<void>((resolve) => {
          let stop = (): void => {};
          const end = (): void => {
            stop();
            void lab.close().then(resolve);
          };
          process.once("SIGINT", end);
          process.once("SIGTERM", end);
          const sink: EventSink = opts.json
            ? jsonLines(out)
            : { snapshot: (s) => out(snapshotText(s)), event: (e) => out(textLine(e)) };
          void streamEvents(
            lab,
            sink,
            (reason) => {
              process.stderr.write(`rocelab: ${reason}\n`);
              end();
            },
            () => lab.subscribe(),
          ).then((s) => {
            stop = s;
          });
        });
      }),
    );
}

function snapshotText(s: LabSnapshot): string {
  const running = s.devices.filter((d) => d.status === "running").length;
  return `lab ${s.lab}: ${s.status} at ${formatDuration(s.now)} emulated, ${running}/${s.devices.length} devices running`;
}
