// Runs the real `rocelab` command, the compiled bundle users run (`npm run rocelab`: dist/bundle/main/cli.js,
// rebuilt first when the sources changed), as a separate process: exit status, stdout and stderr are what a
// user sees. Running src/main/cli.ts through tap's TypeScript loader instead cost 10-15 s per call.
import { execa } from "execa";
import { ensureBuilt } from "./built.js";

export async function rocelab(
  args: readonly string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
) {
  await ensureBuilt();
  // env(1) keeps the test runner's NODE_OPTIONS (its process hooks) away from the user's command.
  return execa("env", ["-u", "NODE_OPTIONS", process.execPath, "dist/bundle/main/cli.js", ...args], {
    reject: false,
    cwd: process.cwd(),
    env: opts.env,
    timeout: opts.timeoutMs ?? 120_000,
  });
}
