// Runs the real `rocelab` command from source (src/main/cli.ts through tap's TypeScript loader), as a separate
// process: exit status, stdout and stderr are what a user sees.
import { execa } from "execa";

export function rocelab(
  args: readonly string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
) {
  return execa(process.execPath, ["--import=@tapjs/typescript/import", "src/main/cli.ts", ...args], {
    reject: false,
    cwd: process.cwd(),
    env: opts.env,
    timeout: opts.timeoutMs ?? 120_000,
  });
}
