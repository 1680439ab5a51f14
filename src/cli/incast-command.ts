// `rocelab inject incast`: an N-to-1 incast of RDMA WRITEs on a running lab, and with --wait the flows'
// completion (each sender's FCT and goodput), so a script knows the bytes are there before it reads counters.

import type { Command } from "commander";
import { formatDuration, formatRate, formatSize, parseSize } from "../device/units.js";
import type { FlowReport } from "../lab/flow-report.js";
import { LabError } from "../lab/live/live-lab.js";
import { waitForWorkload } from "../lab/workload-wait.js";
import { incastProblem } from "../scenario/incast-check.js";
import { action, UsageError } from "./errors.js";
import { LAB_NAME_HELP, withLab } from "./with-lab.js";

/** The default limit of --wait, in real seconds. */
export const DEFAULT_WAIT_S = 120;

export function registerIncastCommand(inject: Command): void {
  inject
    .command("incast")
    .description("N-to-1 incast of RDMA WRITEs in the lossless class")
    .requiredOption("--to <host>", "the receiver")
    .option("--from <n>", "how many senders (the first N other hosts)", "4")
    .option("--size <bytes>", "bytes per sender", "4MB")
    .option("--qps <n>", "QPs per sender", "1")
    .option(
      "--wait [seconds]",
      `wait until every WRITE completed and print each flow's FCT (exit 1 if not within the limit, default ${DEFAULT_WAIT_S} real s)`,
    )
    .option("--name <name>", LAB_NAME_HELP)
    .action(
      action(
        async (opts: {
          to: string;
          from: string;
          size: string;
          qps: string;
          wait?: string | true;
          name?: string;
        }) => {
          const bytes = parseSize(opts.size);
          if (bytes === null || bytes <= 0)
            throw new UsageError(`--size "${opts.size}" is not a size (for example 4MB, 512KiB)`);
          const from = Number(opts.from);
          if (!Number.isInteger(from) || from < 1)
            throw new UsageError("--from takes a number of senders >= 1");
          const qps = Number(opts.qps);
          if (!Number.isInteger(qps) || qps < 1 || qps > 256)
            throw new UsageError("--qps takes a number of QPs per sender from 1 to 256");
          const waitS =
            opts.wait === undefined ? null : opts.wait === true ? DEFAULT_WAIT_S : Number(opts.wait);
          if (waitS !== null && !(Number.isFinite(waitS) && waitS > 0))
            throw new UsageError(`--wait "${opts.wait}" is not a number of real seconds > 0`);
          await withLab(opts, async (lab) => {
            // The same check as a scenario's incast step: the lab's own hosts.
            const hosts = lab.topology.nodes.filter((n) => n.kind === "host").map((n) => n.name);
            const why = incastProblem(hosts, opts.to, from);
            if (why) throw new UsageError(`--to ${opts.to} --from ${from}: ${why}`);
            const { workload: name = "incast" } = await lab.apply({
              kind: "incast",
              to: opts.to,
              from,
              bytes,
              qps,
            });
            process.stdout.write(`${name}: ${from} senders x ${formatSize(bytes)} -> ${opts.to}\n`);
            if (waitS === null) return;
            const p = await waitForWorkload(() => lab.request<FlowReport[]>("flows"), name, {
              timeoutMs: waitS * 1000,
            });
            for (const f of p.flows) process.stdout.write(`  ${formatFlow(f)}\n`);
            if (!p.done)
              throw new LabError(
                `${name}: ${p.completed} of ${p.flows.length} flows completed within ${waitS} real s (the lab may be slow: rocelab status shows its clock)`,
              );
            if (p.failed > 0) {
              const failed = p.flows.filter((f) => f.outcome === "failed");
              throw new LabError(
                `${name}: ${p.failed} of ${p.flows.length} flows failed: ${failed.map((f) => `${f.src} -> ${f.dst} qp ${f.qp} ${f.error}`).join("; ")}`,
              );
            }
            process.stdout.write(`${name}: all ${p.flows.length} flows completed\n`);
          });
        },
      ),
    );
}

function formatFlow(f: FlowReport): string {
  const what = `${f.src} -> ${f.dst} qp ${f.qp} ${formatSize(f.bytes)}`;
  if (f.outcome === "failed") return `${what}: FAILED (${f.error}), ${f.retransmits} retransmits`;
  if (f.fctNs === null) return `${what}: not completed`;
  const goodput = f.goodputBps === null ? "" : `, ${formatRate(f.goodputBps)}`;
  return `${what}: FCT ${formatDuration(f.fctNs)}${goodput}, ${f.retransmits} retransmits`;
}
