// Where the compiled entry points of live processes are. Lab processes always run the compiled JavaScript
// in dist/ (a TypeScript loader per process would make `up` slow), also when the command that starts them
// runs from source (tests do).

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the rocelab project root (package.json)");
    dir = up;
  }
  return dir;
}

const ROOT = projectRoot();

/** A compiled entry point, e.g. distPath("runtime/live/device-main.js"). */
export function distPath(relative: string): string {
  return join(ROOT, "dist", relative);
}
