// `rocelab run --workers N` (N > 1) runs in a process whose V8 collector works on the thread that
// allocates (`--single-threaded-gc`, a V8 flag: no concurrent marking, parallel scavenging or sweeping on
// helper threads). The workers of a parallel simulation already keep every core busy; V8's helper
// threads then take a core from a worker for a few milliseconds at a time, and every other worker waits
// for it at the end of the window (docs/parallel-sim.md, "Cost"). The flag only takes effect when the
// process starts (setting it at run time aborts V8), so the command runs itself again with it.

import { constants } from "node:os";
import { execa } from "execa";

export const SINGLE_THREADED_GC = "--single-threaded-gc";

/** Whether this process was started with V8's single-threaded collector. */
export function hasSingleThreadedGc(execArgv: readonly string[] = process.execArgv): boolean {
  return execArgv.includes(SINGLE_THREADED_GC);
}

/** Whether `rocelab run` with these options must run itself again with the flag first. */
export function needsGcRerun(
  opts: { readonly runtime: string; readonly workers: number },
  execArgv: readonly string[] = process.execArgv,
): boolean {
  return opts.runtime === "sim" && opts.workers > 1 && !hasSingleThreadedGc(execArgv);
}

/** The command line that runs this same command again with the flag: [program, ...arguments]. */
export function rerunCommand(
  execPath: string = process.execPath,
  execArgv: readonly string[] = process.execArgv,
  argv: readonly string[] = process.argv,
): [string, string[]] {
  return [execPath, [SINGLE_THREADED_GC, ...execArgv, ...argv.slice(1)]];
}

/**
 * Runs this same command again with the flag, on this terminal, with `extra` arguments after its own (a
 * decision the child must not take again, such as `--workers auto`'s); resolves with its exit status.
 */
export async function rerunWithSingleThreadedGc(extra: readonly string[] = []): Promise<number> {
  const [program, args] = rerunCommand(process.execPath, process.execArgv, [...process.argv, ...extra]);
  const r = await execa(program, args, { stdio: "inherit", reject: false });
  if (r.exitCode !== undefined) return r.exitCode;
  const signal = r.signal === undefined ? undefined : constants.signals[r.signal];
  return signal === undefined ? 1 : 128 + signal;
}
