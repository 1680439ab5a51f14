// `rocelab dilation [N|auto]`: show or change a running lab's dilation. A change takes effect 50 ms (real)
// after the supervisor receives it, at the same real instant in every device (runtime/realtime/dilation.ts);
// emulated time stays continuous. `auto` lets the supervisor raise it while the machine cannot keep up and
// lower it back to the lab's starting dilation when it can (lab/live/auto-dilation.ts).

import type { Command } from "commander";
import { formatDuration } from "../device/units.js";
import { parseDilationOption } from "../lab/live/auto-dilation.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { action, UsageError } from "./errors.js";
import { LAB_NAME_HELP, withLab } from "./with-lab.js";

export function registerDilationCommand(program: Command): void {
  program
    .command("dilation")
    .argument("[value]", "N (a fixed dilation, >= 1) or auto; none: show the current one")
    .description("show or change a running lab's dilation (emulated time runs N times slower than real time)")
    .option("--name <name>", LAB_NAME_HELP)
    .action(
      action(async (value: string | undefined, opts: { name?: string }) => {
        await withLab(opts, async (lab) => {
          if (value === undefined) {
            const s = await lab.request<LabStatus>("status");
            process.stdout.write(`lab ${s.lab}: dilation ${s.dilation}${s.dilationAuto ? " (auto)" : ""}\n`);
            return;
          }
          let arg: number | "auto";
          if (value.trim() === "auto") arg = "auto";
          else {
            try {
              arg = parseDilationOption(value, 1).dilation;
            } catch (e) {
              throw new UsageError((e as Error).message.replace("--dilation", "dilation"));
            }
          }
          const { dilation: r } = await lab.apply({ kind: "dilation", dilation: arg });
          if (r === undefined) throw new Error("the lab did not say what dilation it runs at");
          process.stdout.write(
            r.auto
              ? `lab ${lab.name}: dilation auto (now ${r.value}; raised while the machine cannot keep up)\n`
              : `lab ${lab.name}: dilation ${r.value} from emulated ${formatDuration(r.atNs)} on\n`,
          );
        });
      }),
    );
}
