// The compiled bundles (dist/, what `npm run rocelab` runs) are current before a test starts one of them.
import { execa } from "execa";

let built = false;

/** Device processes run the compiled JavaScript: make sure it is current (fast when it is). */
export async function ensureBuilt(): Promise<void> {
  if (built) return;
  // env(1) drops the test runner's NODE_OPTIONS, which its child_process hooks would otherwise re-add.
  const r = await execa("env", ["-u", "NODE_OPTIONS", process.execPath, "scripts/setup", "--quiet"], {
    reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`scripts/setup failed: ${r.stderr}`);
  built = true;
}
