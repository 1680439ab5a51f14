// Where the compiled entry points of live processes are. Lab processes always run compiled JavaScript
// (a TypeScript loader per process would make `up` slow), also when the command that starts them runs
// from source (tests do): the bundled entry points in dist/bundle/ (scripts/bundle.mjs), one file and a
// few shared chunks each instead of ~500 modules, which is most of a process's start-up.

import { join } from "node:path";
import { projectRoot } from "../../runtime/realtime/project-root.js";

/** A file of the compiled tree, e.g. distPath("tools/bench/frame-generator.js"). */
export function distPath(relative: string): string {
  return join(projectRoot(), "dist", relative);
}

/**
 * A bundled entry point, e.g. entryPath("main/device-main.js"): the same relative path under
 * dist/bundle/ (scripts/bundle.mjs lists the entry points it builds). With ROCELAB_BUNDLE=0 in the
 * environment, the file of the compiled tree instead: stack traces then name the dist/ module (and, with
 * NODE_OPTIONS=--enable-source-maps, the src/ line), and the benchmarks compare the two start-ups.
 */
export function entryPath(relative: string): string {
  if (process.env.ROCELAB_BUNDLE === "0") return distPath(relative);
  return join(projectRoot(), "dist", "bundle", relative);
}
