// `rocelab pcap-check FILE [--quiet]`: checks every frame of a classic pcap capture with the project's own
// decoders (checksums, lengths, RoCE ICRC, CNP and PFC rules) and exits 1 when anything is wrong, so a
// script or CI job can gate on it. Works on any Ethernet capture: the frame catalog, or a capture of the
// live lab.

import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { FRAME_KINDS } from "../verify/frame-kind.js";
import { type CaptureReport, checkCapture } from "../verify/pcap-check.js";
import { describeIntTally } from "../verify/pcap-check-int.js";

/**
 * Where a command writes and how it reports its exit status. The default goes to the process; tests pass
 * their own to capture both without ending the test process.
 */
export interface CommandIo {
  /** One line of normal output (a newline is added). */
  readonly out: (line: string) => void;
  /** One line of error output (a newline is added). */
  readonly err: (line: string) => void;
  /** Records the exit status; the process exits with it once the command is done. */
  readonly setExitCode: (code: number) => void;
}

/** Writes to stdout and stderr and sets `process.exitCode` (never `process.exit`, so output is flushed). */
export const processIo: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

/**
 * A file-system error as a short reason without the path or the stack (the caller names the file):
 * "ENOENT: no such file or directory, open '/x'" becomes "no such file or directory", and
 * "EISDIR: illegal operation on a directory, read" becomes "illegal operation on a directory".
 */
export function fsErrorReason(e: unknown): string {
  if (e instanceof Error) {
    const m = /^[A-Z]+: (.*?)(?:, \w+(?: '.*')?)?$/.exec(e.message);
    return m ? m[1]! : e.message;
  }
  return String(e);
}

/** The summary line: frames, per-kind counts (kinds with none left out), problems. */
export function summarize(report: CaptureReport): string {
  const counts = FRAME_KINDS.filter((k) => report.counts[k] > 0)
    .map((k) => `${k} ${report.counts[k]}`)
    .join(", ");
  const problems = report.problems.length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const int = describeIntTally(report.int);
  return `${plural(report.frames, "frame")} checked${counts ? ` (${counts})` : ""}; ${problems === 0 ? "no problems" : plural(problems, "problem")}${int ? `; ${int}` : ""}`;
}

/**
 * Runs the check on `file`; returns the exit status (0 clean, 1 problems or an unreadable file). Prints one
 * line per problem (`FILE: frame N: ...`) and, unless `quiet`, the summary.
 */
export function runPcapCheck(file: string, quiet: boolean, io: CommandIo): number {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    io.err(`rocelab pcap-check: cannot read ${file}: ${fsErrorReason(e)}`);
    return 1;
  }
  const report = checkCapture(bytes);
  if (report.fileError) {
    io.err(`rocelab pcap-check: ${file} is not a capture this checker can read: ${report.fileError.message}`);
    return 1;
  }
  for (const p of report.problems) io.out(`${file}: frame ${p.frame}: ${p.message}`);
  if (!quiet) io.out(`${file}: ${summarize(report)}`);
  return report.problems.length > 0 ? 1 : 0;
}

/** Registers `pcap-check FILE [--quiet]` on `program`. */
export function registerPcapCheckCommand(program: Command, io: CommandIo = processIo): void {
  program
    .command("pcap-check")
    .description(
      "check every frame of a pcap capture with rocelab's own decoders (IPv4/UDP/ICMP checksums and lengths, " +
        "RoCE BTH and ICRC, CNP, PFC, VXLAN, ARP, LLDP); exit status 1 on any problem",
    )
    .argument("<file>", "classic pcap capture with Ethernet frames")
    .option("-q, --quiet", "print only problems, no summary")
    .action((file: string, opts: { quiet?: boolean }) => {
      io.setExitCode(runPcapCheck(file, opts.quiet ?? false, io));
    });
}
