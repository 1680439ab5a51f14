// Runs rocelab commands in this process (a commander program with the given commands registered), much
// faster than the binary: exit status and what they wrote on stdout and stderr.
import { Command } from "commander";

export interface HereResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function rocelabHere(
  register: readonly ((program: Command) => void)[],
  args: readonly string[],
): Promise<HereResult> {
  const program = new Command().exitOverride();
  for (const r of register) r(program);
  const out: string[] = [];
  const err: string[] = [];
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write;
  const before = process.exitCode;
  process.exitCode = undefined;
  let exitCode = 0;
  try {
    await program.parseAsync(["node", "rocelab", ...args]);
    exitCode = Number(process.exitCode ?? 0);
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    process.exitCode = before;
  }
  return { exitCode, stdout: out.join(""), stderr: err.join("") };
}
